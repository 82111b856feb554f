#include "elaborate/fold_targets.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "ast/visitor.h"

namespace stap {

using namespace ast;

namespace {

// Whether an expression reads a target variable anywhere inside it.
bool mentions_target(Expr* e) {
  struct Finder : TraversingVisitor {
    bool found = false;
    using TraversingVisitor::visit;
    void visit(TargetSymbol&) override { found = true; }
  } finder;
  if (e) e->accept(finder);
  return finder.found;
}

// Rewrites expression and statement slots bottom-up: children first, then
// the node itself when an answer decides it.
class Folder : public RewritingVisitor {
 public:
  // known: the body's target variables when they are known by name; null
  // when the body has none.
  Folder(Arena& arena, const std::vector<std::string>* known) : arena_(arena), known_(known) {}

  void slot(Expr*& e) override {
    if (!e) return;
    RewritingVisitor::slot(e);
    if (auto* op = dynamic_cast<AtOp*>(e)) e = fold_at(*op);
    else if (auto* u = dynamic_cast<UnaryExpr*>(e)) e = fold_not(*u);
    else if (auto* b = dynamic_cast<BinaryExpr*>(e)) e = fold_logic(*b);
    else if (auto* t = dynamic_cast<TernaryExpr*>(e); t && is_answer(t->cond))
      e = value(t->cond) ? t->then_expr : t->else_expr;
  }
  void slot(Stmt*& s) override {
    if (!s) return;
    RewritingVisitor::slot(s);
    auto* i = dynamic_cast<IfStmt*>(s);
    if (!i || !is_answer(i->cond)) return;
    Stmt* taken = value(i->cond) ? i->then_stmt : i->else_stmt;
    if (!taken) {
      taken = arena_.make<NullStmt>();
      taken->loc = i->loc;
    }
    s = taken;
  }

 private:
  bool is_answer(const Expr* e) const { return answers_.contains(e); }
  static int64_t value(const Expr* e) { return static_cast<const NumberLit*>(e)->value; }
  Expr* answer(int64_t v, SourceLoc loc) {
    auto* lit = arena_.make<NumberLit>();
    lit->value = v;
    lit->text = std::to_string(v);
    lit->loc = loc;
    answers_.insert(lit);
    return lit;
  }
  // Whether target expression e exists: no when the body has none, by
  // name for a plain $x where the names are known, else unknown.
  std::optional<bool> exists(Expr* e) const {
    // An unfolded @choose_defined(a, b) exists where the operand it
    // chooses does; an operand naming no target always exists.
    if (auto* op = dynamic_cast<AtOp*>(e); op && op->op == "choose_defined" && op->operands.size() == 2) {
      auto operand = [&](Expr* x) { return mentions_target(x) ? exists(x) : std::optional<bool>(true); };
      std::optional<bool> first = operand(op->operands[0]);
      if (!first || *first) return first;
      return operand(op->operands[1]);
    }
    if (!mentions_target(e)) return std::nullopt;
    if (!known_) return false;
    auto* t = dynamic_cast<TargetSymbol*>(e);
    if (!t || !t->components.empty() || t->pretty || t->address_of) return std::nullopt;
    return std::find(known_->begin(), known_->end(), t->name) != known_->end();
  }
  Expr* fold_at(AtOp& op) {
    if (op.op == "defined" && op.operands.size() == 1)
      if (std::optional<bool> e = exists(op.operands[0])) return answer(*e, op.loc);
    if (op.op == "choose_defined" && op.operands.size() == 2)
      if (std::optional<bool> e = exists(op.operands[0]))
        return *e ? op.operands[0] : op.operands[1];
    return &op;
  }
  Expr* fold_not(UnaryExpr& u) {
    if (u.op != UnaryOp::logical_not || !is_answer(u.operand)) return &u;
    return answer(value(u.operand) == 0, u.loc);
  }
  Expr* fold_logic(BinaryExpr& b) {
    bool is_and = b.op == "&&";
    if ((!is_and && b.op != "||") || !is_answer(b.left)) return &b;
    bool left = value(b.left) != 0;
    // 0 && e is 0 and 1 || e is 1 without e; otherwise e decides, and
    // only an answer is known here.
    if (left != is_and) return answer(left, b.loc);
    if (!is_answer(b.right)) return &b;
    return answer(value(b.right) != 0, b.loc);
  }

  Arena& arena_;
  const std::vector<std::string>* known_;
  std::unordered_set<const Expr*> answers_;
};

}  // namespace

void fold_absent_targets(Block& body, Arena& arena) {
  Folder folder(arena, nullptr);
  body.accept(folder);
}

void fold_known_targets(Block& body, Arena& arena, const std::vector<std::string>& known) {
  Folder folder(arena, &known);
  body.accept(folder);
}

}  // namespace stap
