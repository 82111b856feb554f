// Arguments of a BPF trampoline's context, typed by BTF (btf_args.h).
#include "lower/kinds/btf_args.h"

#include <set>

#include "elaborate/providers/provider.h"
#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

// The BPF trampoline passes at most this many arguments (the kernel's
// MAX_BPF_FUNC_ARGS).
constexpr size_t kMaxArgs = 12;

}  // namespace

ir::Node* BtfArgsBody::target(ast::TargetSymbol& n, bool any_type) {
  if (ir::Node* v = special(n)) return v;
  if (n.name.starts_with("$$")) return all_vars(n);
  Place p;
  if (!base(n, p, false)) return l_.num(0);
  return finish_path(l_, n, p, n.components, n.address_of, n.pretty, any_type);
}

std::optional<bool> BtfArgsBody::target_exists(const ast::Expr& e) {
  auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
  if (!t) return std::nullopt;
  if (special_exists(*t)) return true;
  if (t->name.starts_with("$$"))
    return t->name == "$$vars" || t->name == "$$parms" || t->name == "$$locals";
  Place p;
  if (!base(*t, p, true)) return false;
  return path_exists(l_, *t, p, t->components, t->address_of, t->pretty);
}

// The argument a $name names: by the kernel's name, or $argN.
std::optional<size_t> BtfArgsBody::index_of(const std::string& name) const {
  for (size_t i = 0; i < fn_.params.size(); ++i)
    if (tracepoint_arg_name(fn_, i) == name) return i;
  if (name.starts_with("arg") && name.size() > 3 && name.size() < 6 &&
      name.find_first_not_of("0123456789", 3) == std::string::npos) {
    size_t n = std::stoul(name.substr(3));
    if (n >= 1 && n <= fn_.params.size()) return n - 1;
  }
  return std::nullopt;
}

bool BtfArgsBody::base(const ast::TargetSymbol& n, Place& p, bool quiet) {
  std::string token = describe_expr(n);
  auto fail = [&](const std::string& message) {
    if (!quiet) l_.error(n.loc, message, token);
    return false;
  };
  std::string name = n.name.substr(1);
  std::optional<size_t> i = index_of(name);
  if (!i) {
    std::set<std::string> names;
    for (size_t k = 0; k < fn_.params.size(); ++k) names.insert(tracepoint_arg_name(fn_, k));
    std::string sugs = suggest(name, names, 5);
    return fail("unable to find target variable '" + n.name + "' of " + what_ + " (" +
                (sugs.empty() ? "<no alternatives>" : "alternatives: " + sugs) + ")");
  }
  if (*i >= kMaxArgs)
    return fail("argument " + std::to_string(*i + 1) + " of " + what_ + " is past the " +
                std::to_string(kMaxArgs) + " a BPF program can read");
  TType type = TType::of(fn_.params[*i].type);
  uint32_t size = register_size(type);
  if (!size)
    return fail("argument '" + name + "' of " + what_ + " is a " + type_text(type) +
                " passed by value, which cannot be read");
  ir::Node* v = l_.make(ir::Op::fn_arg, ir::Type::long_);
  v->a = static_cast<int64_t>(*i);
  v->b = size;
  v->c = value_signed(type);
  p = Place{type, v};
  return true;
}

ir::Node* BtfArgsBody::all_vars(ast::TargetSymbol& n) {
  std::vector<NamedVar> vars;
  if (n.name != "$$locals" && n.name != "$$return")
    for (size_t i = 0; i < fn_.params.size(); ++i)
      vars.push_back({tracepoint_arg_name(fn_, i), TType::of(fn_.params[i].type)});
  return vars_text(l_, n, vars, [&](const NamedVar& var, Place& p) {
    ast::TargetSymbol sym;
    sym.name = "$" + var.name;
    sym.loc = n.loc;
    return base(sym, p, true);
  });
}

}  // namespace stap::lower
