// LSM hook probes (ir::LsmSpec: kernel.lsm("HOOK")): one "lsm/HOOK"
// program per probe.  Its context is a BPF trampoline's: the hook's
// arguments, one u64 slot each, then (for a hook returning int) the
// verdict of the BPF LSM programs before it, which the program returns
// unless the body sets another (ProgramContext::verdict_slot).
#include "codegen/emitter.h"

namespace stap::codegen {

bool emit_lsm_program(ModuleState& ms, ir::Probe& p, const ir::LsmSpec& lsm, size_t index,
                      std::string& error) {
  std::string name = "lsm_" + std::to_string(index);
  ProgramContext context;
  context.registers = ProgramContext::Registers::trampoline;
  // $return reads the verdict slot as an argument past the hook's own.
  context.arg_count = lsm.args + (lsm.verdict ? 1 : 0);
  if (lsm.verdict) {
    context.verdict = ProgramContext::Verdict::lsm;
    context.verdict_slot = lsm.args;
  }
  return emit_probe_programs(p, name, error, [&] {
    ProgramEmitter(ms, p, context).emit(name, "lsm/" + lsm.hook);  // libbpf adds bpf_lsm_
  });
}

}  // namespace stap::codegen
