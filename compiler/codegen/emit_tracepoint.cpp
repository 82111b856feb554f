// Trace-event probes (ir::TracepointSpec: kernel.trace("system:event")):
// one "tracepoint/SYSTEM/EVENT" program per probe, whose context is the
// event's record (the body's tp_field/tp_chars/tp_dataloc read it at the
// offsets of the event's tracefs format).  Probes with the same body share
// one program, attached to each of their events (loader/attach_tracepoint.cpp).
// A syscalls:sys_enter_* body that reads user memory may also run at the
// call's exit (emit_deferral.cpp).
#include "codegen/emitter.h"

namespace stap::codegen {

bool emit_tracepoint_program(ModuleState& ms, ir::Probe& p, const ir::TracepointSpec& tp,
                             size_t index, std::string& error) {
  if (const ir::Probe* q = shared_program(ms.ir, index)) {
    p.program_name = q->program_name;
    return true;
  }
  std::string name = "probe_" + std::to_string(index);
  ProgramContext context;
  context.deferral = deferral_of(ms.ir, p);
  return emit_probe_programs(p, name, error, [&] {
    ProgramEmitter(ms, p, context).emit(name, "tracepoint/" + tp.system + "/" + tp.event);
    emit_deferred_body(ms, p, index, context, name);
  });
}

}  // namespace stap::codegen
