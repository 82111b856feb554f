// Interval timers (ir::TimerSpec): timer.s/sec/ms/msec/us/usec/ns/nsec/
// jiffies(N)[.randomize(M)] and timer.hz(N), run in user context by the
// runtime's timerfds.  (timer.profile is a perf event: perf.cpp.)
#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

// x86-64 kernels default to CONFIG_HZ=250 (this project's kernel has it),
// used when the driver could not read the target kernel's config.
constexpr int64_t kDefaultHz = 250;

int64_t number_of(const ast::ProbePointComponent& c) {
  auto* n = dynamic_cast<const ast::NumberLit*>(c.arg);
  return n ? n->value : 0;
}

// Nanoseconds per unit of a timer.UNIT(N) point; 0 when not an interval unit.
int64_t unit_ns(const std::string& unit, int64_t hz) {
  if (unit == "s" || unit == "sec") return 1000000000;
  if (unit == "ms" || unit == "msec") return 1000000;
  if (unit == "us" || unit == "usec") return 1000;
  if (unit == "ns" || unit == "nsec") return 1;
  if (unit == "jiffies") return 1000000000 / hz;
  return 0;
}

class TimerLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePoint& point = *dp.point;
    const ast::ProbePointComponent& unit = point.components[1];
    int64_t hz = l_.options().kernel_hz > 0 ? l_.options().kernel_hz : kDefaultHz;
    ir::TimerSpec spec;
    if (unit.functor == "hz") {
      int64_t n = number_of(unit);
      spec.period_ns = n > 0 ? 1000000000 / n : 0;
    } else {
      int64_t scale = unit_ns(unit.functor, hz);
      spec.period_ns = number_of(unit) * scale;
      if (point.components.size() >= 3 && point.components[2].functor == "randomize")
        spec.randomize_ns = number_of(point.components[2]) * scale;
    }
    ir::Probe probe;
    probe.pp = point.to_string();
    probe.context = ir::Context::user;
    probe.spec = spec;
    BodyContext context(l_);  // no probe context to read
    l_.lower_body(dp, std::move(probe), context);
  }
};

}  // namespace

std::unique_ptr<KindLowering> make_timer_lowering(Lowerer& l) {
  return std::make_unique<TimerLowering>(l);
}

}  // namespace stap::lower
