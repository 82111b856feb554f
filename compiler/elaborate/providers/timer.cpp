// Timers: timer.{jiffies,s,sec,ms,msec,us,usec,ns,nsec}(N)[.randomize(M)],
// timer.hz(N) (interval timers, run in user space) and timer.profile.tick
// (a per-CPU perf event).  timer.profile and timer.profile.freq.hz(N) are
// aliases in tapsets/timers.stp, as in stap.  The ranges are stap's, so a
// script it rejects is rejected here too.
#include <string>

#include "elaborate/providers/provider.h"

namespace stap {

namespace {

struct Unit {
  const char* name;
  int64_t low, high;  // the interval's accepted range, in the unit itself
};

constexpr int64_t kDaySeconds = 86400;
const Unit kUnits[] = {
    {"s", 1, kDaySeconds},
    {"sec", 1, kDaySeconds},
    {"ms", 1, kDaySeconds * 1000},
    {"msec", 1, kDaySeconds * 1000},
    {"us", 100, kDaySeconds * 1000000},
    {"usec", 100, kDaySeconds * 1000000},
    {"ns", 100000, kDaySeconds * 1000000000},
    {"nsec", 100000, kDaySeconds * 1000000000},
};
constexpr size_t kNsIndex = 6;  // kUnits[kNsIndex] is "ns"
constexpr int64_t kMaxJiffies = 1000000;

std::vector<std::string> timer_patterns() {
  std::vector<std::string> out;
  std::vector<std::string> names = {"jiffies"};
  for (const Unit& u : kUnits) names.push_back(u.name);
  for (const std::string& n : names) {
    out.push_back("timer." + n + "(number)");
    out.push_back("timer." + n + "(number).randomize(number)");
  }
  out.push_back("timer.hz(number)");
  out.push_back("timer.profile.tick");
  return out;
}

class TimerProvider : public ProbeProvider {
 public:
  TimerProvider() : ProbeProvider("timer", timer_patterns(), /*resolved_later=*/false) {}

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern& pattern,
                    Diagnostics& diags) const override {
    if (pattern.components[1].arg == ArgKind::none) return true;  // profile.tick
    const ast::ProbePointComponent& unit = point.components[1];
    int64_t interval = number_arg(unit);
    const std::string& name = unit.functor;
    if (name == "hz") return check_hz(point, unit, diags);
    if (name == "jiffies") {
      if (interval < 1 || interval > kMaxJiffies) {
        value_error(point, unit.arg->loc, "invalid interval for jiffies timer", diags);
        return false;
      }
    } else {
      for (const Unit& u : kUnits) {
        if (name != u.name || (interval >= u.low && interval <= u.high)) continue;
        value_error(point, unit.arg->loc,
                    "interval value out of range (" + std::to_string(u.low) + ", " +
                        std::to_string(u.high) + ")",
                    diags);
        return false;
      }
    }
    const ast::ProbePointComponent* rnd = find(point, "randomize");
    if (rnd && (number_arg(*rnd) < 0 || number_arg(*rnd) > interval)) {
      value_error(point, rnd->arg->loc, "randomization value out of range", diags);
      return false;
    }
    return true;
  }

 private:
  // timer.hz(N) fires every 1e9/N ns, which must be within the ns range.
  static bool check_hz(const ast::ProbePoint& point, const ast::ProbePointComponent& c,
                       Diagnostics& diags) {
    int64_t hz = number_arg(c);
    if (hz <= 0) {
      value_error(point, c.arg->loc, "frequency must be greater than 0", diags);
      return false;
    }
    const Unit& ns = kUnits[kNsIndex];
    int64_t period = 1000000000 / hz;
    if (period < ns.low || period > ns.high) {
      value_error(point, c.arg->loc,
                  "interval value out of range (" + std::to_string(ns.low) + ", " +
                      std::to_string(ns.high) + ")",
                  diags);
      return false;
    }
    return true;
  }
};

}  // namespace

const ProbeProvider& timer_provider() {
  static const TimerProvider provider;
  return provider;
}

}  // namespace stap
