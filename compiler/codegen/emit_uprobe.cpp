// User-space probes (ir::ProbeKind::uprobe): one program, section
// "uprobe" or "uretprobe", that the loader attaches at each site
// (loader/attach_uprobe.cpp) with the site's index as the attach cookie.
// Its context is the probed thread's user registers (struct pt_regs), as
// a kprobe's is the kernel's, so the kprobe variant of the kernel-function
// reads serves it: fn_arg/fn_ret are the C calling convention's registers,
// fn_name the running site's entry in Probe::functions (b = 1:
// Probe::site_points), reg any saved register, uread the process's memory.
#include "codegen/emitter.h"

namespace stap::codegen {

bool emit_uprobe_program(ModuleState& ms, ir::Probe& p, size_t index, std::string& error) {
  if (p.offsets.empty()) {
    error = "no site to probe in probe " + p.pp;
    return false;
  }
  std::string name = "uprobe_" + std::to_string(index);
  try {
    ProgramEmitter(ms, p).emit_kfunc(name, p.is_return ? "uretprobe" : "uprobe",
                                     KfuncVariant::kprobe);
  } catch (const CodegenError& e) {
    error = std::string(e.what()) + " in probe " + p.pp;
    return false;
  }
  p.program_name = name;
  return true;
}

}  // namespace stap::codegen
