// Assignments, ++/--, <<< and delete.
//
// `+=`, `-=`, `++` and `--` on a long global or array element become the
// atomic add_global/add_elem, so concurrent probes lose no update; the
// other compound operators read, compute and store.  On an element that
// reads the keys twice, so keys with side effects (a[i++] *= 2) are first
// stored in temporaries when the assignment is a statement of its own.
#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

ir::Op compound_op(const std::string& op) {
  static const std::pair<const char*, ir::Op> table[] = {
      {"+=", ir::Op::add},     {"-=", ir::Op::sub},     {"*=", ir::Op::mul},
      {"/=", ir::Op::div},     {"%=", ir::Op::mod},     {"<<=", ir::Op::shl},
      {">>=", ir::Op::shr},    {"&=", ir::Op::bit_and}, {"|=", ir::Op::bit_or},
      {"^=", ir::Op::bit_xor}, {".=", ir::Op::concat},
  };
  for (const auto& [text, o] : table)
    if (op == text) return o;
  return ir::Op::nop;
}

// Whether evaluating e twice is the same as once: no assignment, no
// call with an effect.
bool pure(const ast::Expr* e) {
  if (!e) return true;
  if (dynamic_cast<const ast::NumberLit*>(e) || dynamic_cast<const ast::StringLit*>(e) ||
      dynamic_cast<const ast::Symbol*>(e))
    return true;
  if (auto* t = dynamic_cast<const ast::TargetSymbol*>(e)) {
    for (const ast::TargetComponent& c : t->components)
      if (!pure(c.index_expr)) return false;
    return true;
  }
  if (auto* b = dynamic_cast<const ast::BinaryExpr*>(e)) return pure(b->left) && pure(b->right);
  if (auto* u = dynamic_cast<const ast::UnaryExpr*>(e))
    return (u->op == ast::UnaryOp::neg || u->op == ast::UnaryOp::plus ||
            u->op == ast::UnaryOp::logical_not || u->op == ast::UnaryOp::bit_not) &&
           pure(u->operand);
  if (auto* t = dynamic_cast<const ast::TernaryExpr*>(e))
    return pure(t->cond) && pure(t->then_expr) && pure(t->else_expr);
  if (auto* c = dynamic_cast<const ast::CallExpr*>(e)) {
    const Builtin* b = c->decl ? nullptr : find_builtin(c->name, c->args.size());
    if (!b || !b->pure) return false;
    for (const ast::Expr* a : c->args)
      if (!pure(a)) return false;
    return true;
  }
  return false;
}

}  // namespace

// x += d / x -= d on a long global or element: the atomic add's delta.
ir::Node* Lowerer::delta(ast::Expr* value, ir::Op op) {
  ir::Node* d = expr(value);
  if (op != ir::Op::sub) return d;
  ir::Node* neg = make(ir::Op::neg, ir::Type::long_);
  neg->kids = {d};
  return neg;
}

ir::Node* Lowerer::assign(ast::AssignExpr& n, bool statement) {
  if (n.op == "<<<") {
    ir::Node* add = make(ir::Op::stat_add);
    add->a = stats_operand(n.target, add);
    add->kids.push_back(expr(n.value));
    return add;
  }
  ir::Op op = n.op == "=" ? ir::Op::nop : compound_op(n.op);
  if (n.op != "=" && op == ir::Op::nop) {
    error(n.loc, "assignment operator '" + n.op + "' is not supported", describe_expr(n));
    return num(0);
  }
  if (auto* sym = dynamic_cast<ast::Symbol*>(n.target)) return assign_variable(n, *sym, op);
  // `$t = v`, and `$t .= v` as `$t = $t . v` (procfs's $value appends).
  if (auto* t = dynamic_cast<ast::TargetSymbol*>(n.target);
      t && (n.op == "=" || op == ir::Op::concat)) {
    ir::Node* value = checked_long(expr(n.value), *n.value, false);
    if (op == ir::Op::concat) {
      ir::Node* joined = make(ir::Op::concat, ir::Type::string);
      joined->kids = {context().target(*t, false), value};
      value = joined;
    }
    if (ir::Node* write = context().assign_target(*t, value)) return write;
  }
  auto* idx = dynamic_cast<ast::ArrayIndex*>(n.target);
  auto* base = idx ? dynamic_cast<ast::Symbol*>(idx->base) : nullptr;
  int g = base ? global_index(base->decl) : -1;
  if (g < 0) {
    limitation(n.loc, "writing to this is not supported by this engine", describe_expr(*n.target));
    return num(0);
  }
  return assign_element(n, *idx, g, op, statement);
}

ir::Node* Lowerer::assign_variable(ast::AssignExpr& n, ast::Symbol& sym, ir::Op op) {
  if (!sym.decl) return num(0);
  ir::Type t = ir_type(n.target->type);
  bool global = sym.decl->scope == ast::VarDecl::Scope::global;
  if (global && t == ir::Type::long_ && (op == ir::Op::add || op == ir::Op::sub)) {
    ir::Node* add = make(ir::Op::add_global, t);
    add->a = global_index(sym.decl);
    add->kids = {delta(n.value, op)};
    return add;
  }
  ir::Node* value = expr(n.value);
  if (op == ir::Op::nop && !global) note_local_assign(sym.decl, *n.value);
  if (op != ir::Op::nop) {
    ir::Node* combined = make(op, t);
    combined->kids = {expr(&sym), value};
    if (op == ir::Op::div || op == ir::Op::mod) combined->loc = location(n);
    value = combined;
  }
  ir::Node* set = make(global ? ir::Op::set_global : ir::Op::set_local, t);
  set->a = global ? global_index(sym.decl) : slot(sym.decl);
  set->kids = {value};
  return set;
}

ir::Node* Lowerer::assign_element(ast::AssignExpr& n, ast::ArrayIndex& idx, int g, ir::Op op,
                                  bool statement) {
  ir::Type t = ir_type(n.target->type);
  if (op == ir::Op::nop || (t == ir::Type::long_ && (op == ir::Op::add || op == ir::Op::sub))) {
    bool add = op != ir::Op::nop;
    ir::Node* node = make(add ? ir::Op::add_elem : ir::Op::set_elem, t);
    node->a = g;
    keys(node, idx.indexes);
    node->kids.push_back(add ? delta(n.value, op) : expr(n.value));
    node->loc = location(idx);
    return node;
  }
  // Read, compute, store: the keys are needed twice.
  bool keys_pure = true;
  for (const ast::Expr* k : idx.indexes) keys_pure = keys_pure && pure(k);
  if (!keys_pure && !statement) {
    error(idx.loc, "an index with side effects in a compound assignment used as a value is not "
                   "supported yet: put the index in a variable first",
          describe_expr(idx));
    return num(0);
  }
  ir::Node* prefix = make(ir::Op::block);
  std::vector<int> temps;  // -1: the key is pure and lowered again
  for (ast::Expr* k : idx.indexes) {
    if (keys_pure) {
      temps.push_back(-1);
      continue;
    }
    ir::Node* store = make(ir::Op::set_local, ir_type(k->type));
    store->a = add_temp(store->type);
    store->kids = {expr(k)};
    ir::Node* st = make(ir::Op::expr);
    st->kids = {store};
    prefix->kids.push_back(st);
    temps.push_back(static_cast<int>(store->a));
  }
  auto key_kids = [&](ir::Node* into) {
    for (size_t i = 0; i < idx.indexes.size(); ++i) {
      if (temps[i] < 0) {
        into->kids.push_back(expr(idx.indexes[i]));
        continue;
      }
      ir::Node* read = make(ir::Op::local, ir_type(idx.indexes[i]->type));
      read->a = temps[i];
      into->kids.push_back(read);
    }
  };
  ir::Node* read = make(ir::Op::elem, t);
  read->a = g;
  key_kids(read);
  read->loc = location(idx);
  ir::Node* combined = make(op, t);
  combined->kids = {read, expr(n.value)};
  if (op == ir::Op::div || op == ir::Op::mod) combined->loc = location(n);
  ir::Node* set = make(ir::Op::set_elem, t);
  set->a = g;
  key_kids(set);
  set->kids.push_back(combined);
  set->loc = read->loc;
  if (keys_pure) return set;
  ir::Node* st = make(ir::Op::expr);
  st->kids = {set};
  prefix->kids.push_back(st);
  return prefix;
}

ir::Node* Lowerer::incdec(ast::UnaryExpr& n) {
  bool post = n.op == ast::UnaryOp::post_inc || n.op == ast::UnaryOp::post_dec;
  int64_t delta = n.op == ast::UnaryOp::pre_inc || n.op == ast::UnaryOp::post_inc ? 1 : -1;
  if (auto* sym = dynamic_cast<ast::Symbol*>(n.operand); sym && sym->decl) {
    if (sym->decl->scope == ast::VarDecl::Scope::global) {
      ir::Node* add = make(ir::Op::add_global, ir::Type::long_);
      add->a = global_index(sym->decl);
      add->b = post ? 1 : 0;
      add->kids = {num(delta)};
      return add;
    }
    // x++ on a local: the new value minus the step is the old one.
    ir::Node* sum = make(ir::Op::add, ir::Type::long_);
    sum->kids = {expr(sym), num(delta)};
    ir::Node* set = make(ir::Op::set_local, ir::Type::long_);
    set->a = slot(sym->decl);
    set->kids = {sum};
    if (!post) return set;
    ir::Node* old = make(ir::Op::sub, ir::Type::long_);
    old->kids = {set, num(delta)};
    return old;
  }
  auto* idx = dynamic_cast<ast::ArrayIndex*>(n.operand);
  auto* base = idx ? dynamic_cast<ast::Symbol*>(idx->base) : nullptr;
  int g = base ? global_index(base->decl) : -1;
  if (g < 0) {
    error(n.loc, "this operand of '" + std::string(ast::unary_op_text(n.op)) +
                     "' is not supported by this engine",
          describe_expr(n));
    return num(0);
  }
  ir::Node* add = make(ir::Op::add_elem, ir::Type::long_);
  add->a = g;
  add->b = post ? 1 : 0;
  keys(add, idx->indexes);
  add->kids.push_back(num(delta));
  add->loc = location(*idx);
  return add;
}

ir::Node* Lowerer::delete_stmt(ast::DeleteStmt& n) {
  if (auto* sym = dynamic_cast<ast::Symbol*>(n.target); sym && sym->decl) {
    if (sym->decl->scope == ast::VarDecl::Scope::global) {
      ir::Node* clear = make(ir::Op::clear_global);
      clear->a = global_index(sym->decl);
      return clear;
    }
    // delete on a local resets it.
    ir::Type t = ir_type(sym->decl->type);
    ir::Node* set = make(ir::Op::set_local, t);
    set->a = slot(sym->decl);
    set->kids = {t == ir::Type::string ? str("") : num(0)};
    ir::Node* st = make(ir::Op::expr);
    st->kids = {set};
    return st;
  }
  auto* idx = dynamic_cast<ast::ArrayIndex*>(n.target);
  auto* base = idx ? dynamic_cast<ast::Symbol*>(idx->base) : nullptr;
  int g = base ? global_index(base->decl) : -1;
  if (g < 0) {
    error(n.loc, "delete needs a global array or a variable", "keyword");
    return nop();
  }
  ir::Node* del = make(ir::Op::delete_elem);
  del->a = g;
  keys(del, idx->indexes);
  return del;
}

}  // namespace stap::lower
