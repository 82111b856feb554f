#include "base/edit_distance.h"
#include "elaborate/resolve.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ast/visitor.h"
#include "elaborate/body_context.h"
#include "elaborate/providers/provider.h"
#include "elaborate/builtins.h"
#include "elaborate/fold_targets.h"

namespace stap {

using namespace ast;

namespace {

// -1: used in a way that fits any arity (`delete a`).
constexpr int kAnyArity = -1;

std::string ident(const std::string& name) { return "identifier '" + name + "'"; }

// The declarations visible by name, rebuilt as tapset files join.
struct DeclIndex {
  std::map<std::string, VarDecl*> globals;
  std::map<std::pair<FileId, std::string>, VarDecl*> private_globals;
  std::map<std::string, std::vector<FunctionDecl*>> functions;
  std::map<std::pair<FileId, std::string>, std::vector<FunctionDecl*>> private_functions;
  size_t files_seen = 0;

  void update(const Program& program) {
    for (; files_seen < program.files.size(); ++files_seen) {
      const File& f = *program.files[files_seen];
      for (VarDecl* g : f.globals) {
        if (g->is_private) private_globals.emplace(std::make_pair(f.id, g->name), g);
        else globals.emplace(g->name, g);  // the first declaration wins
      }
      for (FunctionDecl* fn : f.functions) {
        if (fn->is_private) private_functions[{f.id, fn->name}].push_back(fn);
        else functions[fn->name].push_back(fn);
      }
    }
  }
};

class Resolver : public TraversingVisitor {
 public:
  Resolver(Program& program, TapsetLibrary& library, Arena& arena, Diagnostics& diags,
           bool refresh)
      : program_(program), library_(library), arena_(arena), diags_(diags), refresh_(refresh) {}

  void run();

  using TraversingVisitor::visit;
  void visit(Symbol& n) override { use_symbol(n, 0, Use::read); }
  void visit(ArrayIndex& n) override;
  void visit(AssignExpr& n) override;
  void visit(UnaryExpr& n) override;
  void visit(StatExpr& n) override;
  void visit(HistExpr& n) override;
  void visit(InExpr& n) override;
  void visit(CallExpr& n) override;
  void visit(ForeachStmt& n) override;
  void visit(DeleteStmt& n) override;
  void visit(TryStmt& n) override;
  void visit(ExprStmt& n) override;
  void visit(ForStmt& n) override;
  void visit(TernaryExpr& n) override;

 private:
  // update: x++, x += 1.  stats_write: x <<< v; stats_read: @count(x).
  // update: x++ or x += e whose value is dropped; update_read: one whose
  // value is used (if (++x == 1)), which stap counts as a read too.
  enum class Use { read, write, update, update_read, stats_write, stats_read };
  struct Scope {
    std::vector<VarDecl*>* locals = nullptr;
    FunctionDecl* function = nullptr;
  };
  struct ArityInfo {
    int arity = kAnyArity;
    SourceLoc loc;
    bool scalar_use_reported = false;
  };

  void fold_probe_targets();
  void resolve_function(FunctionDecl& fn);
  VarDecl* lookup(const std::string& name, SourceLoc at);
  VarDecl* find_global(const std::string& name, SourceLoc at);
  void use_symbol(Symbol& sym, int arity, Use use);
  void use_base(Expr* base, int arity, Use use);
  void check_arity(VarDecl& decl, int arity, const Symbol& sym);
  static void mark_use(VarDecl& decl, Use use);
  Use update_use(const Expr& n) const;
  void note_global(VarDecl* g);
  void resolve_call(CallExpr& call);
  std::vector<FunctionDecl*> candidates(const std::string& name, SourceLoc at);
  void report_unresolved(const CallExpr& call);
  void finish();
  void reset_uses();
  void keep_used(std::vector<VarDecl*>& locals) const;

  Program& program_;
  TapsetLibrary& library_;
  Arena& arena_;
  Diagnostics& diags_;
  // Refreshing: every name is bound already; only uses are recounted.
  bool refresh_ = false;
  std::unordered_set<const VarDecl*> used_;
  std::unordered_set<const Expr*> dropped_;  // expressions whose value is unused
  DeclIndex index_;
  Scope scope_;
  std::unordered_map<VarDecl*, ArityInfo> arity_;
  std::unordered_set<std::string> asked_library_;
  std::vector<VarDecl*> globals_;
  std::unordered_set<VarDecl*> globals_seen_;
  std::vector<FunctionDecl*> functions_;
  std::unordered_set<FunctionDecl*> functions_seen_;
  std::deque<FunctionDecl*> pending_;
  std::vector<const Builtin*> builtins_;
};

void Resolver::run() {
  index_.update(program_);
  if (refresh_) reset_uses();
  else fold_probe_targets();
  std::unordered_set<ProbeDecl*> bodies_done;
  std::unordered_set<ProbePoint*> conditions_done;
  // Several derived probes may share one body ("probe begin, end { }").
  for (DerivedProbe& dp : program_.probes) {
    if (!dp.decl) continue;
    scope_ = {&dp.decl->locals, nullptr};
    if (dp.point && dp.point->condition && conditions_done.insert(dp.point).second)
      walk(dp.point->condition);
    if (bodies_done.insert(dp.decl).second && dp.decl->body) dp.decl->body->accept(*this);
  }
  while (!pending_.empty()) {
    FunctionDecl* fn = pending_.front();
    pending_.pop_front();
    resolve_function(*fn);
  }
  scope_ = {};
  finish();
}

// Questions about target variables are answered before names are bound,
// so a branch they rule out binds and pulls in nothing (fold_targets.h).
// Not in probe-point conditions, where stap answers nothing.
void Resolver::fold_probe_targets() {
  std::unordered_map<const ProbeDecl*, BodyContext> contexts = body_contexts(program_);
  std::unordered_set<const ProbeDecl*> done;
  for (DerivedProbe& dp : program_.probes) {
    if (!dp.decl || !dp.decl->body || !done.insert(dp.decl).second) continue;
    const BodyContext& context = contexts[dp.decl];
    if (!context.target_vars) {
      fold_absent_targets(*dp.decl->body, arena_);
      continue;
    }
    // Known by name only when every probe of the body says the same.
    std::optional<std::vector<std::string>> known;
    for (const DerivedProbe* p : context.probes) {
      std::optional<std::vector<std::string>> vars;
      if (p->provider && p->point) vars = p->provider->known_target_vars(*p->point);
      if (!vars || (known && *known != *vars)) {
        known.reset();
        break;
      }
      known = std::move(vars);
    }
    if (known) fold_known_targets(*dp.decl->body, arena_, *known);
  }
}

void Resolver::resolve_function(FunctionDecl& fn) {
  // A function has no target variables of its own.
  if (!refresh_ && fn.body) fold_absent_targets(*fn.body, arena_);
  if (fn.param_decls.empty()) {
    for (const FunctionParam& p : fn.params) {
      VarDecl* v = arena_.make<VarDecl>();
      v->scope = VarDecl::Scope::param;
      v->name = p.name;
      v->loc = p.loc;
      v->type = p.type;
      v->type_declared = p.type_declared;
      v->written = true;  // the caller assigns it
      fn.param_decls.push_back(v);
    }
  }
  scope_ = {&fn.locals, &fn};
  if (fn.body) fn.body->accept(*this);
}

// Params, then locals, then globals; null when the name is new.
VarDecl* Resolver::lookup(const std::string& name, SourceLoc at) {
  if (scope_.function)
    for (VarDecl* p : scope_.function->param_decls)
      if (p->name == name) return p;
  if (scope_.locals)
    for (VarDecl* l : *scope_.locals)
      if (l->name == name) return l;
  return find_global(name, at);
}

VarDecl* Resolver::find_global(const std::string& name, SourceLoc at) {
  auto priv = index_.private_globals.find({at.file, name});
  if (priv != index_.private_globals.end()) return priv->second;
  auto pub = index_.globals.find(name);
  if (pub != index_.globals.end()) return pub->second;
  if (VarDecl* g = library_.need_global(name, program_, at)) {
    index_.update(program_);
    return g;
  }
  return nullptr;
}

void Resolver::note_global(VarDecl* g) {
  if (g->scope == VarDecl::Scope::global && globals_seen_.insert(g).second) {
    globals_.push_back(g);
    if (g->init) g->written = true;
  }
}

void Resolver::use_symbol(Symbol& sym, int arity, Use use) {
  VarDecl* decl = sym.decl;
  if (refresh_) {
    if (!decl) return;
    used_.insert(decl);
    note_global(decl);
    mark_use(*decl, use);
    return;
  }
  if (!decl) decl = lookup(sym.name, sym.loc);
  if (!decl) {
    if (!scope_.locals) return;  // no scope: nothing to bind to
    if (arity > 0) {
      diags_.semantic_error(sym.loc,
                            "unresolved arity-" + std::to_string(arity) + " global array " +
                                sym.name + ", missing global declaration?",
                            ident(sym.name));
      return;
    }
    decl = arena_.make<VarDecl>();
    decl->scope = VarDecl::Scope::local;
    decl->name = sym.name;
    decl->loc = sym.loc;
    scope_.locals->push_back(decl);
  }
  sym.decl = decl;
  note_global(decl);
  check_arity(*decl, arity, sym);
  mark_use(*decl, use);
}

// x++ and x += 1 read a local (its assignments must stay) but not a
// global (stap still shows such a global at exit as written-only), unless
// the statement uses the new value.
void Resolver::mark_use(VarDecl& decl, Use use) {
  bool global = decl.scope == VarDecl::Scope::global;
  if (use == Use::read || use == Use::stats_read || use == Use::update_read ||
      (use == Use::update && !global))
    decl.read = true;
  if (use != Use::read && use != Use::stats_read) decl.written = true;
}

void Resolver::check_arity(VarDecl& decl, int arity, const Symbol& sym) {
  if (arity == kAnyArity) return;
  if (arity == 0 && decl.max_entries > 0) {
    // "global a[10]" is an array: stap's words, at the declaration.
    if (!arity_[&decl].scalar_use_reported) {
      arity_[&decl].scalar_use_reported = true;
      diags_.semantic_error(decl.loc, "inconsistent arity", ident(decl.name));
    }
    return;
  }
  ArityInfo& info = arity_[&decl];
  if (info.arity == kAnyArity) {
    info.arity = arity;
    info.loc = sym.loc;
    return;
  }
  if (info.arity == arity) return;
  diags_.semantic_error(sym.loc,
                        "inconsistent arity (" + std::to_string(info.arity) + " vs " +
                            std::to_string(arity) + ")",
                        ident(sym.name));
  diags_.semantic_error(info.loc,
                        "arity " + std::to_string(info.arity) + " first inferred here",
                        ident(sym.name));
}

// The base of an indexing, a foreach, an `in` or a statistic operator.
void Resolver::use_base(Expr* base, int arity, Use use) {
  if (auto* sym = dynamic_cast<Symbol*>(base)) use_symbol(*sym, arity, use);
  else walk(base);
}

void Resolver::visit(ArrayIndex& n) {
  // Indexes before the array: stap's order, which orders -p2's globals.
  for (Expr* e : n.indexes) walk(e);
  use_base(n.base, static_cast<int>(n.indexes.size()), Use::read);
}

void Resolver::visit(AssignExpr& n) {
  // The target before the value: stap's order, which orders -p2's globals.
  Use use = n.op == "=" ? Use::write : n.op == "<<<" ? Use::stats_write : update_use(n);
  if (auto* sym = dynamic_cast<Symbol*>(n.target)) {
    use_symbol(*sym, 0, use);
  } else if (auto* idx = dynamic_cast<ArrayIndex*>(n.target)) {
    for (Expr* e : idx->indexes) walk(e);
    use_base(idx->base, static_cast<int>(idx->indexes.size()), use);
  } else {
    walk(n.target);
  }
  walk(n.value);
}

// Expressions whose value is dropped: a statement's, a for loop's
// initialiser and increment, and the branches of such a ternary.
void Resolver::visit(ExprStmt& n) {
  dropped_.insert(n.expr);
  walk(n.expr);
}

void Resolver::visit(ForStmt& n) {
  dropped_.insert(n.init);
  dropped_.insert(n.incr);
  TraversingVisitor::visit(n);
}

void Resolver::visit(TernaryExpr& n) {
  if (dropped_.contains(&n)) {
    dropped_.insert(n.then_expr);
    dropped_.insert(n.else_expr);
  }
  TraversingVisitor::visit(n);
}

Resolver::Use Resolver::update_use(const Expr& n) const {
  return dropped_.contains(&n) ? Use::update : Use::update_read;
}

void Resolver::visit(UnaryExpr& n) {
  bool incdec = n.op == UnaryOp::pre_inc || n.op == UnaryOp::pre_dec ||
                n.op == UnaryOp::post_inc || n.op == UnaryOp::post_dec;
  if (!incdec) return walk(n.operand);
  if (auto* sym = dynamic_cast<Symbol*>(n.operand)) {
    use_symbol(*sym, 0, update_use(n));
  } else if (auto* idx = dynamic_cast<ArrayIndex*>(n.operand)) {
    for (Expr* e : idx->indexes) walk(e);
    use_base(idx->base, static_cast<int>(idx->indexes.size()), update_use(n));
  } else {
    walk(n.operand);
  }
}

void Resolver::visit(StatExpr& n) {
  if (auto* idx = dynamic_cast<ArrayIndex*>(n.operand)) {
    for (Expr* e : idx->indexes) walk(e);
    use_base(idx->base, static_cast<int>(idx->indexes.size()), Use::stats_read);
  } else {
    use_base(n.operand, 0, Use::stats_read);
  }
  walk(n.shift);
}

void Resolver::visit(HistExpr& n) {
  if (auto* idx = dynamic_cast<ArrayIndex*>(n.operand)) {
    for (Expr* e : idx->indexes) walk(e);
    use_base(idx->base, static_cast<int>(idx->indexes.size()), Use::stats_read);
  } else {
    use_base(n.operand, 0, Use::stats_read);
  }
  walk(n.low);
  walk(n.high);
  walk(n.step);
}

void Resolver::visit(InExpr& n) {
  if (!n.index) return;
  for (Expr* e : n.index->indexes) walk(e);
  use_base(n.index->base, static_cast<int>(n.index->indexes.size()), Use::read);
}

void Resolver::visit(ForeachStmt& n) {
  use_base(n.base, static_cast<int>(n.keys.size()), Use::read);
  // A slice (a[k, *]) names every index of the array: its arity too.
  if (auto* base = dynamic_cast<Symbol*>(n.base); base && base->decl && !n.slice.empty())
    check_arity(*base->decl, static_cast<int>(n.slice.size()), *base);
  for (Expr* e : n.slice) walk(e);
  // Keys before the value: stap's order, which orders -p2's locals.
  for (Symbol* k : n.keys) use_symbol(*k, 0, Use::write);
  if (n.value) use_symbol(*n.value, 0, Use::write);
  walk(n.limit);
  walk(n.body);
}

void Resolver::visit(DeleteStmt& n) {
  if (auto* sym = dynamic_cast<Symbol*>(n.target)) {
    // `delete x` fits a scalar and a whole array alike, but only one that
    // exists: it declares nothing.
    if (!refresh_ && !sym->decl && scope_.locals && !lookup(sym->name, sym->loc)) {
      diags_.semantic_error(sym->loc, "unresolved array in delete statement", ident(sym->name));
      return;
    }
    use_symbol(*sym, kAnyArity, Use::write);
  } else if (auto* idx = dynamic_cast<ArrayIndex*>(n.target)) {
    for (Expr* e : idx->indexes) walk(e);
    use_base(idx->base, static_cast<int>(idx->indexes.size()), Use::write);
  } else {
    walk(n.target);
  }
}

void Resolver::visit(TryStmt& n) {
  if (n.try_block) n.try_block->accept(*this);
  if (n.catch_var) use_symbol(*n.catch_var, 0, Use::write);
  if (n.catch_block) n.catch_block->accept(*this);
}

void Resolver::visit(CallExpr& n) {
  resolve_call(n);
  for (Expr* e : n.args) walk(e);
}

// Script and tapset functions of that name visible from `file`; asks the
// library once per name.
std::vector<FunctionDecl*> Resolver::candidates(const std::string& name, SourceLoc at) {
  if (asked_library_.insert(name).second) {
    library_.need_function(name, program_, at);
    index_.update(program_);
  }
  std::vector<FunctionDecl*> out;
  auto priv = index_.private_functions.find({at.file, name});
  if (priv != index_.private_functions.end()) out = priv->second;
  auto pub = index_.functions.find(name);
  if (pub != index_.functions.end()) out.insert(out.end(), pub->second.begin(), pub->second.end());
  return out;
}

void Resolver::resolve_call(CallExpr& call) {
  size_t arity = call.args.size();
  const Builtin* builtin = find_builtin(call.name, arity);
  if (refresh_) {
    if (call.decl) {
      if (functions_seen_.insert(call.decl).second) pending_.push_back(call.decl);
    } else if (builtin && std::find(builtins_.begin(), builtins_.end(), builtin) == builtins_.end()) {
      builtins_.push_back(builtin);
    }
    return;
  }
  FunctionDecl* chosen = nullptr;
  std::vector<FunctionDecl*> fns;
  // The print family is the language's own: a function cannot replace it.
  if (!builtin || builtin->listed) {
    fns = candidates(call.name, call.loc);
    for (FunctionDecl* fn : fns) {
      if (fn->params.size() == arity) {
        chosen = fn;  // the first one: user files come before tapsets
        break;
      }
    }
  }
  if (chosen) {
    call.decl = chosen;
    // The builtin stays in the overload set, as a tapset function of the
    // same name and arity stays in stap's (reachable through `next`).
    if (builtin && builtin->listed &&
        std::find(builtins_.begin(), builtins_.end(), builtin) == builtins_.end())
      builtins_.push_back(builtin);
    if (functions_seen_.insert(chosen).second) {
      functions_.push_back(chosen);
      pending_.push_back(chosen);
    }
    return;
  }
  if (builtin) {
    call.decl = nullptr;
    if (std::find(builtins_.begin(), builtins_.end(), builtin) == builtins_.end())
      builtins_.push_back(builtin);
    return;
  }
  if (!fns.empty()) {
    Diagnostic d;
    d.category = "semantic error";
    d.message = "arity mismatch found (function '" + call.name + "' takes " +
                std::to_string(fns.front()->params.size()) + " args)";
    d.token = ident(call.name);
    d.loc = call.loc;
    d.chain.push_back({ident(call.name), fns.front()->loc});
    diags_.report(std::move(d));
    return;
  }
  for (const Builtin& b : all_builtins()) {
    if (call.name != b.name) continue;
    diags_.semantic_error(call.loc,
                          "arity mismatch found (function '" + call.name + "' takes " +
                              std::to_string(b.params.size()) + " args)",
                          ident(call.name));
    return;
  }
  report_unresolved(call);
}

void Resolver::report_unresolved(const CallExpr& call) {
  std::vector<std::string> names;
  for (const auto& [name, fns] : index_.functions) names.push_back(name);
  for (const Builtin& b : all_builtins())
    if (b.listed) names.push_back(b.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string similar = similar_names(call.name, names);
  std::string msg = "unresolved function " + call.name;
  if (!similar.empty()) msg += " (similar: " + similar + ")";
  diags_.semantic_error(call.loc, msg, ident(call.name));
}

// Refreshing starts from nothing read or written but what declarations say.
void Resolver::reset_uses() {
  auto reset = [](VarDecl* v) {
    v->read = false;
    v->written = v->scope == VarDecl::Scope::param || v->init != nullptr;
  };
  for (VarDecl* g : program_.globals) reset(g);
  for (DerivedProbe& dp : program_.probes)
    if (dp.decl)
      for (VarDecl* l : dp.decl->locals) reset(l);
  for (FunctionDecl* fn : program_.functions) {
    for (VarDecl* l : fn->locals) reset(l);
    for (VarDecl* p : fn->param_decls) reset(p);
  }
}

void Resolver::keep_used(std::vector<VarDecl*>& locals) const {
  std::erase_if(locals, [&](VarDecl* v) { return !used_.contains(v); });
}

void Resolver::finish() {
  if (refresh_) {
    // Keep the first resolution's order: it is stap's -p2 order.
    std::erase_if(program_.globals, [&](VarDecl* g) { return !globals_seen_.contains(g); });
    std::erase_if(program_.functions,
                  [&](FunctionDecl* f) { return !functions_seen_.contains(f); });
    program_.builtins = builtins_;
    for (DerivedProbe& dp : program_.probes)
      if (dp.decl) keep_used(dp.decl->locals);
    for (FunctionDecl* fn : program_.functions) keep_used(fn->locals);
    return;
  }
  for (auto& [decl, info] : arity_) {
    if (info.arity > 0) {
      decl->is_array = true;
      decl->index_types.resize(static_cast<size_t>(info.arity), Type::unknown);
    }
  }
  program_.globals = globals_;
  program_.functions = functions_;
  program_.builtins = builtins_;
}


}  // namespace

std::string similar_names(const std::string& name, const std::vector<std::string>& candidates) {
  struct Scored {
    size_t distance;
    std::string name;
  };
  std::vector<Scored> scored;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d <= 3) scored.push_back({d, c});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.distance != b.distance) return a.distance < b.distance;
    if (a.name.size() != b.name.size()) return a.name.size() < b.name.size();
    return a.name < b.name;
  });
  std::string out;
  for (size_t i = 0; i < scored.size() && i < 5; ++i) {
    if (i) out += ", ";
    out += scored[i].name;
  }
  return out;
}

bool resolve_program(Program& program, TapsetLibrary& library, Arena& arena, Diagnostics& diags) {
  size_t errors = diags.error_count();
  Resolver(program, library, arena, diags, false).run();
  return diags.error_count() == errors;
}

void refresh_uses(Program& program, Arena& arena, TapsetLibrary& library, Diagnostics& diags) {
  Resolver(program, library, arena, diags, true).run();
}

}  // namespace stap
