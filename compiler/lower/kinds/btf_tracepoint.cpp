// BTF tracepoints (kernel.tracepoint("NAME"), module("M").tracepoint):
// one ir::BtfTracepointSpec probe per tracepoint the pattern matches in
// the target kernel's BTF.  The program's context is the tracepoint's
// arguments, one u64 slot each, as a BPF trampoline's (fn_arg reads them),
// typed by the btf_trace_NAME typedef, so target variables walk typed
// pointers with no @cast:
//   $NAME, $argN          argument N (1-based), by the kernel's name or by
//                         position; $p->f ... as for kernel functions
//   $$parms, $$vars       "prev=0x... next=0x..." ($$parms$ pretty)
//   $$locals              empty: a tracepoint has no locals
//   $$name                the tracepoint's name; $$system is "" (BTF names
//                         no subsystem)
#include "elaborate/providers/provider.h"
#include "lower/kinds/btf_args.h"
#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

std::string point_text(const ast::ProbePoint& point, const std::string& module,
                       const std::string& name) {
  bool module_point = point.components[0].functor == "module";
  return (module_point ? "module(\"" + module + "\")" : std::string("kernel")) +
         ".tracepoint(\"" + name + "\")";
}

// $$name and $$system besides the arguments (btf_args.h).
class BtfTracepointBody : public BtfArgsBody {
 public:
  BtfTracepointBody(Lowerer& l, kernel::Function tp)
      : BtfArgsBody(l, tp, "tracepoint " + tp.name) {}

 protected:
  ir::Node* special(ast::TargetSymbol& n) override {
    if (n.name == "$$name") return l_.str(fn().name);
    if (n.name == "$$system") return l_.str("");
    return nullptr;
  }
  bool special_exists(const ast::TargetSymbol& n) const override {
    return n.name == "$$name" || n.name == "$$system";
  }
};

class BtfTracepointLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePoint& point = *dp.point;
    const ast::ProbePointComponent& head = point.components[0];
    auto string_of = [](const ast::ProbePointComponent& c) {
      auto* lit = dynamic_cast<const ast::StringLit*>(c.arg);
      return lit ? lit->value : std::string();
    };
    std::string module = head.functor == "module" ? string_of(head) : std::string();
    kernel::KernelBtf* btf = l_.btf(head.loc, "identifier '" + head.functor + "'",
                                    /*quiet=*/optional_point(dp));
    if (!btf) return;
    std::vector<std::string> names =
        match_btf_tracepoints(*btf, string_of(point.components[1]), module);
    if (names.empty()) {
      if (optional_point(dp)) return;
      l_.error(head.loc, "no match for " + point_text(point, module, string_of(point.components[1])),
               "identifier '" + head.functor + "'");
      return;
    }
    for (const std::string& name : names) {
      std::optional<kernel::Function> tp = btf->tracepoint(name, module);
      if (!tp) continue;
      ir::BtfTracepointSpec spec{name, tp->module, static_cast<int64_t>(tp->params.size())};
      ir::Probe probe = kernel_probe(std::move(spec), point_text(point, module, name));
      BtfTracepointBody context(l_, std::move(*tp));
      l_.lower_body(dp, std::move(probe), context);
    }
  }
};

}  // namespace

std::unique_ptr<KindLowering> make_btf_tracepoint_lowering(Lowerer& l) {
  return std::make_unique<BtfTracepointLowering>(l);
}

}  // namespace stap::lower
