// Perf-event probes (ir::PerfSpec: timer.profile, perf.*; and
// ir::WatchpointSpec, a breakpoint event): one BPF_PROG_TYPE_PERF_EVENT
// program ("perf_event" section) per probe, which the loader attaches to
// the probe's event on every online CPU or on the tasks it counts in
// (loader/attach/attach_perf.cpp, attach_watchpoint.cpp).  Its context is struct bpf_perf_event_data,
// whose first member is the sampled struct pt_regs: user_mode(), addr()
// and the stack builtins read it (emit_stack.cpp).
#include "codegen/emitter.h"

namespace stap::codegen {

bool emit_perf_program(ModuleState& ms, ir::Probe& p, size_t index, std::string& error) {
  std::string name = "perf_" + std::to_string(index);
  ProgramContext context;
  context.perf_sample = true;
  return emit_probe_programs(p, name, error,
                             [&] { ProgramEmitter(ms, p, context).emit(name, "perf_event"); });
}

}  // namespace stap::codegen
