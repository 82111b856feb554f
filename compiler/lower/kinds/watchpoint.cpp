// Hardware watchpoints -> ir::WatchpointSpec (elaborate/providers/
// watchpoint.cpp says which points there are):
//
//   kernel.data(ADDR)[.length(N)].write|.rw    a breakpoint event on every
//                                              CPU, whatever task touches it
//   kernel.data("SYMBOL").write|.rw            at the kernel symbol, from
//                                              kallsyms when it attaches
//   process.data(ADDR)[.length(N)].write|.rw   in the -c/-x target's tasks
//
// .length(N): 3 watches 4 bytes, 5 and more watch 8, as stap rounds (a
// warning beyond 8); the address must be a multiple of the bytes watched,
// as the kernel requires (stap fails to register it at run time).
// The body has no target variables (as in stap); it runs as a perf
// sample's, so pp(), addr() (the accessing instruction), the registers
// and the stacks of the access are there.  pp() is stap's rewritten
// point: the address in hex and the length always written,
// kernel.data(0xffffffff82e1d4a0).length(4).write, and for a symbol
// kernel.data("pid_max").length(1).rw.
#include "base/format_string.h"
#include "elaborate/providers/provider.h"
#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

class WatchpointLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePoint& point = *dp.point;
    ir::WatchpointSpec spec;
    spec.user = point.components[0].functor == "process";
    spec.rw = point.components.back().functor == "rw";
    const ast::ProbePointComponent& data = point.components[1];
    std::string where;
    if (auto* name = dynamic_cast<const ast::StringLit*>(data.arg)) {
      spec.symbol = name->value;
      where = "\"" + name->value + "\"";
    } else if (auto* n = dynamic_cast<const ast::NumberLit*>(data.arg)) {
      spec.address = n->value;
      where = hex_text(uint64_t(n->value));
    }
    int64_t length = 1;
    for (const ast::ProbePointComponent& c : point.components) {
      auto* n = dynamic_cast<const ast::NumberLit*>(c.arg);
      if (c.functor != "length" || !n) continue;
      length = n->value;
      if (length < 1) {
        l_.error(n->loc, "hardware watchpoint length must be at least 1 byte, not " +
                             std::to_string(length), "number '" + n->text + "'");
        return;
      }
      if (length > 8)
        l_.diagnostics().warning(n->loc, "a hardware watchpoint watches 8 bytes at most: " +
                                             std::to_string(length) + " watches 8, as in stap",
                                 "number '" + n->text + "'");
    }
    spec.length = int64_t(watched_length(length));
    if (spec.symbol.empty() && uint64_t(spec.address) % uint64_t(spec.length) != 0) {
      l_.error(data.arg->loc, "hardware watchpoint address " + where +
                                  " is not aligned to the " + std::to_string(spec.length) +
                                  " bytes it watches (a debug register watches 1, 2, 4 or 8 "
                                  "bytes at a multiple of that length)",
               "number '" + static_cast<const ast::NumberLit*>(data.arg)->text + "'");
      return;
    }
    ir::Probe probe;
    probe.context = ir::Context::kernel;
    probe.pp = point.components[0].functor + ".data(" + where + ").length(" +
               std::to_string(length) + ")." + point.components.back().functor;
    probe.spec = spec;
    BodyContext context(l_);  // no target variables
    l_.lower_body(dp, std::move(probe), context);
  }
};

}  // namespace

std::unique_ptr<KindLowering> make_watchpoint_lowering(Lowerer& l) {
  return std::make_unique<WatchpointLowering>(l);
}

}  // namespace stap::lower
