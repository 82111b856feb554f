// Statements -> IR, per ir/ir.h: for/while become block{init; loop},
// foreach keeps its sort/limit/slice details in `ints` and kids.
//
// Locations for MAXACTION: stap checks its action budget at the end of a
// loop body, naming the body's first token (translate.cxx record_actions
// with s->block->tok), and at if/return/next/break/continue, naming the
// keyword.  So a loop or foreach node is located at its body's token and
// those statements at their keyword; the runtime reports "MAXACTION
// exceeded near operator '{' at t.stp:3:22" as stap does.
#include <algorithm>

#include "ast/visitor.h"
#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

// The expression written first in `e` (stap names an expression statement
// by its first token: `i++` by identifier 'i').  A parenthesis is not in
// the tree, so `(a) + b` gives 'a'.
const ast::Expr& first_token(const ast::Expr& e) {
  if (auto* b = dynamic_cast<const ast::BinaryExpr*>(&e); b && b->left) return first_token(*b->left);
  if (auto* a = dynamic_cast<const ast::AssignExpr*>(&e); a && a->target) return first_token(*a->target);
  if (auto* t = dynamic_cast<const ast::TernaryExpr*>(&e); t && t->cond) return first_token(*t->cond);
  if (auto* i = dynamic_cast<const ast::ArrayIndex*>(&e); i && i->base) return first_token(*i->base);
  if (auto* u = dynamic_cast<const ast::UnaryExpr*>(&e);
      u && u->operand && (u->op == ast::UnaryOp::post_inc || u->op == ast::UnaryOp::post_dec))
    return first_token(*u->operand);
  return e;
}

class StmtLowerer : public ast::Visitor {
 public:
  explicit StmtLowerer(Lowerer& l) : l_(l) {}
  ir::Node* result = nullptr;

  void visit(ast::Block& n) override {
    result = l_.make(ir::Op::block);
    for (ast::Stmt* s : n.statements) result->kids.push_back(l_.stmt(s));
  }
  void visit(ast::ExprStmt& n) override;
  void visit(ast::NullStmt&) override { result = l_.nop(); }
  void visit(ast::IfStmt& n) override;
  void visit(ast::ForStmt& n) override;
  void visit(ast::ForeachStmt& n) override;
  void visit(ast::ReturnStmt& n) override {
    result = l_.make(ir::Op::ret);
    result->loc = keyword_location(n);
    if (n.value) {
      result->kids.push_back(l_.expr(n.value));
      l_.note_return(*n.value);
    }
  }
  void visit(ast::DeleteStmt& n) override { result = l_.delete_stmt(n); }
  void visit(ast::JumpStmt& n) override {
    switch (n.kind) {
      case ast::JumpStmt::Kind::next: result = l_.make(ir::Op::next); break;
      case ast::JumpStmt::Kind::break_: result = l_.make(ir::Op::brk); break;
      case ast::JumpStmt::Kind::continue_: result = l_.make(ir::Op::cont); break;
    }
    result->loc = keyword_location(n);
  }
  void visit(ast::TryStmt& n) override;

  // Expressions never reach a statement visitor.
  void visit(ast::NumberLit&) override {}
  void visit(ast::StringLit&) override {}
  void visit(ast::Symbol&) override {}
  void visit(ast::TargetSymbol&) override {}
  void visit(ast::CastExpr&) override {}
  void visit(ast::AtVar&) override {}
  void visit(ast::Autocast&) override {}
  void visit(ast::EmbeddedExpr&) override {}
  void visit(ast::AtOp&) override {}
  void visit(ast::StatExpr&) override {}
  void visit(ast::HistExpr&) override {}
  void visit(ast::UnaryExpr&) override {}
  void visit(ast::BinaryExpr&) override {}
  void visit(ast::TernaryExpr&) override {}
  void visit(ast::AssignExpr&) override {}
  void visit(ast::ArrayIndex&) override {}
  void visit(ast::InExpr&) override {}
  void visit(ast::CallExpr&) override {}

 private:
  uint32_t keyword_location(const ast::Stmt& s) { return l_.location(s.loc, "keyword"); }
  // The token stap names for a loop body: its '{', or the statement's own.
  // A body the optimiser emptied may have lost its place: the loop's
  // keyword stands in.
  uint32_t body_location(const ast::Stmt& loop, const ast::Stmt* body) {
    if (!body || !body->loc.valid()) return keyword_location(loop);
    if (dynamic_cast<const ast::Block*>(body)) return l_.location(body->loc, "operator '{'");
    if (auto* e = dynamic_cast<const ast::ExprStmt*>(body))
      return e->expr ? l_.location(first_token(*e->expr)) : keyword_location(loop);
    if (dynamic_cast<const ast::NullStmt*>(body)) return l_.location(body->loc, "operator ';'");
    return keyword_location(*body);
  }
  ir::Node* as_statement(ir::Node* value) {
    if (value->op == ir::Op::block) return value;
    ir::Node* st = l_.make(ir::Op::expr);
    st->kids = {value};
    return st;
  }
  ir::Node* optional_stmt(ast::Stmt* s) { return s ? l_.stmt(s) : l_.nop(); }

  Lowerer& l_;
};

void StmtLowerer::visit(ast::ExprStmt& n) {
  // A statement-level assignment may store side-effecting keys in
  // temporaries first (lower_assign.cpp), which needs a block around it.
  if (auto* a = dynamic_cast<ast::AssignExpr*>(n.expr)) {
    result = as_statement(l_.assign(*a, true));
    return;
  }
  ir::Node* value = l_.expr(n.expr);
  // stat_add, print_hist, delete ... are already statements of a kind; the
  // IR takes them under `expr` like any value.
  result = as_statement(value);
}

void StmtLowerer::visit(ast::IfStmt& n) {
  // if (@defined($x)) in a tracepoint probe: only the branch it selects is
  // lowered, so the other may name fields this event lacks.
  if (std::optional<bool> known = l_.target_defined(n.cond)) {
    result = optional_stmt(*known ? n.then_stmt : n.else_stmt);
    return;
  }
  result = l_.make(ir::Op::if_);
  result->loc = keyword_location(n);
  result->kids = {l_.expr(n.cond), l_.stmt(n.then_stmt), optional_stmt(n.else_stmt)};
}

void StmtLowerer::visit(ast::ForStmt& n) {
  ir::Node* loop = l_.make(ir::Op::loop);
  loop->loc = body_location(n, n.body);
  ir::Node* incr = l_.nop();
  if (n.incr) incr = as_statement(l_.expr(n.incr));
  loop->kids = {n.cond ? l_.expr(n.cond) : l_.nop(), l_.stmt(n.body), incr};
  if (!n.init) {
    result = loop;
    return;
  }
  result = l_.make(ir::Op::block);
  result->kids.push_back(as_statement(l_.expr(n.init)));
  result->kids.push_back(loop);
}

void StmtLowerer::visit(ast::ForeachStmt& n) {
  l_.check_foreach_context(n);
  result = l_.make(ir::Op::foreach);
  result->loc = body_location(n, n.body);
  int64_t hist = 0;
  ast::Expr* array = n.base;
  if (auto* h = dynamic_cast<ast::HistExpr*>(n.base)) {
    // foreach (i in @hist_log(s[k])): the loop runs over the buckets of one
    // statistic; the element's keys, if any, take the place of a slice.
    hist = h->linear ? 2 : 1;
    array = h->operand;
  }
  ir::Node* slice_keys = l_.make(ir::Op::block);
  if (hist) {
    result->a = l_.stats_operand(array, slice_keys);
  } else {
    auto* sym = dynamic_cast<ast::Symbol*>(array);
    result->a = sym ? l_.global_index(sym->decl) : -1;
    if (result->a < 0) l_.error(n.loc, "foreach needs a global array", "keyword");
    l_.keys(slice_keys, n.slice);
    // The first loop's variables name the columns for --metrics and --pprof;
    // not a macro's (@prometheus_dump_array* loops over _v1 ...) nor the
    // global display's (__idx0 ...: "__" names are the implementation's).
    if (result->a >= 0 && n.loc.expansion == 0) {
      ir::Global& g = l_.module().globals.at(size_t(result->a));
      bool script_names = n.keys.size() == g.keys.size() &&
                          std::none_of(n.keys.begin(), n.keys.end(), [](const ast::Symbol* k) {
                            return k->name.rfind("__", 0) == 0;
                          });
      if (g.key_names.empty() && script_names)
        for (ast::Symbol* k : n.keys) g.key_names.push_back(k->name);
    }
  }
  ast::StatOp agg = n.sort_aggregate_given ? n.sort_aggregate : ast::StatOp::count;
  result->ints = {n.value ? l_.slot(n.value->decl) : -1, n.sort_column, n.sort_direction,
                  static_cast<int64_t>(agg), hist};
  for (ast::Symbol* k : n.keys) result->ints.push_back(l_.slot(k->decl));
  result->kids = {l_.stmt(n.body), n.limit ? l_.expr(n.limit) : l_.nop()};
  for (ir::Node* k : slice_keys->kids) result->kids.push_back(k);
}

void StmtLowerer::visit(ast::TryStmt& n) {
  result = l_.make(ir::Op::try_);
  result->a = n.catch_var && n.catch_var->decl ? l_.slot(n.catch_var->decl) : -1;
  ir::Node* try_block = n.try_block ? l_.stmt(n.try_block) : l_.make(ir::Op::block);
  ir::Node* catch_block = n.catch_block ? l_.stmt(n.catch_block) : l_.make(ir::Op::block);
  result->kids = {try_block, catch_block};
}

}  // namespace

ir::Node* Lowerer::stmt(ast::Stmt* s) {
  if (!s) return nop();
  StmtLowerer lowerer(*this);
  s->accept(lowerer);
  return lowerer.result ? lowerer.result : nop();
}

}  // namespace stap::lower
