// BTF tracepoint probes (ir::BtfTracepointSpec: kernel.tracepoint("NAME")):
// one "tp_btf/NAME" program per probe.  Its context is the tracepoint's
// arguments, one u64 slot each, as a BPF trampoline passes them, so the
// shared reads of fn_arg serve it (emit_kfunc.cpp's trampoline_slot).
// A tp_btf program is verified against its one tracepoint, so each probe
// has its own (loader/attach/attach_btf_tracepoint.cpp attaches it).
#include "codegen/emitter.h"

namespace stap::codegen {

bool emit_btf_tracepoint_program(ModuleState& ms, ir::Probe& p, const ir::BtfTracepointSpec& tp,
                                 size_t index, std::string& error) {
  std::string name = "tp_btf_" + std::to_string(index);
  ProgramContext context;
  context.registers = ProgramContext::Registers::trampoline;
  context.arg_count = tp.args;
  return emit_probe_programs(p, name, error, [&] {
    ProgramEmitter(ms, p, context).emit(name, "tp_btf/" + tp.name);
  });
}

}  // namespace stap::codegen
