// Visitors over the AST.  Visitor dispatches one call per node type;
// TraversingVisitor walks every child by default, so a pass overrides only
// the nodes it cares about and calls the base to keep descending.
#pragma once

#include "ast/ast.h"

namespace stap::ast {

#define STAP_NODE_TYPES(X)                                                  \
  X(NumberLit) X(StringLit) X(Symbol) X(TargetSymbol) X(CastExpr) X(AtVar) \
  X(AtOp) X(StatExpr) X(HistExpr) X(UnaryExpr) X(BinaryExpr) X(TernaryExpr) \
  X(AssignExpr) X(ArrayIndex) X(InExpr) X(CallExpr) X(Block) X(ExprStmt)    \
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

}  // namespace stap::ast
