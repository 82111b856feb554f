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
#include <set>

#include "elaborate/providers/provider.h"
#include "elaborate/typecheck.h"
#include "kernel/kernel_btf.h"
#include "lower/kinds/kinds.h"
#include "lower/target_path.h"

namespace stap::lower {

namespace {

// The BPF trampoline of a tracepoint passes at most this many arguments
// (the kernel's MAX_BPF_FUNC_ARGS).
constexpr size_t kMaxArgs = 12;

std::string point_text(const ast::ProbePoint& point, const std::string& module,
                       const std::string& name) {
  bool module_point = point.components[0].functor == "module";
  return (module_point ? "module(\"" + module + "\")" : std::string("kernel")) +
         ".tracepoint(\"" + name + "\")";
}

class BtfTracepointBody : public BodyContext {
 public:
  BtfTracepointBody(Lowerer& l, kernel::Function tp) : BodyContext(l), tp_(std::move(tp)) {}

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override {
    if (n.name == "$$name") return l_.str(tp_.name);
    if (n.name == "$$system") return l_.str("");
    if (n.name.starts_with("$$")) return all_vars(n);
    Place p;
    if (!base(n, p, false)) return l_.num(0);
    return finish_path(l_, n, p, n.components, n.address_of, n.pretty, any_type);
  }

  std::optional<bool> target_exists(const ast::Expr& e) override {
    auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
    if (!t) return std::nullopt;
    if (t->name.starts_with("$$"))
      return t->name == "$$vars" || t->name == "$$parms" || t->name == "$$locals" ||
             t->name == "$$name" || t->name == "$$system";
    Place p;
    if (!base(*t, p, true)) return false;
    return path_exists(l_, *t, p, t->components, t->address_of, t->pretty);
  }

 private:
  // The argument a $name names: by the kernel's name, or $argN.
  std::optional<size_t> index_of(const std::string& name) const {
    for (size_t i = 0; i < tp_.params.size(); ++i)
      if (tracepoint_arg_name(tp_, i) == name) return i;
    if (name.starts_with("arg") && name.size() > 3 &&
        name.find_first_not_of("0123456789", 3) == std::string::npos) {
      size_t n = std::stoul(name.substr(3));
      if (n >= 1 && n <= tp_.params.size()) return n - 1;
    }
    return std::nullopt;
  }

  bool base(const ast::TargetSymbol& n, Place& p, bool quiet) {
    std::string token = describe_expr(n);
    auto fail = [&](const std::string& message) {
      if (!quiet) l_.error(n.loc, message, token);
      return false;
    };
    std::string name = n.name.substr(1);
    std::optional<size_t> i = index_of(name);
    if (!i) {
      std::set<std::string> names;
      for (size_t k = 0; k < tp_.params.size(); ++k) names.insert(tracepoint_arg_name(tp_, k));
      std::string sugs = suggest(name, names, 5);
      return fail("unable to find tracepoint variable '" + n.name + "' (" +
                  (sugs.empty() ? "<no alternatives>" : "alternatives: " + sugs) + ")");
    }
    if (*i >= kMaxArgs)
      return fail("argument " + std::to_string(*i + 1) + " of tracepoint " + tp_.name +
                  " is past the " + std::to_string(kMaxArgs) + " a BPF program can read");
    TType type = TType::of(tp_.params[*i].type);
    uint32_t size = register_size(type);
    if (!size)
      return fail("argument '" + name + "' of tracepoint " + tp_.name + " is a " +
                  type_text(type) + " passed by value, which cannot be read");
    ir::Node* v = l_.make(ir::Op::fn_arg, ir::Type::long_);
    v->a = static_cast<int64_t>(*i);
    v->b = size;
    v->c = value_signed(type);
    p = Place{type, v};
    return true;
  }

  ir::Node* all_vars(ast::TargetSymbol& n) {
    std::vector<NamedVar> vars;
    if (n.name != "$$locals" && n.name != "$$return")
      for (size_t i = 0; i < tp_.params.size(); ++i)
        vars.push_back({tracepoint_arg_name(tp_, i), TType::of(tp_.params[i].type)});
    return vars_text(l_, n, vars, [&](const NamedVar& var, Place& p) {
      ast::TargetSymbol sym;
      sym.name = "$" + var.name;
      sym.loc = n.loc;
      return base(sym, p, true);
    });
  }

  kernel::Function tp_;
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
