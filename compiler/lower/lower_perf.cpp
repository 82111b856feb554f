// Sampling probes -> ir::ProbeKind::perf: a perf event on every online
// CPU whose overflow runs the body in the kernel.
//
//   timer.profile.tick             the CPU clock, sampled once a tick (1/HZ s),
//                                  which is what stap's profile hook fires at
//   perf.type(T).config(C)         sampled every 1,000,000 events (stap's default)
//     .sample(N)                   ... every N events
//     .hz(N)                       ... N times a second (the kernel adapts the period)
//
// timer.profile, timer.profile.freq.hz(N) and the named perf.sw/hw/hw_cache
// events are tapset aliases over these (tapsets/timers.stp, perf.stp).
// pp() is stap's rewritten point: perf.type(T).config(C).sample(N), N
// being the frequency for .hz(N), as stap writes it.
#include <string>

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
  for (const char* unsupported : {"process", "counter"})
    if (const ast::ProbePointComponent* c = component(point, unsupported)) {
      error(c->loc,
            std::string("perf probes with .") + unsupported +
                " are not supported yet by this engine: sample every CPU and filter on "
                "pid() or execname() in the body",
            "identifier '" + c->functor + "'");
      return;
    }
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
  lower_body(dp, std::move(probe));
}

}  // namespace stap::lower
