// Expressions -> IR values, per the operand conventions of ir/ir.h.
#include <map>

#include "ast/visitor.h"
#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

const std::map<std::string, ir::Op>& long_ops() {
  static const std::map<std::string, ir::Op> ops = {
      {"+", ir::Op::add},     {"-", ir::Op::sub},      {"*", ir::Op::mul},
      {"/", ir::Op::div},     {"%", ir::Op::mod},      {"<<", ir::Op::shl},
      {">>", ir::Op::shr},    {"&", ir::Op::bit_and},  {"|", ir::Op::bit_or},
      {"^", ir::Op::bit_xor}, {"<", ir::Op::lt},       {"<=", ir::Op::le},
      {">", ir::Op::gt},      {">=", ir::Op::ge},      {"==", ir::Op::eq},
      {"!=", ir::Op::ne},     {"&&", ir::Op::log_and}, {"||", ir::Op::log_or},
  };
  return ops;
}

const std::map<std::string, ir::Op>& string_ops() {
  static const std::map<std::string, ir::Op> ops = {
      {"<", ir::Op::str_lt},  {"<=", ir::Op::str_le}, {">", ir::Op::str_gt},
      {">=", ir::Op::str_ge}, {"==", ir::Op::str_eq}, {"!=", ir::Op::str_ne},
  };
  return ops;
}

class ExprLowerer : public ast::Visitor {
 public:
  explicit ExprLowerer(Lowerer& l) : l_(l) {}
  ir::Node* result = nullptr;

  void visit(ast::NumberLit& n) override { result = l_.num(n.value); }
  void visit(ast::StringLit& n) override { result = l_.str(n.value); }
  void visit(ast::Symbol& n) override;
  void visit(ast::TargetSymbol& n) override { result = l_.target(n); }
  void visit(ast::CastExpr& n) override { result = l_.cast_expr(n); }
  void visit(ast::AtVar& n) override { result = l_.at_var(n); }
  void visit(ast::Autocast& n) override { result = l_.autocast(n); }
  void visit(ast::EmbeddedExpr& n) override {
    l_.limitation(n.loc, "embedded C (%{ %}) cannot run on BPF: write the value in the script "
                  "language", describe_expr(n));
    result = l_.num(0);
  }
  void visit(ast::AtOp& n) override;
  void visit(ast::StatExpr& n) override;
  void visit(ast::HistExpr& n) override;
  void visit(ast::UnaryExpr& n) override;
  void visit(ast::BinaryExpr& n) override;
  void visit(ast::TernaryExpr& n) override;
  void visit(ast::AssignExpr& n) override { result = l_.assign(n, false); }
  void visit(ast::ArrayIndex& n) override;
  void visit(ast::InExpr& n) override;
  void visit(ast::CallExpr& n) override;
  // Statements never reach an expression visitor.
  void visit(ast::Block&) override {}
  void visit(ast::ExprStmt&) override {}
  void visit(ast::NullStmt&) override {}
  void visit(ast::IfStmt&) override {}
  void visit(ast::ForStmt&) override {}
  void visit(ast::ForeachStmt&) override {}
  void visit(ast::ReturnStmt&) override {}
  void visit(ast::DeleteStmt&) override {}
  void visit(ast::JumpStmt&) override {}
  void visit(ast::TryStmt&) override {}

 private:
  void unsupported(ast::Expr& n, const std::string& what) {
    l_.limitation(n.loc, what + " is not supported yet by this engine", describe_expr(n));
    result = l_.num(0);
  }
  ir::Node* binary(ir::Op op, ir::Type t, ast::Expr* a, ast::Expr* b) {
    ir::Node* node = l_.make(op, t);
    node->kids = {l_.expr(a), l_.expr(b)};
    return node;
  }
  ir::Node* unsigned_shift(ast::BinaryExpr& n);

  Lowerer& l_;
};

void ExprLowerer::visit(ast::Symbol& n) {
  const ast::VarDecl* d = n.decl;
  if (!d) {
    l_.error(n.loc, "unresolved symbol", describe_expr(n));
    result = l_.num(0);
    return;
  }
  ir::Type t = ir_type(d->type);
  if (d->scope == ast::VarDecl::Scope::global) {
    result = l_.make(ir::Op::global, t);
    result->a = l_.global_index(d);
    return;
  }
  result = l_.make(ir::Op::local, t);
  result->a = l_.slot(d);
}

void ExprLowerer::visit(ast::AtOp& n) {
  // @defined / @choose_defined on a target variable of this probe: pass 2
  // answered them only where there are no target variables.
  if (n.op == "defined" && n.operands.size() == 1) {
    std::optional<bool> known = l_.target_exists(n.operands[0]);
    if (known) {
      result = l_.num(*known ? 1 : 0);
      return;
    }
  }
  if (n.op == "choose_defined" && n.operands.size() == 2) {
    std::optional<bool> known = l_.target_exists(n.operands[0]);
    if (known) {
      result = l_.expr(n.operands[*known ? 0 : 1]);
      l_.note_same_type(n, *n.operands[*known ? 0 : 1]);
      return;
    }
  }
  if ((n.op == "kderef" || n.op == "uderef") && n.operands.size() == 2) {
    result = l_.deref(n);
    return;
  }
  if (n.op == "entry" && (result = l_.at_entry(n))) {
    l_.note_same_type(n, *n.operands[0]);
    return;
  }
  unsupported(n, "@" + n.op);
}

void ExprLowerer::visit(ast::StatExpr& n) {
  result = l_.make(ir::Op::stat_get, ir::Type::long_);
  result->a = l_.stats_operand(n.operand, result);
  result->b = static_cast<int64_t>(n.op);
  if (n.shift) {
    auto* shift = dynamic_cast<const ast::NumberLit*>(n.shift);
    if (!shift) l_.error(n.shift->loc, "@variance shift must be a literal number",
                         describe_expr(*n.shift));
    else result->c = shift->value;
  }
  result->loc = l_.location(n);
}

void ExprLowerer::visit(ast::HistExpr& n) {
  // Only printing, indexing and foreach take a histogram (their own code
  // handles it); pass 2 lets nothing else through.
  l_.error(n.loc, "a histogram can only be printed, indexed or iterated", describe_expr(n));
  result = l_.num(0);
}

void ExprLowerer::visit(ast::UnaryExpr& n) {
  switch (n.op) {
    case ast::UnaryOp::plus: result = l_.expr(n.operand); return;
    case ast::UnaryOp::neg: result = l_.make(ir::Op::neg, ir::Type::long_); break;
    case ast::UnaryOp::logical_not: result = l_.make(ir::Op::log_not, ir::Type::long_); break;
    case ast::UnaryOp::bit_not: result = l_.make(ir::Op::bit_not, ir::Type::long_); break;
    default: result = l_.incdec(n); return;
  }
  result->kids.push_back(l_.expr(n.operand));
}

// a >>> b, the logical shift, from the arithmetic one and a mask:
//   t = b; (a >> t) & ~(-1 << (64 - t)), or a itself when t is 0.
// The operands are evaluated once each, left to right (a into a temp first).
ir::Node* ExprLowerer::unsigned_shift(ast::BinaryExpr& n) {
  int ta = l_.add_temp(ir::Type::long_);
  int tb = l_.add_temp(ir::Type::long_);
  auto local = [&](int slot) {
    ir::Node* x = l_.make(ir::Op::local, ir::Type::long_);
    x->a = slot;
    return x;
  };
  auto op = [&](ir::Op o, ir::Node* a, ir::Node* b) {
    ir::Node* x = l_.make(o, ir::Type::long_);
    x->kids = {a, b};
    return x;
  };
  ir::Node* set_a = l_.make(ir::Op::set_local, ir::Type::long_);
  set_a->a = ta;
  set_a->kids = {l_.expr(n.left)};
  ir::Node* set_b = l_.make(ir::Op::set_local, ir::Type::long_);
  set_b->a = tb;
  set_b->kids = {l_.expr(n.right)};
  // (a*0 + b) == 0 evaluates a, then b, and tests b.
  ir::Node* test = op(ir::Op::eq, op(ir::Op::add, op(ir::Op::mul, set_a, l_.num(0)), set_b),
                      l_.num(0));
  ir::Node* mask = l_.make(ir::Op::bit_not, ir::Type::long_);
  mask->kids = {op(ir::Op::shl, l_.num(-1), op(ir::Op::sub, l_.num(64), local(tb)))};
  ir::Node* shifted = op(ir::Op::bit_and, op(ir::Op::shr, local(ta), local(tb)), mask);
  ir::Node* node = l_.make(ir::Op::cond, ir::Type::long_);
  node->kids = {test, local(ta), shifted};
  return node;
}

void ExprLowerer::visit(ast::BinaryExpr& n) {
  if (n.op == ".") {
    result = binary(ir::Op::concat, ir::Type::string, n.left, n.right);
    return;
  }
  if (n.op == "=~" || n.op == "!~") {
    auto* re = dynamic_cast<const ast::StringLit*>(n.right);
    if (!re) {
      l_.error(n.right->loc, "regular expression must be a literal string",
               describe_expr(*n.right));
      result = l_.num(0);
      return;
    }
    l_.check_regex_context(n);
    result = l_.make(ir::Op::regex_match, ir::Type::long_);
    result->kids = {l_.expr(n.left)};
    result->s = re->value;
    result->b = n.op == "!~";
    return;
  }
  if (n.op == ">>>") {
    result = unsigned_shift(n);
    return;
  }
  bool strings = n.left->type == ast::Type::string || n.right->type == ast::Type::string;
  const auto& table = strings ? string_ops() : long_ops();
  auto it = table.find(n.op);
  if (it == table.end()) {
    l_.error(n.loc, "operator '" + n.op + "' is not supported on these operands",
             describe_expr(n));
    result = l_.num(0);
    return;
  }
  result = binary(it->second, ir::Type::long_, n.left, n.right);
  if (it->second == ir::Op::div || it->second == ir::Op::mod) result->loc = l_.location(n);
}

void ExprLowerer::visit(ast::TernaryExpr& n) {
  std::optional<bool> known = l_.target_defined(n.cond);
  if (known) {
    result = l_.expr(*known ? n.then_expr : n.else_expr);
    return;
  }
  result = l_.make(ir::Op::cond, ir_type(n.type));
  result->kids = {l_.expr(n.cond), l_.expr(n.then_expr), l_.expr(n.else_expr)};
}

void ExprLowerer::visit(ast::ArrayIndex& n) {
  if (auto* hist = dynamic_cast<ast::HistExpr*>(n.base)) {
    // @hist_log(x)[i]: the count in bucket i.
    result = l_.make(ir::Op::hist_bucket, ir::Type::long_);
    // "empty aggregate" and "histogram index out of range" name the
    // @hist_* operator, as stap's do.
    result->loc = l_.location(*hist);
    result->a = l_.stats_operand(hist->operand, result);
    if (n.indexes.size() != 1 || !n.indexes[0]) {
      l_.error(n.loc, "a histogram takes one bucket index", describe_expr(n));
      return;
    }
    result->kids.push_back(l_.expr(n.indexes[0]));
    return;
  }
  auto* sym = dynamic_cast<ast::Symbol*>(n.base);
  int g = sym ? l_.global_index(sym->decl) : -1;
  if (g < 0) {
    l_.error(n.loc, "array must be a global variable", describe_expr(n));
    result = l_.num(0);
    return;
  }
  result = l_.make(ir::Op::elem, ir_type(sym->decl->type));
  result->a = g;
  l_.keys(result, n.indexes);
  result->loc = l_.location(n);
}

void ExprLowerer::visit(ast::InExpr& n) {
  // i in @hist_log(x) is @hist_log(x)[i] != 0, as stap defines it (its
  // errors too: an empty aggregate, an index out of range).
  if (n.index && dynamic_cast<ast::HistExpr*>(n.index->base)) {
    result = l_.make(ir::Op::ne, ir::Type::long_);
    result->kids = {l_.expr(n.index), l_.num(0)};
    return;
  }
  auto* sym = n.index ? dynamic_cast<ast::Symbol*>(n.index->base) : nullptr;
  int g = sym ? l_.global_index(sym->decl) : -1;
  result = l_.make(ir::Op::in_elem, ir::Type::long_);
  if (g < 0) {
    l_.error(n.loc, "'in' needs a global array", "keyword");
    return;
  }
  result->a = g;
  l_.keys(result, n.index->indexes);
}

void ExprLowerer::visit(ast::CallExpr& n) {
  if (n.decl) {
    result = l_.call(n);
    return;
  }
  const Builtin* b = find_builtin(n.name, n.args.size());
  if (!b) {
    l_.error(n.loc, "unresolved function", describe_expr(n));
    result = l_.num(0);
    return;
  }
  l_.check_builtin_context(n, *b);
  if (l_.is_print_family(*b)) {
    result = l_.print_call(n, *b);
    return;
  }
  std::string name(b->ir_name());
  if (name.empty()) {  // asmlinkage(), fastcall(): no effect (kept under -u)
    result = l_.num(0);
    return;
  }
  if (ir::Node* k = l_.context_builtin(n)) {
    result = k;
    return;
  }
  if (name == "exit" || name == "error") {
    result = l_.make(name == "exit" ? ir::Op::exit : ir::Op::error);
  } else {
    result = l_.make(ir::Op::builtin, ir_type(b->return_type));
    result->s = name;
  }
  for (ast::Expr* arg : n.args) result->kids.push_back(l_.expr(arg));
  // error() reports its message alone: stap's error() clears the
  // statement location before the runtime prints it ("ERROR: boom").
  if (name != "exit" && name != "error") result->loc = l_.location(n);
}

}  // namespace

ir::Node* Lowerer::expr(ast::Expr* e) {
  ExprLowerer lowerer(*this);
  e->accept(lowerer);
  return lowerer.result ? lowerer.result : num(0);
}

// Array keys: one kid per index, `any` for a '*'.
ir::Node* Lowerer::keys(ir::Node* into, const std::vector<ast::Expr*>& indexes) {
  for (ast::Expr* k : indexes) into->kids.push_back(k ? expr(k) : make(ir::Op::any));
  return into;
}

int Lowerer::stats_operand(ast::Expr* operand, ir::Node* into) {
  ast::Expr* base = operand;
  auto* idx = dynamic_cast<ast::ArrayIndex*>(operand);
  if (idx) base = idx->base;
  auto* sym = dynamic_cast<ast::Symbol*>(base);
  int g = sym ? global_index(sym->decl) : -1;
  if (g < 0) {
    error(operand->loc, "statistic must be a global variable", describe_expr(*operand));
    return -1;
  }
  if (idx) keys(into, idx->indexes);
  return g;
}

}  // namespace stap::lower
