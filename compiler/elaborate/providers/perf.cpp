// Perf events: perf.type(T).config(C) with an optional .sample(N) period or
// .hz(N) frequency, optionally counting only in .process("P").  The named
// events (perf.sw.*, perf.hw.*, perf.hw_cache.*) are aliases over these in
// tapsets/perf.stp, as in stap.  Whether the machine has the event is asked
// of the kernel in pass 2 (may_match), so that a '!' list can fall back.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "elaborate/providers/provider.h"

namespace stap {

namespace {

// Whether this machine has the event: opened (disabled) on the first CPU
// and closed again.  Only a definite "no such event" counts as missing
// (a VM without a PMU refuses hardware counters with ENOENT or
// EOPNOTSUPP); lacking the permission to ask, assume it is there and let
// the runtime's attach report the truth.
bool event_exists(int64_t type, int64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = uint32_t(type);
  attr.config = uint64_t(config);
  attr.sample_period = 1000000;
  attr.disabled = 1;
  long fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) {
    close(int(fd));
    return true;
  }
  return errno != ENOENT && errno != EOPNOTSUPP && errno != ENODEV && errno != EINVAL;
}

class PerfProvider : public ProbeProvider {
 public:
  PerfProvider()
      : ProbeProvider("perf",
                      {"perf.type(number).config(number)",
                       "perf.type(number).config(number).sample(number)",
                       "perf.type(number).config(number).hz(number)",
                       "perf.type(number).config(number).process",
                       "perf.type(number).config(number).process(string)",
                       // Beyond stap, whose .process takes the default period only.
                       "perf.type(number).config(number).sample(number).process",
                       "perf.type(number).config(number).sample(number).process(string)",
                       "perf.type(number).config(number).counter(string)",
                       "perf.type(number).config(number).process(string).counter(string)"},
                      /*resolved_later=*/true) {}

  // An optional point ('?', '!') of an event this machine lacks resolves
  // to nothing in pass 2, so `perf.hw.cpu_cycles!, timer.profile` falls
  // back; a required one fails at attach with the kernel's reason.
  bool may_match(const ast::ProbePoint& point) const override {
    if (point.components.size() < 3) return true;
    return event_exists(number_arg(point.components[1]), number_arg(point.components[2]));
  }

  // A bare .process counts in the -c/-x target: without one it has
  // nothing to count in.
  size_t resolve(const ast::ProbePoint& point, const ResolveRequest& request, DerivedProbe& out,
                 Diagnostics& diags) const override {
    const ast::ProbePointComponent* process = find(point, "process");
    if (process && !process->arg && request.target_program.empty()) {
      if (!request.quiet)
        value_error(point, process->loc,
                    "unspecified process probe is invalid without a -c COMMAND or -x PID "
                    "[man stapprobes]",
                    diags);
      return 0;
    }
    return ProbeProvider::resolve(point, request, out, diags);
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& type = point.components[1];
    if (number_arg(type) < 0) {
      value_error(point, type.arg->loc, "perf event type must not be negative", diags);
      return false;
    }
    for (const char* rate : {"sample", "hz"}) {
      const ast::ProbePointComponent* c = find(point, rate);
      if (c && number_arg(*c) <= 0) {
        value_error(point, c->arg->loc, std::string("perf ") + rate + " value must be positive",
                    diags);
        return false;
      }
    }
    if (const ast::ProbePointComponent* c = find(point, "counter")) {
      const std::string& name = string_arg(*c);
      const char* wrong = name.empty() ? "missing perf probe counter component name"
                          : name.find_first_of("*?[") != std::string::npos
                              ? "wildcard not allowed with perf probe counter component"
                              : nullptr;
      if (wrong) {
        value_error(point, c->arg->loc, wrong, diags);
        return false;
      }
    }
    return true;
  }
};

}  // namespace

const ProbeProvider& perf_provider() {
  static const PerfProvider provider;
  return provider;
}

}  // namespace stap
