// Visitors over the AST.  Visitor dispatches one call per node type;
// TraversingVisitor walks every child by default, so a pass overrides only
// the nodes it cares about and calls the base to keep descending.
#pragma once

#include "ast/ast.h"

namespace stap::ast {

#define STAP_NODE_TYPES(X)                                                  \
  X(NumberLit) X(StringLit) X(Symbol) X(TargetSymbol) X(CastExpr) X(AtVar) \
  X(Autocast) X(EmbeddedExpr) X(AtOp) X(StatExpr) X(HistExpr) X(UnaryExpr) X(BinaryExpr)   \
  X(TernaryExpr) X(AssignExpr) X(ArrayIndex) X(InExpr) X(CallExpr) X(Block) X(ExprStmt)    \
  X(NullStmt) X(IfStmt) X(ForStmt) X(ForeachStmt) X(ReturnStmt)             \
  X(DeleteStmt) X(JumpStmt) X(TryStmt)

struct Visitor {
  virtual ~Visitor() = default;
#define STAP_VISIT_DECL(T) virtual void visit(T& node) = 0;
  STAP_NODE_TYPES(STAP_VISIT_DECL)
#undef STAP_VISIT_DECL
};

struct TraversingVisitor : Visitor {
  void visit(NumberLit&) override {}
  void visit(StringLit&) override {}
  void visit(Symbol&) override {}
  void visit(TargetSymbol& n) override;
  void visit(CastExpr& n) override;
  void visit(AtVar& n) override;
  void visit(Autocast& n) override;
  void visit(EmbeddedExpr&) override {}
  void visit(AtOp& n) override;
  void visit(StatExpr& n) override;
  void visit(HistExpr& n) override;
  void visit(UnaryExpr& n) override;
  void visit(BinaryExpr& n) override;
  void visit(TernaryExpr& n) override;
  void visit(AssignExpr& n) override;
  void visit(ArrayIndex& n) override;
  void visit(InExpr& n) override;
  void visit(CallExpr& n) override;
  void visit(Block& n) override;
  void visit(ExprStmt& n) override;
  void visit(NullStmt&) override {}
  void visit(IfStmt& n) override;
  void visit(ForStmt& n) override;
  void visit(ForeachStmt& n) override;
  void visit(ReturnStmt& n) override;
  void visit(DeleteStmt& n) override;
  void visit(JumpStmt&) override {}
  void visit(TryStmt& n) override;

 protected:
  // Null-safe helpers.
  void walk(Expr* e) { if (e) e->accept(*this); }
  void walk(Stmt* s) { if (s) s->accept(*this); }
  void walk_components(std::vector<TargetComponent>& cs);
};

// Visits every child through a reference to the pointer that holds it, so
// a pass can replace a node in place (fold a condition, drop an
// assignment): override slot(Expr*&) / slot(Stmt*&) and call the base to
// keep descending.
struct RewritingVisitor : TraversingVisitor {
  virtual void slot(Expr*& e) { if (e) e->accept(*this); }
  virtual void slot(Stmt*& s) { if (s) s->accept(*this); }

  using TraversingVisitor::visit;
  void visit(TargetSymbol& n) override { slot_components(n.components); }
  void visit(CastExpr& n) override { slot(n.operand); slot_components(n.components); }
  void visit(AtVar& n) override { slot_components(n.components); }
  void visit(Autocast& n) override { slot(n.operand); slot_components(n.components); }
  void visit(AtOp& n) override { for (Expr*& e : n.operands) slot(e); }
  void visit(StatExpr& n) override { slot(n.operand); slot(n.shift); }
  void visit(HistExpr& n) override { slot(n.operand); slot(n.low); slot(n.high); slot(n.step); }
  void visit(UnaryExpr& n) override { slot(n.operand); }
  void visit(BinaryExpr& n) override { slot(n.left); slot(n.right); }
  void visit(TernaryExpr& n) override { slot(n.cond); slot(n.then_expr); slot(n.else_expr); }
  void visit(AssignExpr& n) override { slot(n.target); slot(n.value); }
  void visit(ArrayIndex& n) override { for (Expr*& e : n.indexes) slot(e); }
  void visit(InExpr& n) override { if (n.index) visit(*n.index); }
  void visit(CallExpr& n) override { for (Expr*& e : n.args) slot(e); }
  void visit(Block& n) override { for (Stmt*& s : n.statements) slot(s); }
  void visit(ExprStmt& n) override { slot(n.expr); }
  void visit(IfStmt& n) override { slot(n.cond); slot(n.then_stmt); slot(n.else_stmt); }
  void visit(ForStmt& n) override { slot(n.init); slot(n.cond); slot(n.incr); slot(n.body); }
  void visit(ForeachStmt& n) override {
    for (Expr*& e : n.slice) slot(e);
    slot(n.limit);
    slot(n.body);
  }
  void visit(ReturnStmt& n) override { slot(n.value); }
  void visit(DeleteStmt& n) override { slot(n.target); }

 private:
  void slot_components(std::vector<TargetComponent>& cs) {
    for (TargetComponent& c : cs) slot(c.index_expr);
  }
};

}  // namespace stap::ast
