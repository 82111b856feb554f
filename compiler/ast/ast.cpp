#include "ast/ast.h"

#include "ast/visitor.h"

namespace stap::ast {

const char* type_name(Type t) {
  switch (t) {
    case Type::unknown: return "unknown";
    case Type::long_: return "long";
    case Type::string: return "string";
    case Type::stats: return "stats";
  }
  return "unknown";
}

const char* stat_op_name(StatOp op) {
  switch (op) {
    case StatOp::count: return "count";
    case StatOp::sum: return "sum";
    case StatOp::min: return "min";
    case StatOp::max: return "max";
    case StatOp::avg: return "avg";
    case StatOp::variance: return "variance";
  }
  return "count";
}

const char* unary_op_text(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg: return "-";
    case UnaryOp::plus: return "+";
    case UnaryOp::logical_not: return "!";
    case UnaryOp::bit_not: return "~";
    case UnaryOp::pre_inc: case UnaryOp::post_inc: return "++";
    case UnaryOp::pre_dec: case UnaryOp::post_dec: return "--";
  }
  return "?";
}

#define STAP_ACCEPT(T) \
  void T::accept(Visitor& v) { v.visit(*this); }
STAP_NODE_TYPES(STAP_ACCEPT)
#undef STAP_ACCEPT

// ---------------------------------------------------------------- traversal

void TraversingVisitor::walk_components(std::vector<TargetComponent>& cs) {
  for (TargetComponent& c : cs) walk(c.index_expr);
}
void TraversingVisitor::visit(TargetSymbol& n) { walk_components(n.components); }
void TraversingVisitor::visit(CastExpr& n) { walk(n.operand); walk_components(n.components); }
void TraversingVisitor::visit(AtVar& n) { walk_components(n.components); }
void TraversingVisitor::visit(Autocast& n) { walk(n.operand); walk_components(n.components); }
void TraversingVisitor::visit(AtOp& n) { for (Expr* e : n.operands) walk(e); }
void TraversingVisitor::visit(StatExpr& n) { walk(n.operand); walk(n.shift); }
void TraversingVisitor::visit(HistExpr& n) {
  walk(n.operand); walk(n.low); walk(n.high); walk(n.step);
}
void TraversingVisitor::visit(UnaryExpr& n) { walk(n.operand); }
void TraversingVisitor::visit(BinaryExpr& n) { walk(n.left); walk(n.right); }
void TraversingVisitor::visit(TernaryExpr& n) {
  walk(n.cond); walk(n.then_expr); walk(n.else_expr);
}
void TraversingVisitor::visit(AssignExpr& n) { walk(n.target); walk(n.value); }
void TraversingVisitor::visit(ArrayIndex& n) {
  walk(n.base);
  for (Expr* e : n.indexes) walk(e);
}
void TraversingVisitor::visit(InExpr& n) { if (n.index) visit(*n.index); }
void TraversingVisitor::visit(CallExpr& n) { for (Expr* e : n.args) walk(e); }
void TraversingVisitor::visit(Block& n) { for (Stmt* s : n.statements) walk(s); }
void TraversingVisitor::visit(ExprStmt& n) { walk(n.expr); }
void TraversingVisitor::visit(IfStmt& n) {
  walk(n.cond); walk(n.then_stmt); walk(n.else_stmt);
}
void TraversingVisitor::visit(ForStmt& n) {
  walk(n.init); walk(n.cond); walk(n.incr); walk(n.body);
}
void TraversingVisitor::visit(ForeachStmt& n) {
  if (n.value) walk(n.value);
  for (Symbol* k : n.keys) walk(k);
  walk(n.base);
  for (Expr* e : n.slice) walk(e);
  walk(n.limit);
  walk(n.body);
}
void TraversingVisitor::visit(ReturnStmt& n) { walk(n.value); }
void TraversingVisitor::visit(DeleteStmt& n) { walk(n.target); }
void TraversingVisitor::visit(TryStmt& n) {
  if (n.try_block) visit(*n.try_block);
  if (n.catch_var) walk(n.catch_var);
  if (n.catch_block) visit(*n.catch_block);
}

}  // namespace stap::ast
