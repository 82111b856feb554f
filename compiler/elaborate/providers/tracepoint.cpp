// Kernel tracepoints: kernel.trace("[sys:]name") (wildcards allowed in
// both parts) and kernel.tracepoint("name") (typed arguments from BTF).
// Which tracepoints exist is known only from tracefs/BTF on the target
// kernel, so pass 2 checks the shape and keeps the point for the provider's
// resolution.
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

class TracepointProvider : public ProbeProvider {
 public:
  TracepointProvider()
      : ProbeProvider("kernel.trace", {"kernel.trace(string)", "kernel.tracepoint(string)"},
                      /*resolved_later=*/true) {}

  // The tracepoint's fields ($prev, $next ...), from its format or BTF.
  bool has_target_vars(const ast::ProbePoint&) const override { return true; }

  bool matches(const ast::ProbePoint& point) const override {
    return point.components.size() >= 2 && point.components[0].functor == "kernel" &&
           (point.components[1].functor == "trace" ||
            point.components[1].functor == "tracepoint");
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& c = point.components[1];
    const std::string& name = string_arg(c);
    // "sys:" alone, ":name" or "" name nothing.
    size_t colon = name.find(':');
    bool bad = name.empty() || colon == 0 ||
               (colon != std::string::npos && colon + 1 == name.size());
    if (bad) {
      value_error(point, c.arg->loc,
                  "invalid tracepoint string provided (expected \"[system:]name\")", diags);
      return false;
    }
    return true;
  }
};

}  // namespace

const ProbeProvider& tracepoint_provider() {
  static const TracepointProvider provider;
  return provider;
}

}  // namespace stap
