// stap's autocast (2.6+): ->field, [index], & and $ on a value that is
// not itself a target variable, typed by where the value came from.
//
// Every target path (finish_path: $vars, @cast, @var and autocasts
// themselves) notes the type of the value it yields; the type then flows
// as stap's pass 2 lets it, in the order the bodies are lowered:
//   - through ?: when both sides agree, through "=" as an expression,
//     @entry, and the operand @choose_defined chose;
//   - into a local (not a global, not an array element) from every "="
//     assigning it: all typed assignments must agree, untyped ones (a
//     number, an untyped call) do not count;
//   - into a function from its return statements, with the same rule
//     (functions are lowered before probes, callees first).
// A type is the same only from the same place: two @casts of one struct
// through different modules are two types, as in stap.
#include "ast/visitor.h"
#include "elaborate/typecheck.h"
#include "lower/target_path.h"

namespace stap::lower {

namespace {

bool same_type(const TType& a, const TType& b) {
  if (a.from_dwarf != b.from_dwarf) return false;
  if (a.from_dwarf) return a.dwarf.die.addr == b.dwarf.die.addr && a.kernel == b.kernel;
  return a.btf.owner == b.btf.owner && a.btf.id == b.btf.id;
}

// Whether an expression names a target anywhere: a $var, @cast, @var or
// autocast.  @defined of anything else is true, as in stap.
bool mentions_target(const ast::Expr* e) {
  struct Finder : ast::TraversingVisitor {
    bool found = false;
    void visit(ast::TargetSymbol&) override { found = true; }
    void visit(ast::CastExpr&) override { found = true; }
    void visit(ast::AtVar&) override { found = true; }
    void visit(ast::Autocast&) override { found = true; }
  } finder;
  if (e) const_cast<ast::Expr*>(e)->accept(finder);
  return finder.found;
}

}  // namespace

bool ValueType::operator==(const ValueType& o) const {
  return address == o.address && origin == o.origin && same_type(type, o.type);
}

void ValueTypes::merge(std::optional<ValueType>& slot, bool& poisoned,
                       const std::optional<ValueType>& t) {
  if (!t || poisoned) return;
  if (!slot) {
    slot = t;
  } else if (!(*slot == *t)) {
    slot.reset();
    poisoned = true;
  }
}

std::string Lowerer::type_origin(const ast::Expr& n) {
  if (auto* c = dynamic_cast<const ast::CastExpr*>(&n)) return "@cast " + c->module;
  if (auto* v = dynamic_cast<const ast::AtVar*>(&n)) return "@var " + v->module;
  if (auto* a = dynamic_cast<const ast::Autocast*>(&n))
    if (std::optional<ValueType> t = value_type(*a->operand)) return t->origin;
  return {};
}

void Lowerer::note_path_type(const ast::Expr& n, const Place& p, bool address_of) {
  ValueType t{p.type, address_of, type_origin(n)};
  if (!address_of) {
    TypeKind k = types::kind(p.type);
    if (k == TypeKind::array) t.address = true;  // its value is where it starts
    else if (k != TypeKind::pointer) return;     // a number carries no type on
  }
  value_types_.exprs[&n] = t;
}

void Lowerer::note_same_type(const ast::Expr& n, const ast::Expr& from) {
  if (std::optional<ValueType> t = value_type(from)) value_types_.exprs[&n] = *t;
}

void Lowerer::note_local_assign(const ast::VarDecl* local, const ast::Expr& value) {
  ValueTypes::Merged& m = value_types_.locals[local];
  ValueTypes::merge(m.type, m.poisoned, value_type(value));
}

void Lowerer::note_return(const ast::Expr& value) {
  if (!body_ || !body_->function) return;
  ValueTypes::Merged& m = value_types_.functions[body_->function];
  ValueTypes::merge(m.type, m.poisoned, value_type(value));
}

std::optional<ValueType> Lowerer::value_type(const ast::Expr& e) {
  if (auto it = value_types_.exprs.find(&e); it != value_types_.exprs.end()) return it->second;
  auto merged = [](const auto& map, const auto* key) -> std::optional<ValueType> {
    auto it = map.find(key);
    return it == map.end() ? std::nullopt : it->second.type;
  };
  if (auto* s = dynamic_cast<const ast::Symbol*>(&e))
    return s->decl && s->decl->scope != ast::VarDecl::Scope::global
               ? merged(value_types_.locals, s->decl)
               : std::nullopt;
  if (auto* c = dynamic_cast<const ast::CallExpr*>(&e))
    return c->decl ? merged(value_types_.functions, c->decl) : builtin_type(*c);
  if (auto* t = dynamic_cast<const ast::TernaryExpr*>(&e)) {
    std::optional<ValueType> a = value_type(*t->then_expr), b = value_type(*t->else_expr);
    return a && b && *a == *b ? a : std::nullopt;
  }
  if (auto* a = dynamic_cast<const ast::AssignExpr*>(&e))
    return a->op == "=" ? value_type(*a->value) : std::nullopt;
  return std::nullopt;
}

// What a builtin returns the address of, where stap's tapset function
// returns a typed pointer (task_current() is `& @task(current)` there).
std::optional<ValueType> Lowerer::builtin_type(const ast::CallExpr& c) {
  if (c.name != "task_current" || !c.args.empty()) return std::nullopt;
  kernel::KernelBtf* btf = this->btf(c.loc, describe_expr(c), true);
  std::optional<kernel::Type> t = btf ? btf->find_type("task_struct", "") : std::nullopt;
  if (!t) return std::nullopt;
  return ValueType{TType::of(*t), true, "@cast kernel"};
}

// The place an autocast's value names: the object it is the address of,
// or the pointer it holds.
static Place autocast_place(const ValueType& t, ir::Node* value) {
  return t.address ? Place{t.type, nullptr, value} : Place{t.type, value, nullptr};
}

ir::Node* Lowerer::autocast(ast::Autocast& n) {
  size_t errors_before = diags_.error_count();
  ir::Node* value = expr(n.operand);
  std::optional<ValueType> t = value_type(*n.operand);
  if (!t && diags_.error_count() > errors_before) return num(0);  // said already
  if (!t) {
    error(n.loc, "unknown type in dereference", describe_expr(n));
    return num(0);
  }
  ir::Node* out = finish_path(*this, n, autocast_place(*t, value), n.components, n.address_of,
                              n.pretty, false);
  return refuse_process_read(n, out);
}

std::optional<bool> Lowerer::autocast_exists(const ast::Autocast& n) {
  std::optional<ValueType> t = value_type(*n.operand);
  if (!t && mentions_target(n.operand)) {
    // A target operand not lowered yet (@defined(@cast(p, "T")->f->g)):
    // lower it on trial for its type; what it would report stays quiet,
    // and an enclosing trial keeps its own first error.
    bool outer = trial_;
    TrialError outer_error = std::move(trial_error_);
    begin_trial();
    expr(n.operand);
    end_trial();
    trial_ = outer;
    trial_error_ = std::move(outer_error);
    t = value_type(*n.operand);
  }
  if (!t) return false;
  return path_exists(*this, n, autocast_place(*t, num(0)), n.components, n.address_of, n.pretty);
}

std::optional<bool> Lowerer::untargeted_exists(const ast::Expr* e) {
  if (mentions_target(e)) return std::nullopt;
  return true;
}

}  // namespace stap::lower
