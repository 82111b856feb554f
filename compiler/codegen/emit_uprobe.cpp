// User-space probes (ir::UprobeSpec): two variants of the probe's
// program, both in section "uprobe" or "uretprobe", of which the loader
// loads what the kernel offers (loader/attach_uprobe.cpp):
//   uprobe_N        attached at each site as a uprobe (a perf event each)
//   uprobe_N_multi  the same code, loaded for uprobe.multi (Linux 6.6+):
//                   one link for all the sites.  Debian 12's libbpf knows
//                   no "uprobe.multi" section, so the loader sets the
//                   expected attach type itself.
// Either way the site's index is the attach cookie.  The context is the
// probed thread's user registers (struct pt_regs), as a kprobe's is the
// kernel's, so the kprobe variant of the kernel-function reads serves it:
// fn_arg/fn_ret are the C calling convention's registers, fn_name the
// running site's entry in UprobeSpec::functions (b = 1: site_points),
// reg any saved register, uread the process's memory.
#include "bpf_runtime/stap_layout.h"
#include "codegen/emitter.h"

namespace stap::codegen {

bool emit_uprobe_program(ModuleState& ms, ir::Probe& p, const ir::UprobeSpec& uprobe,
                         size_t index, std::string& error) {
  if (uprobe.offsets.empty()) {
    error = "no site to probe in probe " + p.pp;
    return false;
  }
  std::string name = "uprobe_" + std::to_string(index);
  std::string section = uprobe.is_return ? "uretprobe" : "uprobe";
  ProgramContext context;
  context.registers = ProgramContext::Registers::pt_regs;
  context.functions = &uprobe.functions;
  context.site_points = &uprobe.site_points;
  context.at_return = uprobe.is_return;
  return emit_probe_programs(p, name, error, [&] {
    ProgramEmitter(ms, p, context).emit(name, section);
    ProgramEmitter(ms, p, context).emit(name + STAP_KFUNC_MULTI_SUFFIX, section);
  });
}

}  // namespace stap::codegen
