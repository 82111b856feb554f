#include "elaborate/elide.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ast/visitor.h"
#include "elaborate/builtins.h"
#include "elaborate/resolve.h"
#include "elaborate/typecheck.h"

namespace stap {

using namespace ast;

namespace {

bool is_local(const VarDecl* d) { return d && d->scope != VarDecl::Scope::global; }

bool is_empty(const Stmt* s) {
  if (!s || dynamic_cast<const NullStmt*>(s)) return true;
  auto* b = dynamic_cast<const Block*>(s);
  return b && b->statements.empty();
}

// ---------------------------------------------------------------- purity

// Side effects of expressions and statements.  Inside a function, writes
// to its own locals do not count: they cannot be seen from outside.
class Purity : public TraversingVisitor {
 public:
  bool pure(const Expr* e, bool locals_ok) { return check([&] { walk(const_cast<Expr*>(e)); }, locals_ok); }
  bool pure(const Stmt* s, bool locals_ok) { return check([&] { walk(const_cast<Stmt*>(s)); }, locals_ok); }

  using TraversingVisitor::visit;
  void visit(AssignExpr& n) override {
    if (!locals_ok_ || !writes_local(n.target)) impure_ = true;
    TraversingVisitor::visit(n);
  }
  void visit(UnaryExpr& n) override {
    bool incdec = n.op == UnaryOp::pre_inc || n.op == UnaryOp::pre_dec ||
                  n.op == UnaryOp::post_inc || n.op == UnaryOp::post_dec;
    if (incdec && (!locals_ok_ || !writes_local(n.operand))) impure_ = true;
    TraversingVisitor::visit(n);
  }
  void visit(CallExpr& n) override {
    if (!call_pure(n)) impure_ = true;
    TraversingVisitor::visit(n);
  }
  // Embedded C is pure only where it says so, as in stap.
  void visit(EmbeddedExpr& n) override {
    if (!says_pure(n.code)) impure_ = true;
  }
  void visit(DeleteStmt&) override { impure_ = true; }
  void visit(JumpStmt& n) override {
    if (n.kind == JumpStmt::Kind::next) impure_ = true;
  }

 private:
  template <typename F>
  bool check(F run, bool locals_ok) {
    bool saved_impure = impure_, saved_locals = locals_ok_;
    impure_ = false;
    locals_ok_ = locals_ok;
    run();
    bool result = !impure_;
    impure_ = saved_impure;
    locals_ok_ = saved_locals;
    return result;
  }
  static bool says_pure(const std::string& code) {
    return code.find("/* pure */") != std::string::npos;
  }
  static bool writes_local(const Expr* target) {
    auto* s = dynamic_cast<const Symbol*>(target);
    return s && is_local(s->decl);
  }
  bool call_pure(const CallExpr& n) {
    if (!n.decl) {
      const Builtin* b = find_builtin(n.name, n.args.size());
      return b && b->pure;
    }
    if (n.decl->embedded_c) return says_pure(n.decl->embedded_code);
    auto it = functions_.find(n.decl);
    if (it != functions_.end()) return it->second;
    functions_[n.decl] = false;  // recursion: assume the worst meanwhile
    bool result = pure(n.decl->body, true);
    functions_[n.decl] = result;
    return result;
  }

  bool impure_ = false;
  bool locals_ok_ = false;
  std::unordered_map<const FunctionDecl*, bool> functions_;
};

// ---------------------------------------------------------------- where a statement starts

struct StmtStart {
  SourceLoc loc;
  std::string token;
};

// The first token of an expression, which stap names when it drops an
// expression statement.
const Expr* leftmost(const Expr* e) {
  while (e) {
    if (auto* b = dynamic_cast<const BinaryExpr*>(e)) e = b->left;
    else if (auto* a = dynamic_cast<const AssignExpr*>(e)) e = a->target;
    else if (auto* i = dynamic_cast<const ArrayIndex*>(e)) e = i->base;
    else if (auto* t = dynamic_cast<const TernaryExpr*>(e)) e = t->cond;
    else if (auto* u = dynamic_cast<const UnaryExpr*>(e);
             u && (u->op == UnaryOp::post_inc || u->op == UnaryOp::post_dec)) e = u->operand;
    else if (auto* in = dynamic_cast<const InExpr*>(e);
             in && in->index && !in->index->indexes.empty() && in->index->indexes[0])
      e = in->index->indexes[0];
    else return e;
  }
  return e;
}

StmtStart start_of(const ExprStmt& s) {
  const Expr* e = leftmost(s.expr);
  if (!e) return {s.loc, ""};
  return {e->loc, describe_expr(*e)};
}

// ---------------------------------------------------------------- the pass

class Elider {
 public:
  Elider(Program& program, TapsetLibrary& library, Arena& arena, Diagnostics& diags)
      : program_(program), library_(library), arena_(arena), diags_(diags) {}
  void run();

 private:
  void never_assigned_warnings();
  void warn_never_assigned(const VarDecl& v, const std::vector<VarDecl*>& scope, bool global);
  void sweep_assignments(Block* body);
  void sweep_statements(Block* body, bool in_function);
  bool reduce(Stmt*& s, bool in_function);
  void reduce_block(Block& b, bool in_function);
  void warn_empty_functions();
  void elide_empty_probes();
  void warn_unused_globals();
  template <typename F>
  void each_body(F f);

  Program& program_;
  TapsetLibrary& library_;
  Arena& arena_;
  Diagnostics& diags_;
  bool warn_ = true;
  int changes_ = 0;
  Purity purity_;
  std::unordered_map<const ExprStmt*, StmtStart> starts_;
  std::unordered_set<const FunctionDecl*> warned_empty_;
  // Statements elided inside tapsets are not the user's to fix: stap
  // warns only about its user's files.
  std::unordered_set<FileId> tapset_files_;
};

// Probe bodies first, then functions, as stap walks them.
template <typename F>
void Elider::each_body(F f) {
  for (DerivedProbe& dp : program_.probes)
    if (dp.decl && dp.decl->body) f(dp.decl->body, false);
  for (FunctionDecl* fn : program_.functions)
    if (fn->body) f(fn->body, true);
}

void Elider::run() {
  for (const auto& f : program_.files)
    if (f->is_tapset) tapset_files_.insert(f->id);
  never_assigned_warnings();
  for (int round = 0; round < 100; ++round) {
    warn_ = round == 0;
    changes_ = 0;
    purity_ = Purity();
    each_body([&](Block* b, bool) { sweep_assignments(b); });
    each_body([&](Block* b, bool in_function) { sweep_statements(b, in_function); });
    warn_empty_functions();
    elide_empty_probes();
    refresh_uses(program_, arena_, library_, diags_);
    if (changes_ == 0) break;
  }
  // With no probe left, "no probes found" is all stap says.
  if (!program_.probes.empty()) warn_unused_globals();
}

// ---------------------------------------------------------------- assignments

// Replaces "x = e" by e wherever x is a local or parameter that nothing
// reads.  Each expression slot is visited through a reference so it can
// be rewritten in place.
class AssignmentEliser : public RewritingVisitor {
 public:
  AssignmentEliser(Diagnostics& diags, bool warn, const std::unordered_set<FileId>& quiet_files,
                   int& changes)
      : diags_(diags), warn_(warn), quiet_files_(quiet_files), changes_(changes) {}

  using RewritingVisitor::slot;
  void slot(Expr*& e) override {
    while (auto* a = dynamic_cast<AssignExpr*>(e)) {
      auto* target = dynamic_cast<Symbol*>(a->target);
      if (a->op != "=" || !target || !is_local(target->decl) || target->decl->read) break;
      if (warn_ && !quiet_files_.contains(a->loc.file))
        diags_.warning(a->loc, "Eliding assignment to '" + target->name + "'", "operator '='");
      e = a->value;
      ++changes_;
    }
    RewritingVisitor::slot(e);
  }

 private:
  Diagnostics& diags_;
  bool warn_;
  const std::unordered_set<FileId>& quiet_files_;
  int& changes_;
};

void Elider::sweep_assignments(Block* body) {
  // Remember where each statement started before its assignment goes:
  // stap names that token when it then drops the statement.
  struct Starts : TraversingVisitor {
    std::unordered_map<const ExprStmt*, StmtStart>* out;
    using TraversingVisitor::visit;
    void visit(ExprStmt& n) override { out->try_emplace(&n, start_of(n)); }
  } starts;
  starts.out = &starts_;
  body->accept(starts);
  AssignmentEliser eliser(diags_, warn_, tapset_files_, changes_);
  body->accept(eliser);
}

// ---------------------------------------------------------------- statements

// Returns false when the statement does nothing and should go.
bool Elider::reduce(Stmt*& s, bool in_function) {
  if (!s || dynamic_cast<NullStmt*>(s)) return false;
  if (auto* b = dynamic_cast<Block*>(s)) {
    reduce_block(*b, in_function);
    return !b->statements.empty();
  }
  if (auto* e = dynamic_cast<ExprStmt*>(s)) {
    if (e->expr && !purity_.pure(e->expr, false)) return true;
    auto it = starts_.find(e);
    StmtStart start = it != starts_.end() ? it->second : start_of(*e);
    if (warn_ && !tapset_files_.contains(start.loc.file))
      diags_.warning(start.loc, "Eliding side-effect-free expression ", start.token);
    return false;
  }
  if (auto* i = dynamic_cast<IfStmt*>(s)) {
    bool then_kept = reduce(i->then_stmt, in_function);
    bool else_kept = reduce(i->else_stmt, in_function);
    if (!then_kept) i->then_stmt = arena_.make<Block>();
    if (!else_kept) i->else_stmt = nullptr;
    return then_kept || else_kept || !purity_.pure(i->cond, false);
  }
  if (auto* f = dynamic_cast<ForStmt*>(s)) {
    if (!reduce(f->body, in_function)) f->body = arena_.make<Block>();
    if (!is_empty(f->body)) return true;
    return !(purity_.pure(f->init, false) && purity_.pure(f->cond, false) &&
             purity_.pure(f->incr, false));
  }
  if (auto* f = dynamic_cast<ForeachStmt*>(s)) {
    if (!reduce(f->body, in_function)) f->body = arena_.make<Block>();
    return true;
  }
  if (auto* t = dynamic_cast<TryStmt*>(s)) {
    if (t->try_block) reduce_block(*t->try_block, in_function);
    if (t->catch_block) reduce_block(*t->catch_block, in_function);
    return true;
  }
  return true;
}

void Elider::reduce_block(Block& b, bool in_function) {
  size_t before = b.statements.size();
  std::vector<Stmt*> kept;
  for (Stmt* s : b.statements) {
    if (!reduce(s, in_function)) continue;
    // A block directly inside a block is spliced into it, as stap's
    // optimiser does (alias prologues and epilogues arrive as blocks).
    if (auto* inner = dynamic_cast<Block*>(s)) {
      kept.insert(kept.end(), inner->statements.begin(), inner->statements.end());
      ++changes_;
    } else {
      kept.push_back(s);
    }
  }
  b.statements = std::move(kept);
  if (b.statements.size() != before) ++changes_;
}

void Elider::sweep_statements(Block* body, bool in_function) {
  reduce_block(*body, in_function);
}

// ---------------------------------------------------------------- functions, probes

void Elider::warn_empty_functions() {
  for (FunctionDecl* fn : program_.functions) {
    if (!fn->body || !fn->body->statements.empty()) continue;
    if (warned_empty_.insert(fn).second)
      diags_.warning(fn->loc, "side-effect-free function '" + fn->name + "'",
                     "identifier '" + fn->name + "'");
  }
}

void Elider::elide_empty_probes() {
  std::vector<DerivedProbe> kept;
  for (DerivedProbe& dp : program_.probes) {
    if (dp.decl && dp.decl->body && dp.decl->body->statements.empty()) {
      std::string name = dp.point && !dp.point->components.empty()
                             ? dp.point->components[0].functor
                             : std::string();
      diags_.warning(dp.decl->loc, "Probe '" + name + "' has been elided", "keyword");
      ++changes_;
      continue;
    }
    kept.push_back(dp);
  }
  program_.probes = std::move(kept);
}

// A global of the user's files that nothing uses any more is dropped, as
// stap drops it, with its warning (an error under -W).
void Elider::warn_unused_globals() {
  std::unordered_set<const VarDecl*> kept(program_.globals.begin(), program_.globals.end());
  for (const auto& f : program_.files)
    if (!f->is_tapset)
      for (const VarDecl* g : f->globals)
        if (!kept.contains(g))
          diags_.warning(g->loc, "Eliding unused variable '" + g->name + "'",
                         "identifier '" + g->name + "'");
}

// ---------------------------------------------------------------- never assigned

void Elider::warn_never_assigned(const VarDecl& v, const std::vector<VarDecl*>& scope,
                                 bool global) {
  std::vector<std::string> names;
  for (const VarDecl* other : scope)
    if (global || other != &v) names.push_back(other->name);
  std::string similar = similar_names(v.name, names);
  std::string msg = std::string("never-assigned ") + (global ? "global" : "local") +
                    " variable '" + v.name + "'";
  if (!similar.empty()) msg += " (similar: " + similar + ")";
  diags_.warning(v.loc, msg, "identifier '" + v.name + "'");
}

void Elider::never_assigned_warnings() {
  std::unordered_set<const VarDecl*> user_globals;
  for (const auto& f : program_.files)
    if (!f->is_tapset) user_globals.insert(f->globals.begin(), f->globals.end());
  for (VarDecl* g : program_.globals)
    if (user_globals.contains(g) && g->read && !g->written)
      warn_never_assigned(*g, program_.globals, true);
  std::unordered_set<const ProbeDecl*> seen;
  for (DerivedProbe& dp : program_.probes) {
    if (!dp.decl || !seen.insert(dp.decl).second) continue;
    for (VarDecl* l : dp.decl->locals)
      if (l->read && !l->written) warn_never_assigned(*l, dp.decl->locals, false);
  }
  for (FunctionDecl* fn : program_.functions)
    for (VarDecl* l : fn->locals)
      if (l->read && !l->written) warn_never_assigned(*l, fn->locals, false);
}

}  // namespace

bool has_side_effects(const Expr& e) { return !Purity().pure(&e, false); }

void elide_unused(Program& program, TapsetLibrary& library, Arena& arena, Diagnostics& diags) {
  Elider(program, library, arena, diags).run();
  program.optimized = true;
}

}  // namespace stap
