#include "elaborate/typecheck.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ast/visitor.h"
#include "elaborate/body_context.h"
#include "elaborate/builtins.h"
#include "elaborate/providers/provider.h"
#include "parse/token.h"

namespace stap {

using namespace ast;

namespace {

constexpr Type kUnknown = Type::unknown;

std::string quoted(const std::string& kind, const std::string& text) {
  return kind + " '" + text + "'";
}

// Escapes as written in the script, for "string 'a\n'".
// Where a type was first inferred, for the second half of a conflict.
struct Origin {
  SourceLoc loc;
  std::string token;
};

class TypeChecker : public TraversingVisitor {
 public:
  TypeChecker(Program& program, Diagnostics& diags, bool report_unresolved)
      : program_(program), diags_(diags), report_unresolved_(report_unresolved) {}
  bool run();

  using TraversingVisitor::visit;
  // Expressions: each sets node.type; expected_ is what the context wants.
  void visit(NumberLit& n) override { n.type = Type::long_; }
  void visit(StringLit& n) override { n.type = Type::string; }
  void visit(Symbol& n) override;
  void visit(TargetSymbol& n) override;
  void visit(CastExpr& n) override;
  void visit(Autocast& n) override;
  void visit(EmbeddedExpr& n) override {
    n.type = n.code.find("/* string */") != std::string::npos ? Type::string : Type::long_;
  }
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
  // Statements.
  void visit(ExprStmt& n) override { check(n.expr, kUnknown); }
  void visit(IfStmt& n) override;
  void visit(ForStmt& n) override;
  void visit(ForeachStmt& n) override;
  void visit(ReturnStmt& n) override;
  void visit(DeleteStmt& n) override;
  void visit(TryStmt& n) override;

 private:
  void pass();
  void report_unresolved();
  Type check(Expr* e, Type expected);
  Type hint(const Expr* e) const;
  void check_pair(Expr* left, Expr* right, Type expected);
  void check_declared(Expr* arg, Type declared);
  void check_indexes(VarDecl* decl, const std::vector<Expr*>& indexes);
  void infer_decl(VarDecl* decl, Type t, const Expr& at);
  void infer_index(VarDecl* decl, size_t i, Type t, const Expr& at);
  void infer_return(FunctionDecl* fn, Type t, const Expr& at);
  void learned() { ++changes_; }
  void error(SourceLoc loc, std::string message, std::string token);
  void conflict(const std::string& what, Type now, const Expr& at, Type before,
                const Origin& origin);
  Origin declared_origin(const VarDecl& decl) const;

  Program& program_;
  Diagnostics& diags_;
  bool report_unresolved_ = true;
  Type expected_ = kUnknown;
  bool self_checked_ = false;  // the node reported its own mismatch
  FunctionDecl* function_ = nullptr;
  int changes_ = 0;
  size_t errors_ = 0;
  std::unordered_map<const VarDecl*, Origin> decl_origin_;
  std::map<std::pair<const VarDecl*, size_t>, Origin> index_origin_;
  std::unordered_map<const FunctionDecl*, Origin> return_origin_;
  std::unordered_map<const VarDecl*, size_t> param_index_;
  std::set<std::pair<std::string, std::string>> reported_;
  std::vector<const VarDecl*> stat_locals_;
  std::vector<const Expr*> printed_stats_;  // in the order met
  // What the body being checked offers; target variables used where it
  // offers none, with what they are told.
  std::unordered_map<const ProbeDecl*, BodyContext> contexts_;
  BodyContext function_context_ = function_context();
  const BodyContext* context_ = nullptr;
  std::unordered_map<const TargetSymbol*, std::string> orphan_targets_;
};

// ---------------------------------------------------------------- driver

bool TypeChecker::run() {
  contexts_ = body_contexts(program_);
  for (FunctionDecl* fn : program_.functions)
    for (size_t i = 0; i < fn->param_decls.size(); ++i) param_index_[fn->param_decls[i]] = i;
  // A pass that found a conflict ends the checking: later passes would
  // only blame the same conflict from the other side.
  do {
    changes_ = 0;
    pass();
  } while (changes_ > 0 && errors_ == 0);
  for (const VarDecl* v : stat_locals_)
    error(v->loc, "stat locals not supported, missing global declaration? ",
          quoted("identifier", v->name));
  // print(s) of a statistic: stap finds it when translating, so code it
  // elides is not blamed; here it waits for the final check too.
  if (errors_ == 0 && report_unresolved_)
    for (const Expr* e : printed_stats_)
      error(e->loc, "cannot print a raw stats object", describe_expr(*e));
  if (errors_ == 0 && report_unresolved_) report_unresolved();
  for (FunctionDecl* fn : program_.functions)
    for (size_t i = 0; i < fn->param_decls.size() && i < fn->params.size(); ++i)
      fn->params[i].type = fn->param_decls[i]->type;
  return errors_ == 0;
}

void TypeChecker::pass() {
  for (VarDecl* g : program_.globals)
    if (g->init) infer_decl(g, check(g->init, kUnknown), *g->init);
  std::unordered_set<const ProbeDecl*> bodies;
  std::unordered_set<const ProbePoint*> conditions;
  function_ = nullptr;
  for (DerivedProbe& dp : program_.probes) {
    if (!dp.decl) continue;
    context_ = &contexts_[dp.decl];
    if (dp.point && dp.point->condition && conditions.insert(dp.point).second)
      check(dp.point->condition, Type::long_);
    if (bodies.insert(dp.decl).second && dp.decl->body) dp.decl->body->accept(*this);
  }
  context_ = &function_context_;
  for (FunctionDecl* fn : program_.functions) {
    function_ = fn;
    if (fn->body) fn->body->accept(*this);
  }
  function_ = nullptr;
  context_ = nullptr;
}

std::string loc_key(SourceLoc loc) {
  return std::to_string(loc.file) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.column) + ":" + std::to_string(loc.expansion);
}

void TypeChecker::error(SourceLoc loc, std::string message, std::string token) {
  // Each error once, though passes repeat.
  if (!reported_.insert({loc_key(loc), message + token}).second) return;
  ++errors_;
  diags_.semantic_error(loc, std::move(message), std::move(token));
}

// "type mismatch (string): identifier 'x'" then where the other type came from.
void TypeChecker::conflict(const std::string& what, Type now, const Expr& at, Type before,
                           const Origin& origin) {
  std::string prefix = what.empty() ? "type" : "type of " + what;
  std::string head = what.empty() ? "type mismatch" : what + " type mismatch";
  error(at.loc, head + " (" + type_name(now) + ")", describe_expr(at));
  error(origin.loc, prefix + " was first inferred here (" + type_name(before) + ")",
        origin.token);
}

Origin TypeChecker::declared_origin(const VarDecl& decl) const {
  return {decl.loc, quoted("identifier", decl.name)};
}

// ---------------------------------------------------------------- inference

void TypeChecker::infer_decl(VarDecl* decl, Type t, const Expr& at) {
  if (!decl || t == kUnknown) return;
  if (decl->type == kUnknown) {
    // A statistic must be global; stap says so once the types are known,
    // at the variable's first appearance.
    if (t == Type::stats && decl->scope != VarDecl::Scope::global) stat_locals_.push_back(decl);
    decl->type = t;
    decl_origin_[decl] = {at.loc, describe_expr(at)};
    learned();
    return;
  }
  if (decl->type == t) return;
  auto it = decl_origin_.find(decl);
  Origin origin = it != decl_origin_.end() ? it->second : declared_origin(*decl);
  // stap words a parameter's conflict as one of the function's "index N".
  auto param = param_index_.find(decl);
  std::string what = param == param_index_.end() ? "" : "index " + std::to_string(param->second);
  conflict(what, t, at, decl->type, origin);
}

void TypeChecker::infer_index(VarDecl* decl, size_t i, Type t, const Expr& at) {
  if (!decl || t == kUnknown || i >= decl->index_types.size()) return;
  Type& slot = decl->index_types[i];
  if (slot == kUnknown) {
    slot = t;
    index_origin_[{decl, i}] = {at.loc, describe_expr(at)};
    learned();
    return;
  }
  if (slot == t) return;
  auto it = index_origin_.find({decl, i});
  Origin origin = it != index_origin_.end() ? it->second : declared_origin(*decl);
  conflict("index " + std::to_string(i), t, at, slot, origin);
}

void TypeChecker::infer_return(FunctionDecl* fn, Type t, const Expr& at) {
  if (t == kUnknown) return;
  if (fn->return_type == kUnknown) {
    fn->return_type = t;
    return_origin_[fn] = {at.loc, describe_expr(at)};
    learned();
    return;
  }
  if (fn->return_type == t) return;
  if (fn->return_type_declared) {
    // stap names the two types the other way round here; users grep it.
    error(at.loc,
          std::string("type mismatch: expected ") + type_name(t) + " but found " +
              type_name(fn->return_type),
          describe_expr(at));
    return;
  }
  auto it = return_origin_.find(fn);
  Origin origin = it != return_origin_.end() ? it->second : Origin{fn->loc, quoted("identifier", fn->name)};
  conflict("", t, at, fn->return_type, origin);
}

// A literal's type is known before it is visited, any other expression's
// only after: stap's rule for which operand lends its type to the other.
Type TypeChecker::hint(const Expr* e) const {
  if (dynamic_cast<const NumberLit*>(e)) return Type::long_;
  if (dynamic_cast<const StringLit*>(e)) return Type::string;
  return e ? e->type : kUnknown;
}

Type TypeChecker::check(Expr* e, Type expected) {
  if (!e) return kUnknown;
  Type saved = expected_;
  bool saved_self = self_checked_;
  expected_ = expected;
  self_checked_ = false;
  e->accept(*this);
  bool self = self_checked_;
  expected_ = saved;
  self_checked_ = saved_self;
  if (!self && expected != kUnknown && e->type != kUnknown && e->type != expected) {
    error(e->loc,
          std::string("type mismatch: expected ") + type_name(expected) + " but found " +
              type_name(e->type),
          describe_expr(*e));
  }
  return e->type;
}

// Operands that must agree: "=", comparisons, the branches of "?:".
// A literal on the right lends its type to the left and is blamed for
// nothing more; otherwise the left lends its type to the right.
void TypeChecker::check_pair(Expr* left, Expr* right, Type expected) {
  Type h = hint(right);
  Type l = check(left, h != kUnknown ? h : expected);
  check(right, h != kUnknown || l == kUnknown ? expected : l);
  if (left->type == kUnknown && right->type != kUnknown) check(left, right->type);
}

// An argument for a parameter of declared type.  stap names the two types
// the other way round in this message; users grep it, so it stays.
void TypeChecker::check_declared(Expr* arg, Type declared) {
  Type t = check(arg, kUnknown);
  if (t == kUnknown) {
    check(arg, declared);
  } else if (t != declared && declared != kUnknown) {
    error(arg->loc,
          std::string("type mismatch: expected ") + type_name(t) + " but found " +
              type_name(declared),
          describe_expr(*arg));
  }
}

// ---------------------------------------------------------------- variables

void TypeChecker::visit(Symbol& n) {
  self_checked_ = true;
  VarDecl* d = n.decl;
  if (!d) return;
  if (expected_ != kUnknown) infer_decl(d, expected_, n);
  n.type = d->type;
}

void TypeChecker::check_indexes(VarDecl* decl, const std::vector<Expr*>& indexes) {
  for (size_t i = 0; i < indexes.size(); ++i) {
    Expr* idx = indexes[i];
    if (!idx) continue;  // the '*' of a slice
    Type t = check(idx, kUnknown);
    if (!decl) continue;
    infer_index(decl, i, t, *idx);
    if (t == kUnknown && i < decl->index_types.size() && decl->index_types[i] != kUnknown)
      check(idx, decl->index_types[i]);
  }
}

void TypeChecker::visit(ArrayIndex& n) {
  self_checked_ = true;
  if (dynamic_cast<HistExpr*>(n.base)) {  // @hist_log(x)[3]: a bucket count
    check(n.base, kUnknown);
    for (Expr* e : n.indexes) check(e, Type::long_);
    n.type = Type::long_;
    return;
  }
  auto* base = dynamic_cast<Symbol*>(n.base);
  VarDecl* d = base ? base->decl : nullptr;
  check_indexes(d, n.indexes);
  if (!d) return;
  if (expected_ != kUnknown) infer_decl(d, expected_, *base);
  n.type = d->type;
  base->type = d->type;
}

void TypeChecker::visit(InExpr& n) {
  n.type = Type::long_;
  if (!n.index) return;
  if (dynamic_cast<HistExpr*>(n.index->base)) {  // i in @hist_log(x): a bucket's count
    check(n.index->base, kUnknown);
    for (Expr* e : n.index->indexes) check(e, Type::long_);
    return;
  }
  auto* base = dynamic_cast<Symbol*>(n.index->base);
  check_indexes(base ? base->decl : nullptr, n.index->indexes);
}

// ---------------------------------------------------------------- operators

void TypeChecker::visit(UnaryExpr& n) {
  check(n.operand, Type::long_);
  n.type = Type::long_;
}

bool is_comparison(const std::string& op) {
  return op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=";
}

void TypeChecker::visit(BinaryExpr& n) {
  if (n.op == ".") {
    check(n.left, Type::string);
    check(n.right, Type::string);
    n.type = Type::string;
  } else if (n.op == "=~" || n.op == "!~") {
    check(n.left, Type::string);
    check(n.right, Type::string);
    n.type = Type::long_;
  } else if (is_comparison(n.op)) {
    check_pair(n.left, n.right, kUnknown);
    n.type = Type::long_;
  } else {  // arithmetic, bitwise, && and ||
    check(n.left, Type::long_);
    check(n.right, Type::long_);
    n.type = Type::long_;
  }
}

void TypeChecker::visit(TernaryExpr& n) {
  check(n.cond, Type::long_);
  Type t = check(n.then_expr, expected_);
  check(n.else_expr, t != kUnknown ? t : expected_);
  if (n.then_expr->type == kUnknown && n.else_expr->type != kUnknown)
    check(n.then_expr, n.else_expr->type);
  n.type = n.then_expr->type != kUnknown ? n.then_expr->type : n.else_expr->type;
}

void TypeChecker::visit(AssignExpr& n) {
  if (n.op == "=") {
    check_pair(n.target, n.value, expected_);
    n.type = n.target->type != kUnknown ? n.target->type : n.value->type;
  } else if (n.op == "<<<") {
    check(n.target, Type::stats);
    check(n.value, Type::long_);
    n.type = Type::long_;
  } else if (n.op == ".=") {
    check(n.target, Type::string);
    check(n.value, Type::string);
    n.type = Type::string;
  } else {
    check(n.target, Type::long_);
    check(n.value, Type::long_);
    n.type = Type::long_;
  }
}

void TypeChecker::visit(StatExpr& n) {
  check(n.operand, Type::stats);
  check(n.shift, Type::long_);
  n.type = Type::long_;
}

void TypeChecker::visit(HistExpr& n) {
  // A histogram is only printed or indexed: it has no value type of its own.
  self_checked_ = true;
  check(n.operand, Type::stats);
  check(n.low, Type::long_);
  check(n.high, Type::long_);
  check(n.step, Type::long_);
}

// ---------------------------------------------------------------- target variables

// Until a provider types them (after pass 2 reads BTF/DWARF), target
// values are longs and the pretty-printing forms strings, as stap infers.
Type target_type(Type given, bool pretty) {
  if (given != kUnknown) return given;
  return pretty ? Type::string : Type::long_;
}

void TypeChecker::visit(TargetSymbol& n) {
  for (TargetComponent& c : n.components) check(c.index_expr, Type::long_);
  if (context_ && !context_->target_vars) {
    // Nothing to read it from.  It takes the type its context gives, if
    // any, and is reported with what stays unresolved: code that is
    // elided is not blamed, as in stap.
    orphan_targets_.try_emplace(&n, context_->no_target_vars_message);
    if (n.type == kUnknown) n.type = expected_;
    return;
  }
  // A family that knows its variables' types now says so (a tracepoint's
  // char-array fields are strings); all the body's probes must agree.
  if (n.type == kUnknown && n.components.empty() && !n.address_of && n.pretty == 0 &&
      context_ && !n.name.starts_with("$$")) {
    Type known = kUnknown;
    for (const DerivedProbe* dp : context_->probes) {
      if (!dp->provider || !dp->point) continue;
      Type t = dp->provider->target_var_type(*dp->point, n.name.substr(1));
      if (t == kUnknown || (known != kUnknown && known != t)) {
        known = kUnknown;
        break;
      }
      known = t;
    }
    if (known != kUnknown) n.type = known;
  }
  // $$vars, $$parms, $$locals, $$return print as "name=0x..." strings.
  n.type = target_type(n.type, n.pretty > 0 || n.name.starts_with("$$"));
}

void TypeChecker::visit(CastExpr& n) {
  check(n.operand, Type::long_);
  for (TargetComponent& c : n.components) check(c.index_expr, Type::long_);
  n.type = target_type(n.type, n.pretty > 0);
}

// As in stap, the operand is a long (an address), whatever its type turns
// out to be in pass 3.
void TypeChecker::visit(Autocast& n) {
  check(n.operand, Type::long_);
  for (TargetComponent& c : n.components) check(c.index_expr, Type::long_);
  n.type = target_type(n.type, n.pretty > 0);
}

void TypeChecker::visit(AtVar& n) {
  for (TargetComponent& c : n.components) check(c.index_expr, Type::long_);
  n.type = target_type(n.type, n.pretty > 0);
}

void TypeChecker::visit(AtOp& n) {
  if (n.op == "entry" && !n.operands.empty()) {
    n.type = check(n.operands[0], expected_);
  } else if (n.op == "choose_defined") {
    Type t = kUnknown;
    for (Expr* e : n.operands) {
      Type et = check(e, expected_);
      if (t == kUnknown) t = et;
    }
    n.type = t;
  } else {
    // @defined, @const, @kregister, @uregister, @errno, @probewrite
    for (Expr* e : n.operands) check(e, kUnknown);
    n.type = Type::long_;
  }
}

// ---------------------------------------------------------------- calls

void TypeChecker::visit(CallExpr& n) {
  if (FunctionDecl* fn = n.decl) {
    for (size_t i = 0; i < n.args.size() && i < fn->param_decls.size(); ++i) {
      VarDecl* p = fn->param_decls[i];
      if (p->type_declared) {
        check_declared(n.args[i], p->type);
        continue;
      }
      Type t = check(n.args[i], kUnknown);
      infer_decl(p, t, *n.args[i]);
      if (t == kUnknown && p->type != kUnknown) check(n.args[i], p->type);
    }
    n.type = fn->return_type;
    // An inferred return type conflicting with the call's context blames
    // the call and names the return statement it came from.
    auto origin = return_origin_.find(fn);
    if (!fn->return_type_declared && expected_ != kUnknown && n.type != kUnknown &&
        n.type != expected_ && origin != return_origin_.end()) {
      self_checked_ = true;
      conflict("", expected_, n, n.type, origin->second);
    }
    return;
  }
  const Builtin* b = find_builtin(n.name, n.args.size());
  if (!b) return;  // the resolver reported it
  std::vector<Type> types;
  if (!builtin_arg_types(*b, n, types, nullptr)) {
    // Quiet while passes repeat; reported once, in the hook's words.
    if (reported_.insert({loc_key(n.loc), "builtin:" + n.name}).second) {
      builtin_arg_types(*b, n, types, &diags_);
      ++errors_;
    }
    return;
  }
  for (size_t i = 0; i < n.args.size(); ++i) {
    Type t = i < types.size() ? types[i] : kUnknown;
    // A fixed parameter is a declared one in stap's tapsets.
    if (b->shape == ArgShape::fixed) check_declared(n.args[i], t);
    else check(n.args[i], t);
    bool prints_values = b->shape == ArgShape::values || b->shape == ArgShape::delimited;
    if (prints_values && n.args[i]->type == Type::stats &&
        std::find(printed_stats_.begin(), printed_stats_.end(), n.args[i]) == printed_stats_.end())
      printed_stats_.push_back(n.args[i]);
  }
  n.type = b->return_type;
}

// ---------------------------------------------------------------- statements

void TypeChecker::visit(IfStmt& n) {
  check(n.cond, Type::long_);
  walk(n.then_stmt);
  walk(n.else_stmt);
}

void TypeChecker::visit(ForStmt& n) {
  check(n.init, kUnknown);
  check(n.cond, Type::long_);
  check(n.incr, kUnknown);
  walk(n.body);
}

void TypeChecker::visit(ForeachStmt& n) {
  auto* base = dynamic_cast<Symbol*>(n.base);
  VarDecl* d = base ? base->decl : nullptr;
  if (!d) {  // a histogram: long buckets and counts
    check(n.base, kUnknown);
    for (Symbol* k : n.keys) check(k, Type::long_);
    if (n.value) check(n.value, Type::long_);
  } else {
    for (size_t i = 0; i < n.keys.size(); ++i) {
      Symbol* k = n.keys[i];
      Type t = i < d->index_types.size() ? d->index_types[i] : kUnknown;
      Type kt = check(k, t);
      infer_index(d, i, kt, *k);
    }
    check_indexes(d, n.slice);
    // @sum & co. sort only a statistic array, as in stap.
    if (n.sort_aggregate_given && d->type != kUnknown && d->type != Type::stats)
      error(base->loc, std::string("invalid type ") + type_name(d->type), describe_expr(*base));
    if (n.value && d->type == Type::stats) {
      // Values of a statistic array are read through @count & co. of the
      // array's element, never copied into a variable.
      error(n.value->loc, "invalid type stats", describe_expr(*n.value));
    } else if (n.value) {
      infer_decl(d, check(n.value, d->type), *n.value);
    }
    base->type = d->type;
  }
  check(n.limit, Type::long_);
  walk(n.body);
}

void TypeChecker::visit(ReturnStmt& n) {
  if (!n.value) return;
  if (!function_) {
    check(n.value, kUnknown);
    return;
  }
  Type t = check(n.value, kUnknown);
  infer_return(function_, t, *n.value);
  if (t == kUnknown && function_->return_type != kUnknown) check(n.value, function_->return_type);
}

void TypeChecker::visit(DeleteStmt& n) {
  if (auto* idx = dynamic_cast<ArrayIndex*>(n.target)) {
    auto* base = dynamic_cast<Symbol*>(idx->base);
    check_indexes(base ? base->decl : nullptr, idx->indexes);
    if (base && base->decl) base->type = base->decl->type;
  } else if (auto* sym = dynamic_cast<Symbol*>(n.target)) {
    if (sym->decl) sym->type = sym->decl->type;
  } else {
    check(n.target, kUnknown);
  }
}

void TypeChecker::visit(TryStmt& n) {
  walk(n.try_block);
  if (n.catch_var) check(n.catch_var, Type::string);
  walk(n.catch_block);
}

// ---------------------------------------------------------------- unresolved

// After the fixed point: every variable use still untyped is an error, as
// is every declaration (stap reports both); so is every target variable
// where there are none, in the same walk.
class UnresolvedFinder : public TraversingVisitor {
 public:
  struct Found {
    const Expr* at;
    std::string message;
  };
  UnresolvedFinder(const std::unordered_map<const TargetSymbol*, std::string>& orphans,
                   std::vector<Found>& out)
      : orphans_(orphans), out_(out) {}
  using TraversingVisitor::visit;
  void visit(Symbol& n) override {
    if (n.decl && n.decl->type == kUnknown) untyped(n);
  }
  void visit(ArrayIndex& n) override {
    TraversingVisitor::visit(n);
    auto* base = dynamic_cast<Symbol*>(n.base);
    if (!base || !base->decl) return;
    for (size_t i = 0; i < n.indexes.size() && i < base->decl->index_types.size(); ++i)
      if (n.indexes[i] && base->decl->index_types[i] == kUnknown) untyped(*n.indexes[i]);
  }
  // A branch that an @defined of a type path guards (@defined(@cast(p,
  // "T")->f), @defined(x->f)) is left to the lowering, which decides it
  // from BTF and reads only the branch taken, as stap elides the other.
  void visit(IfStmt& n) override {
    walk(n.cond);
    Deferral d(*this, undecided_defined(n.cond));
    walk(n.then_stmt);
    walk(n.else_stmt);
  }
  void visit(TernaryExpr& n) override {
    walk(n.cond);
    Deferral d(*this, undecided_defined(n.cond));
    walk(n.then_expr);
    walk(n.else_expr);
  }
  // @choose_defined(a, b) reads only the operand that exists: the lowering
  // chooses (and reports a missing one it reads).
  void visit(AtOp& n) override {
    Deferral d(*this, n.op == "choose_defined");
    TraversingVisitor::visit(n);
  }
  void visit(TargetSymbol& n) override {
    TraversingVisitor::visit(n);
    if (deferred_) return;
    auto orphan = orphans_.find(&n);
    if (orphan != orphans_.end()) out_.push_back({&n, orphan->second});
    if (orphan != orphans_.end() && n.type == kUnknown) untyped(n);
  }

 private:
  struct Deferral {
    UnresolvedFinder& f;
    bool saved;
    Deferral(UnresolvedFinder& finder, bool on) : f(finder), saved(finder.deferred_) {
      f.deferred_ = saved || on;
    }
    ~Deferral() { f.deferred_ = saved; }
  };
  static bool undecided_defined(Expr* cond) {
    struct Finder : TraversingVisitor {
      bool found = false;
      void visit(AtOp& n) override {
        if (n.op == "defined" || n.op == "choose_defined")
          for (Expr* e : n.operands)
            if (dynamic_cast<CastExpr*>(e) || dynamic_cast<Autocast*>(e) ||
                dynamic_cast<AtVar*>(e))
              found = true;
        TraversingVisitor::visit(n);
      }
    } finder;
    if (cond) cond->accept(finder);
    return finder.found;
  }
  void untyped(const Expr& e) { out_.push_back({&e, "unresolved type "}); }
  const std::unordered_map<const TargetSymbol*, std::string>& orphans_;
  std::vector<Found>& out_;
  bool deferred_ = false;
};

void TypeChecker::report_unresolved() {
  std::vector<UnresolvedFinder::Found> found;
  UnresolvedFinder finder(orphan_targets_, found);
  std::unordered_set<const ProbeDecl*> bodies;
  for (DerivedProbe& dp : program_.probes) {
    if (!dp.decl) continue;
    if (dp.point && dp.point->condition) dp.point->condition->accept(finder);
    if (bodies.insert(dp.decl).second && dp.decl->body) dp.decl->body->accept(finder);
  }
  for (FunctionDecl* fn : program_.functions)
    if (fn->body) fn->body->accept(finder);
  for (const auto& [e, message] : found) error(e->loc, message, describe_expr(*e));
  for (VarDecl* g : program_.globals) {
    bool unknown = g->type == kUnknown;
    for (Type t : g->index_types) unknown = unknown || t == kUnknown;
    if (unknown) error(g->loc, "unresolved type ", quoted("identifier", g->name));
  }
}

}  // namespace

std::string describe_expr(const Expr& e) {
  if (auto* s = dynamic_cast<const Symbol*>(&e)) return quoted("identifier", s->name);
  if (auto* n = dynamic_cast<const NumberLit*>(&e))
    return quoted("number", n->text.empty() ? std::to_string(n->value) : n->text);
  if (auto* s = dynamic_cast<const StringLit*>(&e)) return quoted("string", escape_string(s->value));
  if (auto* c = dynamic_cast<const CallExpr*>(&e)) return quoted("identifier", c->name);
  if (auto* a = dynamic_cast<const ArrayIndex*>(&e)) return a->base ? describe_expr(*a->base) : "";
  if (auto* t = dynamic_cast<const TargetSymbol*>(&e))
    return quoted("identifier", t->name + std::string(static_cast<size_t>(t->pretty), '$'));
  if (auto* b = dynamic_cast<const BinaryExpr*>(&e)) return quoted("operator", b->op);
  if (auto* a = dynamic_cast<const AssignExpr*>(&e)) return quoted("operator", a->op);
  if (auto* u = dynamic_cast<const UnaryExpr*>(&e)) return quoted("operator", unary_op_text(u->op));
  if (dynamic_cast<const TernaryExpr*>(&e)) return quoted("operator", "?");
  if (auto* s = dynamic_cast<const StatExpr*>(&e))
    return quoted("operator", std::string("@") + stat_op_name(s->op));
  if (auto* h = dynamic_cast<const HistExpr*>(&e))
    return quoted("operator", h->linear ? "@hist_linear" : "@hist_log");
  if (dynamic_cast<const CastExpr*>(&e)) return quoted("operator", "@cast");
  if (dynamic_cast<const AtVar*>(&e)) return quoted("operator", "@var");
  if (auto* a = dynamic_cast<const Autocast*>(&e)) return quoted("operator", a->token);
  if (dynamic_cast<const EmbeddedExpr*>(&e)) return "embedded-code";
  if (auto* a = dynamic_cast<const AtOp*>(&e)) return quoted("operator", "@" + a->op);
  if (dynamic_cast<const InExpr*>(&e)) return "keyword";
  return "";
}

bool typecheck_program(Program& program, Diagnostics& diags, bool report_unresolved) {
  return TypeChecker(program, diags, report_unresolved).run();
}

}  // namespace stap
