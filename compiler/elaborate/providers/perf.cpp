// Perf events: perf.type(T).config(C) with an optional .sample(N) period or
// .hz(N) frequency, optionally counting only in .process("P").  The named
// events (perf.sw.*, perf.hw.*, perf.hw_cache.*) are aliases over these in
// tapsets/perf.stp, as in stap.  Whether the CPU has the counter is known
// only when the event is opened, so the point is kept for the provider.
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

class PerfProvider : public ProbeProvider {
 public:
  PerfProvider()
      : ProbeProvider("perf",
                      {"perf.type(number).config(number)",
                       "perf.type(number).config(number).sample(number)",
                       "perf.type(number).config(number).hz(number)",
                       "perf.type(number).config(number).process",
                       "perf.type(number).config(number).process(string)",
                       "perf.type(number).config(number).counter(string)",
                       "perf.type(number).config(number).process(string).counter(string)"},
                      /*resolved_later=*/true) {}

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
    return true;
  }
};

}  // namespace

const ProbeProvider& perf_provider() {
  static const PerfProvider provider;
  return provider;
}

}  // namespace stap
