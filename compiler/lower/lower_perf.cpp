// Sampling probes -> ir::ProbeKind::perf: a perf event on every online
// CPU whose overflow runs the body in the kernel.
//
//   timer.profile.tick             the CPU clock, sampled once a tick (1/HZ s),
//                                  which is what stap's profile hook fires at
//   perf.type(T).config(C)         sampled every 1,000,000 events (stap's default)
//     .sample(N)                   ... every N events
//     .hz(N)                       ... N times a second (the kernel adapts the period)
//     .process("P")                counting only in P's processes: the runtime
//                                  opens the event on each of their tasks
//                                  (loader/attach_perf_task.cpp); the body
//                                  runs only while the image is P's (a child
//                                  that execs another program keeps the
//                                  inherited event, not the probe)
//     .process                     counting only in the -c/-x target's
//                                  process tree (stap: the -c command's
//                                  program); ir: target_pid = -1
//
// timer.profile, timer.profile.freq.hz(N) and the named perf.sw/hw/hw_cache
// events are tapset aliases over these (tapsets/timers.stp, perf.stp).
// pp() is stap's rewritten point: perf.type(T).config(C).sample(N), N
// being the frequency for .hz(N), as stap writes it;
// .process adds .process("PATH"), P's canonical path, as stap does.
// In the ir::Probe: `binary` is .process("P")'s path, target_pid = -1
// stands for .process without a name.
#include <string>

#include "debuginfo/binary_path.h"
#include "elaborate/providers/provider.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

// x86-64 kernels default to CONFIG_HZ=250 when the config is unknown.
constexpr int64_t kDefaultTickHz = 250;
constexpr int64_t kPerfTypeSoftware = 1;   // PERF_TYPE_SOFTWARE
constexpr int64_t kSwCpuClock = 0;         // PERF_COUNT_SW_CPU_CLOCK
// stap's period for a perf point without .sample or .hz (tapset-perfmon.cxx).
constexpr int64_t kDefaultPerfPeriod = 1000000;

int64_t number_arg_of(const ast::ProbePointComponent& c) {
  auto* n = dynamic_cast<const ast::NumberLit*>(c.arg);
  return n ? n->value : 0;
}

const ast::ProbePointComponent* component(const ast::ProbePoint& p, const char* name) {
  for (const ast::ProbePointComponent& c : p.components)
    if (c.functor == name) return &c;
  return nullptr;
}

// .process("P") or .process: the probe's scope in `probe` (binary, or
// target_pid = -1 for the -c/-x target); false after an error.
bool scope_to_process(Lowerer& l, const ast::ProbePointComponent& c, ir::Probe& probe) {
  auto* name = dynamic_cast<const ast::StringLit*>(c.arg);
  if (!name) {
    probe.target_pid = -1;
    return true;
  }
  std::string why;
  probe.binary = debuginfo::find_executable(name->value, why);
  if (probe.binary.empty()) {
    l.error(c.loc, why.empty() ? "cannot find executable '" + name->value + "'" : why,
          "identifier 'process'");
    return false;
  }
  return true;
}

// The body of the perf probe just lowered runs only while the sampled
// task runs `image`: its event is inherited by the children of P's
// processes, also by those that exec another program.
void guard_perf_image(Lowerer& l, const std::string& image, SourceLoc loc) {
  ir::Probe& probe = l.module().probes.back();
  ir::Node* runs = l.runs_image(image, probe.slots, loc);
  if (!runs) {
    l.error(loc, "cannot stat " + image + " to scope the perf probe to it", "identifier 'process'");
    return;
  }
  ir::Node* guarded = l.make(ir::Op::if_);
  guarded->kids = {runs, probe.body, l.nop()};
  probe.body = l.make(ir::Op::block);
  probe.body->kids.push_back(guarded);
}

}  // namespace

void Lowerer::lower_perf_point(const DerivedProbe& dp) {
  const ast::ProbePoint& point = *dp.point;
  ir::Probe probe;
  probe.kind = ir::ProbeKind::perf;
  probe.context = ir::Context::kernel;
  if (point.components[0].functor == "timer") {  // timer.profile.tick
    int64_t hz = options_.kernel_hz > 0 ? options_.kernel_hz : kDefaultTickHz;
    probe.perf_type = kPerfTypeSoftware;
    probe.perf_config = kSwCpuClock;
    probe.perf_period = 1000000000 / hz;  // cpu-clock counts nanoseconds
    probe.pp = "timer.profile.tick";
    lower_body(dp, std::move(probe));
    return;
  }
  if (const ast::ProbePointComponent* c = component(point, "counter")) {
    error(c->loc,
          "perf probes with .counter are not supported yet by this engine: sample the event "
          "and count in the body",
          "identifier 'counter'");
    return;
  }
  const ast::ProbePointComponent* process = component(point, "process");
  if (process && !scope_to_process(*this, *process, probe)) return;
  probe.perf_type = number_arg_of(point.components[1]);
  probe.perf_config = number_arg_of(point.components[2]);
  probe.perf_period = kDefaultPerfPeriod;
  if (const ast::ProbePointComponent* c = component(point, "sample")) {
    probe.perf_period = number_arg_of(*c);
  } else if (const ast::ProbePointComponent* h = component(point, "hz")) {
    probe.perf_period = number_arg_of(*h);
    probe.perf_freq = true;
  }
  probe.pp = "perf.type(" + std::to_string(probe.perf_type) + ").config(" +
             std::to_string(probe.perf_config) + ").sample(" + std::to_string(probe.perf_period) + ")";
  if (process) probe.pp += probe.binary.empty() ? ".process" : ".process(\"" + probe.binary + "\")";
  std::string image = probe.binary;
  lower_body(dp, std::move(probe));
  if (!image.empty()) guard_perf_image(*this, image, process->loc);
}

}  // namespace stap::lower
