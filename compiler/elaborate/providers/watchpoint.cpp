// Hardware watchpoints: kernel.data(ADDRESS) and kernel.data("SYMBOL"),
// process.data(ADDRESS), each .write (stores) or .rw (loads and stores),
// an address optionally with .length(N) bytes (1 by default, as in stap).
// They run as perf breakpoint events (loader/attach/attach_watchpoint.cpp):
// kernel.data on every CPU, whatever runs there (a user-space address too,
// as stap allows); process.data in the -c/-x target's tasks only.
//
// As in stap: a length of 3 watches 4 bytes and 5 or more watch 8 (x86's
// debug registers watch 1, 2, 4 or 8 aligned bytes); a symbol takes no
// length and is looked up in /proc/kallsyms when the probe attaches;
// process.data("NAME") needs stap's Dyninst runtime, which this engine
// has no equivalent of.  -l lists a point as written, its address in hex
// (kernel.data(0x123).length(456).rw, as stap's listing test expects);
// lowering (lower/kinds/watchpoint.cpp) checks the length and alignment.
#include "base/format_string.h"
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

class WatchpointProvider : public ProbeProvider {
 public:
  WatchpointProvider()
      : ProbeProvider("data",
                      {"kernel.data(number).write", "kernel.data(number).rw",
                       "kernel.data(number).length(number).write",
                       "kernel.data(number).length(number).rw", "kernel.data(string).write",
                       "kernel.data(string).rw", "process.data(number).write",
                       "process.data(number).rw", "process.data(number).length(number).write",
                       "process.data(number).length(number).rw", "process.data(string).write",
                       "process.data(string).rw", "process.data(string).length(number).write",
                       "process.data(string).length(number).rw"},
                      // Later: a symbol's address is the kernel's at attach,
                      // and -l lists the point through list_points().
                      /*resolved_later=*/true) {}

  bool matches(const ast::ProbePoint& point) const override {
    if (point.components.size() < 2 || point.components[1].functor != "data") return false;
    const std::string& head = point.components[0].functor;
    return head == "kernel" || head == "process";
  }

  std::string no_target_vars_message(const ast::ProbePoint&) const override {
    return "target variables are not available in hardware watchpoint probes";
  }

  // stap -l: the point as written, the address in hex.
  std::vector<std::string> list_points(const ast::ProbePoint& point) const override {
    const ast::ProbePointComponent& data = point.components[1];
    if (!dynamic_cast<const ast::NumberLit*>(data.arg)) return {point.to_string()};
    std::string text =
        point.components[0].functor + ".data(" + hex_text(uint64_t(number_arg(data))) + ")";
    for (size_t i = 2; i < point.components.size(); ++i) {
      const ast::ProbePointComponent& c = point.components[i];
      text += "." + c.functor;
      if (c.arg) text += "(" + std::to_string(number_arg(c)) + ")";
    }
    return {text};
  }

  std::optional<std::vector<std::string>> known_target_vars(
      const ast::ProbePoint&) const override {
    return std::vector<std::string>{};
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& data = point.components[1];
    bool kernel = point.components[0].functor == "kernel";
    if (auto* name = dynamic_cast<const ast::StringLit*>(data.arg)) {
      if (!kernel) {
        value_error(point, data.arg->loc,
                    "process.data(\"NAME\") needs stap's Dyninst runtime, which this engine "
                    "does not have: use process.data(ADDRESS)",
                    diags);
        return false;
      }
      if (name->value.empty()) {
        value_error(point, data.arg->loc, "empty kernel data symbol name", diags);
        return false;
      }
      return true;
    }
    if (number_arg(data) == 0) {
      value_error(point, data.arg->loc, "hardware watchpoint address must not be 0", diags);
      return false;
    }
    return true;
  }
};

}  // namespace

uint64_t watched_length(int64_t length) {
  if (length <= 1) return 1;
  if (length == 2) return 2;
  if (length <= 4) return 4;
  return 8;
}

const ProbeProvider& watchpoint_provider() {
  static const WatchpointProvider provider;
  return provider;
}

}  // namespace stap
