#include "elaborate/checks.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ast/visitor.h"
#include "debuginfo/binary_path.h"
#include "debuginfo/process_points.h"
#include "elaborate/body_context.h"
#include "elaborate/providers/provider.h"
#include "elaborate/typecheck.h"
#include "parse/token.h"

namespace stap {

using namespace ast;

namespace {

std::string ident(const std::string& name) { return "identifier '" + name + "'"; }

bool is_incdec(UnaryOp op) {
  return op == UnaryOp::pre_inc || op == UnaryOp::pre_dec || op == UnaryOp::post_inc ||
         op == UnaryOp::post_dec;
}

// The array an element write lands in: `a` of a[k] = v, a[k]++, a[k] <<< v
// and delete a[k].
const Symbol* written_array(const Expr* target) {
  auto* idx = dynamic_cast<const ArrayIndex*>(target);
  return idx ? dynamic_cast<const Symbol*>(idx->base) : nullptr;
}

// The statistic a histogram is drawn from: s of @hist_log(s), @hist_log(s[k]).
const VarDecl* histogram_of(const HistExpr& h) {
  const Expr* e = h.operand;
  if (auto* idx = dynamic_cast<const ArrayIndex*>(e)) e = idx->base;
  auto* sym = dynamic_cast<const Symbol*>(e);
  return sym ? sym->decl : nullptr;
}

std::string loc_key(SourceLoc loc) {
  return std::to_string(loc.file) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.column) + ":" + std::to_string(loc.expansion);
}

int64_t literal(const Expr* e) {
  auto* n = dynamic_cast<const NumberLit*>(e);
  return n ? n->value : 0;
}

bool same_shape(const HistExpr& a, const HistExpr& b) {
  if (a.linear != b.linear) return false;
  return !a.linear || (literal(a.low) == literal(b.low) && literal(a.high) == literal(b.high) &&
                       literal(a.step) == literal(b.step));
}

// The arrays a function changes element by element, itself or through
// the functions it calls.
class ArrayWrites : public TraversingVisitor {
 public:
  const std::unordered_set<const VarDecl*>& of(const FunctionDecl* fn) {
    auto it = memo_.find(fn);
    if (it != memo_.end()) return it->second;
    memo_.try_emplace(fn);  // empty while in progress: recursion ends there
    std::unordered_set<const VarDecl*>* saved = out_;
    std::unordered_set<const VarDecl*> found;
    out_ = &found;
    if (fn->body) fn->body->accept(*this);
    out_ = saved;
    memo_[fn] = std::move(found);
    return memo_[fn];
  }

  using TraversingVisitor::visit;
  void visit(AssignExpr& n) override {
    note(n.target);
    TraversingVisitor::visit(n);
  }
  void visit(UnaryExpr& n) override {
    if (is_incdec(n.op)) note(n.operand);
    TraversingVisitor::visit(n);
  }
  void visit(DeleteStmt& n) override {
    note(n.target);
    TraversingVisitor::visit(n);
  }
  void visit(CallExpr& n) override {
    if (n.decl) {
      const std::unordered_set<const VarDecl*>& callee = of(n.decl);
      out_->insert(callee.begin(), callee.end());
    }
    TraversingVisitor::visit(n);
  }

 private:
  void note(const Expr* target) {
    if (const Symbol* a = written_array(target); a && a->decl) out_->insert(a->decl);
  }
  std::unordered_map<const FunctionDecl*, std::unordered_set<const VarDecl*>> memo_;
  std::unordered_set<const VarDecl*>* out_ = nullptr;
};

class Checker : public TraversingVisitor {
 public:
  Checker(const Program& program, bool guru, Diagnostics& diags)
      : program_(program), guru_(guru), diags_(diags) {}
  void run();

  using TraversingVisitor::visit;
  void visit(AssignExpr& n) override;
  void visit(UnaryExpr& n) override;
  void visit(DeleteStmt& n) override;
  void visit(JumpStmt& n) override;
  void visit(ForStmt& n) override;
  void visit(ForeachStmt& n) override;
  void visit(CallExpr& n) override;
  void visit(AtOp& n) override;
  void visit(HistExpr& n) override;
  void visit(TargetSymbol& n) override;
  void visit(CastExpr& n) override;
  void visit(Autocast& n) override;
  void check_guru_write(const Expr& n, const std::string& message);

 private:
  void check_globals();
  void check_body(Node* code, const BodyContext& context, std::string name);
  bool check_lvalue(const Expr* target, SourceLoc op_loc, const std::string& op);
  void check_write(const Expr* target, const std::string& op);
  void check_histogram(const HistExpr& n);
  std::optional<bool> provider_rules(const TargetSymbol& n, const TargetUse& use);

  const Program& program_;
  bool guru_;
  Diagnostics& diags_;
  // The body being walked: what it offers and how stap names it.
  const BodyContext* context_ = nullptr;
  std::string body_name_;
  bool entry_reported_ = false;
  std::unordered_set<std::string> entry_places_;  // copies of one @entry are said once
  int loops_ = 0;
  std::vector<const VarDecl*> iterating_;  // arrays of the enclosing foreach loops
  ArrayWrites function_writes_;
  std::unordered_map<const VarDecl*, const HistExpr*> histograms_;
  // The target variable the assignment or ++/-- being walked writes.
  const Expr* written_target_ = nullptr;
  std::string written_op_;
};

void Checker::run() {
  check_globals();
  std::unordered_map<const ProbeDecl*, BodyContext> contexts = body_contexts(program_);
  std::unordered_set<const ProbeDecl*> bodies;
  for (const DerivedProbe& dp : program_.probes) {
    if (!dp.decl) continue;
    const BodyContext& ctx = contexts[dp.decl];
    std::string name = "probe " + ctx.probe_name;
    if (dp.point && dp.point->condition) check_body(dp.point->condition, ctx, name);
    if (dp.decl->body && bodies.insert(dp.decl).second) check_body(dp.decl->body, ctx, name);
  }
  BodyContext none = function_context();
  for (const FunctionDecl* fn : program_.functions)
    if (fn->body) check_body(fn->body, none, "function " + fn->name);
}

void Checker::check_globals() {
  for (const VarDecl* g : program_.globals)
    if (g->wrap && !g->is_array)
      diags_.semantic_error(g->loc, "wrapping not supported for scalars", ident(g->name));
}

void Checker::check_body(Node* code, const BodyContext& context, std::string name) {
  context_ = &context;
  body_name_ = std::move(name);
  entry_reported_ = false;
  loops_ = 0;
  iterating_.clear();
  if (auto* e = dynamic_cast<Expr*>(code)) e->accept(*this);
  else if (auto* s = dynamic_cast<Stmt*>(code)) s->accept(*this);
}

// What can be assigned: a variable, an array element, a target variable.
bool Checker::check_lvalue(const Expr* target, SourceLoc op_loc, const std::string& op) {
  bool ok = dynamic_cast<const Symbol*>(target) || written_array(target) ||
            dynamic_cast<const TargetSymbol*>(target) || dynamic_cast<const CastExpr*>(target) ||
            dynamic_cast<const AtVar*>(target) || dynamic_cast<const Autocast*>(target);
  if (ok || !target) return true;
  Diagnostic d;
  d.category = "semantic error";
  d.message = "Expecting lvalue for assignment";
  d.token = "operator '" + op + "'";
  d.loc = op_loc;
  d.chain.push_back({describe_expr(*target), target->loc});
  diags_.report(std::move(d));
  return false;
}

void Checker::check_write(const Expr* target, const std::string& op) {
  if (const Symbol* a = written_array(target);
      a && std::find(iterating_.begin(), iterating_.end(), a->decl) != iterating_.end()) {
    diags_.semantic_error(a->loc,
                          "variable '" + a->name + "' modified during 'foreach' iteration",
                          ident(a->name));
  }
  // A written target variable is checked when visited (visit(TargetSymbol&)).
  written_target_ = target;
  written_op_ = op;
}

void Checker::visit(AssignExpr& n) {
  if (check_lvalue(n.target, n.loc, n.op)) check_write(n.target, n.op);
  TraversingVisitor::visit(n);
}

void Checker::visit(UnaryExpr& n) {
  if (is_incdec(n.op) && check_lvalue(n.operand, n.loc, unary_op_text(n.op)))
    check_write(n.operand, unary_op_text(n.op));
  TraversingVisitor::visit(n);
}

// A target variable where the probe has none is reported as such with the
// types; writing one that exists needs guru mode, unless its family has
// rules of its own.
void Checker::visit(TargetSymbol& n) {
  TargetUse use;
  use.guru = guru_;
  if (written_target_ == &n) {
    use.written = true;
    use.op = written_op_;
    written_target_ = nullptr;
  }
  if (!provider_rules(n, use) && use.written && !guru_ && context_->target_vars)
    diags_.semantic_error(n.loc, "write to target variable not permitted; need stap -g",
                          describe_expr(n));
  TraversingVisitor::visit(n);
}

// @cast and autocast writes need guru mode, with stap's wording for each.
void Checker::check_guru_write(const Expr& n, const std::string& message) {
  if (written_target_ != &n) return;
  written_target_ = nullptr;
  if (!guru_) diags_.semantic_error(n.loc, message, describe_expr(n));
}

void Checker::visit(CastExpr& n) {
  check_guru_write(n, "write to @cast context variable not permitted; need stap -g");
  TraversingVisitor::visit(n);
}

void Checker::visit(Autocast& n) {
  check_guru_write(n, "write not permitted; need stap -g");
  TraversingVisitor::visit(n);
}

std::optional<bool> Checker::provider_rules(const TargetSymbol& n, const TargetUse& use) {
  if (!context_->target_vars) return std::nullopt;
  for (const DerivedProbe* dp : context_->probes)
    if (dp->provider && dp->point)
      if (std::optional<bool> own = dp->provider->check_target_use(*dp->point, n, use, diags_))
        return own;
  return std::nullopt;
}

void Checker::visit(DeleteStmt& n) {
  // `delete a` empties the whole array, which stap allows mid-foreach.
  check_write(n.target, "delete");
  TraversingVisitor::visit(n);
}

void Checker::visit(JumpStmt& n) {
  if (n.kind == JumpStmt::Kind::next || loops_ > 0) return;
  std::string word = n.kind == JumpStmt::Kind::break_ ? "break" : "continue";
  diags_.semantic_error(n.loc, "cannot '" + word + "' outside loop", "keyword");
}

void Checker::visit(ForStmt& n) {
  walk(n.init);
  walk(n.cond);
  walk(n.incr);
  ++loops_;
  walk(n.body);
  --loops_;
}

void Checker::visit(ForeachStmt& n) {
  walk(n.base);
  for (Expr* e : n.slice) walk(e);
  walk(n.limit);
  auto* array = dynamic_cast<const Symbol*>(n.base);
  if (array) iterating_.push_back(array->decl);
  ++loops_;
  walk(n.body);
  --loops_;
  if (array) iterating_.pop_back();
}

void Checker::visit(CallExpr& n) {
  if (n.decl && !iterating_.empty()) {
    const std::unordered_set<const VarDecl*>& writes = function_writes_.of(n.decl);
    for (const VarDecl* a : iterating_) {
      if (!writes.contains(a)) continue;
      diags_.semantic_error(n.loc,
                            "function call modifies var '" + a->name +
                                "' during 'foreach' iteration",
                            ident(n.name));
      break;
    }
  }
  TraversingVisitor::visit(n);
}

void Checker::visit(AtOp& n) {
  if (n.op == "entry" && !context_->entry_values && !entry_reported_ &&
      entry_places_.insert(loc_key(n.loc)).second) {
    // stap stops at the first in each probe or function, and says it
    // once for the probes sharing its text ("probe begin, end").
    entry_reported_ = true;
    diags_.semantic_error(SourceLoc{}, "while processing " + body_name_);
    diags_.semantic_error(n.loc, "internal error: @entry is only valid in .return probes",
                          "operator '@entry'");
  }
  TraversingVisitor::visit(n);
}

void Checker::visit(HistExpr& n) {
  check_histogram(n);
  TraversingVisitor::visit(n);
}

// One statistic keeps one histogram shape (its buckets are allocated for
// it), and a linear one needs a positive step.
void Checker::check_histogram(const HistExpr& n) {
  if (n.linear && n.step && literal(n.step) <= 0)
    diags_.semantic_error(n.step->loc, "@hist_linear step must be greater than 0",
                          describe_expr(*n.step));
  const VarDecl* stat = histogram_of(n);
  if (!stat) return;
  auto [first, inserted] = histograms_.try_emplace(stat, &n);
  if (inserted || same_shape(*first->second, n)) return;
  diags_.semantic_error(n.loc, "multiple histogram types declared on '__global_" + stat->name + "'",
                        describe_expr(n));
}

}  // namespace

bool check_conditions(const Program& program, Diagnostics& diags) {
  struct ConditionChecker : TraversingVisitor {
    Diagnostics& diags;
    bool writes = false, embedded = false;
    explicit ConditionChecker(Diagnostics& d) : diags(d) {}
    void visit(AssignExpr& n) override {
      writes = true;
      TraversingVisitor::visit(n);
    }
    void visit(UnaryExpr& n) override {
      if (is_incdec(n.op)) writes = true;
      TraversingVisitor::visit(n);
    }
    void visit(EmbeddedExpr& n) override {
      if (n.code.find("/* pure */") == std::string::npos) embedded = true;
    }
    void visit(Symbol& n) override {
      if (n.decl && n.decl->scope != VarDecl::Scope::global)
        diags.semantic_error(n.loc, "probe condition must not reference undeclared global",
                             ident(n.name));
    }
    void visit(CallExpr& n) override {
      diags.semantic_error(n.loc, "probe condition must not reference function", ident(n.name));
      TraversingVisitor::visit(n);
    }
  } checker(diags);
  size_t errors = diags.error_count();
  std::unordered_set<const ProbePoint*> seen;
  for (const DerivedProbe& dp : program.probes) {
    if (!dp.point || !dp.point->condition || !seen.insert(dp.point).second) continue;
    Expr* cond = dp.point->condition;
    checker.writes = checker.embedded = false;
    cond->accept(checker);
    if (checker.writes)
      diags.semantic_error(cond->loc, "probe condition must not modify any variables",
                           describe_expr(*cond));
    else if (checker.embedded)
      diags.semantic_error(cond->loc, "probe condition must not include impure embedded-C",
                           describe_expr(*cond));
  }
  return diags.error_count() == errors;
}

bool check_guru_calls(const Program& program, Diagnostics& diags) {
  if (program.guru) return true;
  struct CallChecker : TraversingVisitor {
    Diagnostics& diags;
    std::unordered_set<FileId> tapsets;
    explicit CallChecker(Diagnostics& d) : diags(d) {}
    void visit(CallExpr& n) override {
      if (n.decl && n.decl->guru_only && !tapsets.contains(n.loc.file))
        diags.semantic_error(n.loc, "function may not be used unless -g is specified",
                             ident(n.name));
      TraversingVisitor::visit(n);
    }
  } checker(diags);
  for (const auto& f : program.files)
    if (f->is_tapset) checker.tapsets.insert(f->id);
  size_t errors = diags.error_count();
  std::unordered_set<const ProbeDecl*> seen;
  for (const DerivedProbe& dp : program.probes)
    if (dp.decl && dp.decl->body && seen.insert(dp.decl).second) dp.decl->body->accept(checker);
  for (const FunctionDecl* fn : program.functions)
    if (fn->body && !checker.tapsets.contains(fn->loc.file)) fn->body->accept(checker);
  return diags.error_count() == errors;
}

namespace {

// The program a perf .process("P") or a process("P") point names, as a
// canonical path; "" for none or one that cannot be found (reported
// elsewhere).
std::string point_program(const DerivedProbe& dp) {
  if (dp.user_point) return dp.user_point->process;
  for (const ProbePointComponent& c : dp.point->components)
    if (auto* s = dynamic_cast<const StringLit*>(c.arg); s && c.functor == "process") {
      std::string why;
      return debuginfo::find_executable(s->value, why);
    }
  return {};
}

}  // namespace

bool check_perf_counters(const Program& program, Diagnostics& diags) {
  struct Counter {
    std::string program;  // "" for any
  };
  std::unordered_map<std::string, Counter> counters;
  size_t errors = diags.error_count();
  std::unordered_set<const ProbePoint*> points;
  for (const DerivedProbe& dp : program.probes) {
    if (!dp.point || dp.point->components.empty() || dp.point->components[0].functor != "perf" ||
        !points.insert(dp.point).second)
      continue;
    for (const ProbePointComponent& c : dp.point->components) {
      auto* name = dynamic_cast<const StringLit*>(c.arg);
      if (c.functor != "counter" || !name) continue;
      if (!counters.emplace(name->value, Counter{point_program(dp)}).second)
        diags.semantic_error(name->loc, "duplicate counter name",
                             "string '" + escape_string(name->value) + "'");
    }
  }
  struct Reads : TraversingVisitor {
    std::vector<const AtOp*> found;
    void visit(AtOp& n) override {
      if (n.op == "perf") found.push_back(&n);
      TraversingVisitor::visit(n);
    }
  };
  std::unordered_set<const ProbeDecl*> bodies;
  for (const DerivedProbe& dp : program.probes) {
    if (!dp.decl || !dp.decl->body || !dp.point) continue;
    Reads reads;
    dp.decl->body->accept(reads);
    if (reads.found.empty()) continue;
    std::string here = point_program(dp);
    for (const AtOp* op : reads.found) {
      auto* name = dynamic_cast<const StringLit*>(op->operands.empty() ? nullptr : op->operands[0]);
      if (!name) continue;
      auto it = counters.find(name->value);
      if (it == counters.end() || (!it->second.program.empty() && it->second.program != here))
        diags.semantic_error(op->loc, "perf counter '" + name->value + "' not defined",
                             "operator '@perf'");
    }
  }
  return diags.error_count() == errors;
}

bool check_program(const Program& program, bool guru, Diagnostics& diags) {
  size_t errors = diags.error_count();
  Checker(program, guru, diags).run();
  return diags.error_count() == errors;
}

}  // namespace stap
