// kernel.trace("[system:]event") points, resolved here over the running
// kernel's tracefs: one probe per matching event, a TracepointSpec (or a
// SyscallSpec for the system calls the raw dispatch serves, syscall.cpp),
// whose body reads the event's fields (trace_event_vars.cpp).
#include "lower/kinds/trace_event.h"
#include "lower/trace_events.h"

namespace stap::lower {

namespace {

class TracepointLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePoint& point = *dp.point;
    const ast::ProbePointComponent& head = point.components[0];
    auto* lit = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
    std::string spec = lit ? lit->value : std::string();
    size_t colon = spec.find(':');
    std::string system = colon == std::string::npos ? std::string() : spec.substr(0, colon);
    std::string name = colon == std::string::npos ? spec : spec.substr(colon + 1);
    // An optional point resolves to nothing, silently, even without tracefs.
    const std::vector<tracefs::Event>* all = l_.trace_events().events(head.loc, optional_point(dp));
    if (!all) return;
    std::vector<tracefs::Event> matches = tracefs::match_events(*all, system, name);
    if (matches.empty()) {
      if (optional_point(dp)) return;
      // stap's words for a point nothing resolves.
      l_.error(head.loc, "while resolving probe point", "identifier '" + head.functor + "'");
      l_.error({}, "no match");
      return;
    }
    for (const tracefs::Event& e : matches) {
      ir::Probe probe;
      probe.context = ir::Context::kernel;
      probe.spec = trace_event_spec(e);
      probe.pp = "kernel.trace(\"" + e.system + ":" + e.name + "\")";
      TraceEventBody context(l_, l_.trace_events().format(e, head.loc), probe, head.loc);
      l_.lower_body(dp, std::move(probe), context);
    }
  }
};

}  // namespace

std::unique_ptr<KindLowering> make_tracepoint_lowering(Lowerer& l) {
  return std::make_unique<TracepointLowering>(l);
}

}  // namespace stap::lower
