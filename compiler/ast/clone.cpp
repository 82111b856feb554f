#include "ast/clone.h"

#include "ast/visitor.h"

namespace stap::ast {

namespace {

// One visit per node type: copy the node's fields (the implicit copy keeps
// every scalar and string), then replace each child pointer by its clone.
class Cloner : public Visitor {
 public:
  Cloner(Arena& arena, const LocMap& map_loc) : arena_(arena), map_loc_(map_loc) {}

  Expr* expr(const Expr* e) {
    if (!e) return nullptr;
    return static_cast<Expr*>(run(const_cast<Expr*>(e)));
  }
  Stmt* stmt(const Stmt* s) {
    if (!s) return nullptr;
    return static_cast<Stmt*>(run(const_cast<Stmt*>(s)));
  }
  Block* block(const Block* b) { return static_cast<Block*>(stmt(b)); }
  Symbol* symbol(const Symbol* s) { return static_cast<Symbol*>(expr(s)); }
  SourceLoc loc(SourceLoc l) const { return map_loc_ ? map_loc_(l) : l; }

  ProbePoint* point(const ProbePoint* p) {
    if (!p) return nullptr;
    ProbePoint* copy = arena_.make<ProbePoint>(*p);
    copy->loc = loc(p->loc);
    for (ProbePointComponent& c : copy->components) {
      c.arg = expr(c.arg);
      c.loc = loc(c.loc);
    }
    copy->condition = expr(p->condition);
    return copy;
  }

  void visit(NumberLit& n) override { copy(n); }
  void visit(StringLit& n) override { copy(n); }
  void visit(Symbol& n) override { copy(n); }
  void visit(TargetSymbol& n) override { components(copy(n)->components); }
  void visit(CastExpr& n) override {
    CastExpr* c = copy(n);
    c->operand = expr(n.operand);
    components(c->components);
  }
  void visit(AtVar& n) override { components(copy(n)->components); }
  void visit(Autocast& n) override {
    Autocast* c = copy(n);
    c->operand = expr(n.operand);
    components(c->components);
  }
  void visit(EmbeddedExpr& n) override { copy(n); }
  void visit(AtOp& n) override { exprs(copy(n)->operands); }
  void visit(StatExpr& n) override {
    StatExpr* c = copy(n);
    c->operand = expr(n.operand);
    c->shift = expr(n.shift);
  }
  void visit(HistExpr& n) override {
    HistExpr* c = copy(n);
    c->operand = expr(n.operand);
    c->low = expr(n.low);
    c->high = expr(n.high);
    c->step = expr(n.step);
  }
  void visit(UnaryExpr& n) override { copy(n)->operand = expr(n.operand); }
  void visit(BinaryExpr& n) override {
    BinaryExpr* c = copy(n);
    c->left = expr(n.left);
    c->right = expr(n.right);
  }
  void visit(TernaryExpr& n) override {
    TernaryExpr* c = copy(n);
    c->cond = expr(n.cond);
    c->then_expr = expr(n.then_expr);
    c->else_expr = expr(n.else_expr);
  }
  void visit(AssignExpr& n) override {
    AssignExpr* c = copy(n);
    c->target = expr(n.target);
    c->value = expr(n.value);
  }
  void visit(ArrayIndex& n) override {
    ArrayIndex* c = copy(n);
    c->base = expr(n.base);
    exprs(c->indexes);
  }
  void visit(InExpr& n) override { copy(n)->index = static_cast<ArrayIndex*>(expr(n.index)); }
  void visit(CallExpr& n) override { exprs(copy(n)->args); }
  void visit(Block& n) override {
    Block* c = copy(n);
    for (Stmt*& s : c->statements) s = stmt(s);
  }
  void visit(ExprStmt& n) override { copy(n)->expr = expr(n.expr); }
  void visit(NullStmt& n) override { copy(n); }
  void visit(IfStmt& n) override {
    IfStmt* c = copy(n);
    c->cond = expr(n.cond);
    c->then_stmt = stmt(n.then_stmt);
    c->else_stmt = stmt(n.else_stmt);
  }
  void visit(ForStmt& n) override {
    ForStmt* c = copy(n);
    c->init = expr(n.init);
    c->cond = expr(n.cond);
    c->incr = expr(n.incr);
    c->body = stmt(n.body);
  }
  void visit(ForeachStmt& n) override {
    ForeachStmt* c = copy(n);
    c->value = symbol(n.value);
    for (Symbol*& k : c->keys) k = symbol(k);
    c->base = expr(n.base);
    exprs(c->slice);  // null entries ('*') stay null
    c->limit = expr(n.limit);
    c->body = stmt(n.body);
  }
  void visit(ReturnStmt& n) override { copy(n)->value = expr(n.value); }
  void visit(DeleteStmt& n) override { copy(n)->target = expr(n.target); }
  void visit(JumpStmt& n) override { copy(n); }
  void visit(TryStmt& n) override {
    TryStmt* c = copy(n);
    c->try_block = block(n.try_block);
    c->catch_var = symbol(n.catch_var);
    c->catch_block = block(n.catch_block);
  }

 private:
  // Each visit starts with copy(), which leaves the new node in result_;
  // cloning a child saves and restores the parent's, so after a visit
  // result_ is the copy of the node visited.  (accept() is not const; the
  // visits only read the original.)
  template <typename N>
  Node* run(N* original) {
    Node* outer = result_;
    result_ = nullptr;
    original->accept(*this);
    Node* mine = result_;
    result_ = outer;
    return mine;
  }

  template <typename T>
  T* copy(const T& n) {
    T* c = arena_.make<T>(n);
    c->loc = loc(n.loc);
    result_ = c;
    return c;
  }
  void exprs(std::vector<Expr*>& list) {
    for (Expr*& e : list) e = expr(e);
  }
  void components(std::vector<TargetComponent>& cs) {
    for (TargetComponent& c : cs) {
      c.index_expr = expr(c.index_expr);
      c.loc = loc(c.loc);
    }
  }

  Arena& arena_;
  const LocMap& map_loc_;
  Node* result_ = nullptr;
};

}  // namespace

Expr* clone(const Expr* e, Arena& arena, const LocMap& map_loc) {
  return Cloner(arena, map_loc).expr(e);
}
Stmt* clone(const Stmt* s, Arena& arena, const LocMap& map_loc) {
  return Cloner(arena, map_loc).stmt(s);
}
Block* clone(const Block* b, Arena& arena, const LocMap& map_loc) {
  return Cloner(arena, map_loc).block(b);
}
ProbePoint* clone(const ProbePoint* p, Arena& arena, const LocMap& map_loc) {
  return Cloner(arena, map_loc).point(p);
}

}  // namespace stap::ast
