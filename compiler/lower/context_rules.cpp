// Where code can run.  Kernel context (BPF) cannot iterate a map in
// order, recurse, or run what only the runtime offers; user context (the
// runtime's begin/end/timer bodies) has no kernel probe to ask about.
// Each rule is a located error at the place the script crossed it, saying
// what to do instead.  Functions take their caller's context, so what a
// function needs (through everything it calls) is computed once and
// checked at each call.
#include <functional>
#include <set>

#include "ast/visitor.h"
#include "elaborate/typecheck.h"
#include "ir/kernel_builtins.h"
#include "ir/regex_dfa.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

constexpr const char* kUserProbes = "a begin, end or timer probe";

// A builtin kernel context cannot run: user-only by nature, or one the BPF
// code generator does not implement (yet).  The print family and
// exit/error are operations of the IR, not calls.
bool user_only(const Builtin& b) {
  if (b.context == BuiltinContext::user) return true;
  std::string name(b.ir_name());
  return b.context == BuiltinContext::both && b.shape == ArgShape::fixed && !name.empty() &&
         !ir::kernel_supports_builtin(name);
}

// Why kernel context cannot match this =~/!~ ("" when its DFA builds).
// The pattern is a literal (lowering refuses any other right operand).
std::string regex_refusal(const ast::BinaryExpr& n) {
  auto* lit = dynamic_cast<const ast::StringLit*>(n.right);
  if (!lit) return "";
  ir::RegexBuild built = ir::build_regex_dfa(lit->value);
  if (built.status == ir::RegexStatus::invalid)
    return "invalid regular expression '" + lit->value + "': " + built.reason;
  if (built.status == ir::RegexStatus::unsupported)
    return "regular expression '" + lit->value + "' " + built.reason;
  return "";
}

// The direct facts of one function body.
struct FactScanner : ast::TraversingVisitor {
  const SourceManager& sources;
  FunctionFacts& facts;
  FactScanner(const SourceManager& s, FunctionFacts& f) : sources(s), facts(f) {}

  void visit(ast::ForeachStmt& n) override {
    if (facts.needs_user.empty()) facts.needs_user = "foreach at " + format_loc(sources, n.loc);
    ast::TraversingVisitor::visit(n);
  }
  void visit(ast::BinaryExpr& n) override {
    ast::TraversingVisitor::visit(n);
    if ((n.op == "=~" || n.op == "!~") && facts.needs_user.empty())
      if (std::string why = regex_refusal(n); !why.empty())
        facts.needs_user = "operator '" + n.op + "' at " + format_loc(sources, n.loc) + " (" + why + ")";
  }
  void visit(ast::CallExpr& n) override {
    ast::TraversingVisitor::visit(n);
    if (n.decl) {
      facts.callees.push_back(n.decl);
      return;
    }
    const Builtin* b = find_builtin(n.name, n.args.size());
    if (!b) return;
    std::string what = "'" + n.name + "' at " + format_loc(sources, n.loc);
    if (user_only(*b) && facts.needs_user.empty()) facts.needs_user = what;
    if (b->context == BuiltinContext::kernel && facts.needs_kernel.empty())
      facts.needs_kernel = what;
  }
};

}  // namespace

void Lowerer::compute_function_facts() {
  std::unordered_map<const ast::FunctionDecl*, FunctionFacts> direct;
  for (const ast::FunctionDecl* f : program_.functions) {
    FactScanner scanner(sources_, direct[f]);
    if (f->body) f->body->accept(scanner);
  }
  // Reachability by depth-first search from each function: programs have
  // tens of functions, so the quadratic walk is cheap and plain.
  for (const ast::FunctionDecl* f : program_.functions) {
    FunctionFacts facts = direct[f];
    std::vector<const ast::FunctionDecl*> order;
    std::set<const ast::FunctionDecl*> seen;
    std::function<void(const ast::FunctionDecl*)> walk = [&](const ast::FunctionDecl* g) {
      for (const ast::FunctionDecl* h : direct[g].callees) {
        if (!seen.insert(h).second) continue;
        order.push_back(h);
        walk(h);
      }
    };
    walk(f);
    facts.recursive = seen.contains(f);
    for (const ast::FunctionDecl* g : order) {
      const FunctionFacts& d = direct[g];
      std::string via = " (in function '" + g->name + "')";
      if (facts.needs_user.empty() && !d.needs_user.empty()) facts.needs_user = d.needs_user + via;
      if (facts.needs_kernel.empty() && !d.needs_kernel.empty())
        facts.needs_kernel = d.needs_kernel + via;
    }
    facts_[f] = std::move(facts);
  }
  // A function reaching a recursive one (itself included) cannot be
  // compiled to BPF either.
  for (const ast::FunctionDecl* f : program_.functions) {
    FunctionFacts& facts = facts_[f];
    if (facts.recursive) {
      facts.reaches_recursive = f->name;
      continue;
    }
    std::set<const ast::FunctionDecl*> seen;
    std::function<void(const ast::FunctionDecl*)> walk = [&](const ast::FunctionDecl* g) {
      for (const ast::FunctionDecl* h : direct[g].callees) {
        if (!facts.reaches_recursive.empty() || !seen.insert(h).second) continue;
        if (facts_[h].recursive) facts.reaches_recursive = h->name;
        else walk(h);
      }
    };
    walk(f);
  }
}

ir::Node* Lowerer::call(ast::CallExpr& n) {
  const ast::FunctionDecl* f = n.decl;
  const FunctionFacts& info = facts(f);
  std::string token = "identifier '" + n.name + "'";
  if (body_->context == ir::Context::kernel && !body_->in_function) {
    if (!info.reaches_recursive.empty()) {
      std::string which = info.reaches_recursive == f->name
                              ? "function '" + f->name + "' is recursive"
                              : "function '" + f->name + "' calls the recursive function '" +
                                    info.reaches_recursive + "'";
      error(n.loc, which + ", and recursion cannot run in kernel context: make it iterative, or "
                           "call it from " + kUserProbes, token);
    } else if (!info.needs_user.empty()) {
      error(n.loc, "function '" + f->name + "' uses " + info.needs_user +
                       ", which needs user context: call it from " + kUserProbes, token);
    }
  }
  if (body_->context == ir::Context::user && !body_->in_function && !info.needs_kernel.empty())
    error(n.loc, "function '" + f->name + "' uses " + info.needs_kernel +
                     ", which needs a kernel probe: call it from a kernel.trace probe", token);
  ir::Node* node = make(ir::Op::call, ir_type(f->return_type));
  node->a = function_index(f);
  for (ast::Expr* arg : n.args) node->kids.push_back(expr(arg));
  return node;
}

void Lowerer::check_builtin_context(const ast::CallExpr& n, const Builtin& b) {
  // Inside a function the caller's context decides; call() checks there.
  if (body_->in_function) return;
  std::string token = "identifier '" + n.name + "'";
  if (user_only(b) && body_->context == ir::Context::kernel)
    limitation(n.loc, "'" + n.name + "' needs user context" +
                     (b.context == BuiltinContext::user ? "" : " in this engine (not yet in BPF)") +
                     ": call it from " + kUserProbes, token);
  if (b.context == BuiltinContext::kernel && body_->context == ir::Context::user)
    limitation(n.loc, "'" + n.name + "' needs a kernel probe context, which " + kUserProbes +
                     " does not have: call it from a kernel.trace probe", token);
}

// Kernel context matches by a DFA built at compile time (codegen/
// emit_regex.cpp); a pattern without one (back-references, word
// assertions, too many states) is refused here, where it is written.
// An invalid pattern is an error wherever it is; one the DFA cannot
// express only where the match runs in BPF.
void Lowerer::check_regex_context(const ast::BinaryExpr& n) {
  std::string why = regex_refusal(n);
  if (why.empty()) return;
  if (why.starts_with("invalid")) {
    error(n.loc, why, "operator '" + n.op + "'");
    return;
  }
  if (body_->in_function || body_->context != ir::Context::kernel) return;
  limitation(n.loc, why + ", which kernel context cannot match: match in " + std::string(kUserProbes),
             "operator '" + n.op + "'");
}

void Lowerer::check_foreach_context(const ast::ForeachStmt& n) {
  if (body_->in_function || body_->context != ir::Context::kernel) return;
  error(n.loc, "foreach needs user context: iterate in an end or timer probe", "keyword");
}

}  // namespace stap::lower
