// Pass 3, first half: the driver of the lowering.  Globals first (their
// indexes are what bodies refer to), then functions (declared before any
// body is lowered, so calls can name them), then one or more ir::Probe per
// derived probe.
#include "lower/lower.h"

#include <unordered_set>

#include "ast/visitor.h"
#include "elaborate/alias_expansion.h"
#include "elaborate/typecheck.h"
#include "ir/key_codes.h"
#include "lower/kinds/kinds.h"
#include "lower/lowerer.h"
#include "lower/trace_events.h"

namespace stap {

namespace lower {

ir::Type ir_type(ast::Type t) {
  switch (t) {
    case ast::Type::long_: return ir::Type::long_;
    case ast::Type::string: return ir::Type::string;
    case ast::Type::stats: return ir::Type::stats;
    case ast::Type::unknown: return ir::Type::none;
  }
  return ir::Type::none;
}

Lowerer::Lowerer(const Program& program, const LowerOptions& options, const SourceManager& sources,
                 Diagnostics& diags, ir::Module& out)
    : program_(program), options_(options), sources_(sources), diags_(diags), out_(out),
      trace_events_(std::make_unique<TraceEvents>(*this)) {}

Lowerer::~Lowerer() = default;

// ---------------------------------------------------------------- helpers

ir::Node* Lowerer::num(int64_t v) {
  ir::Node* n = make(ir::Op::num, ir::Type::long_);
  n->a = v;
  return n;
}

ir::Node* Lowerer::str(std::string v) {
  ir::Node* n = make(ir::Op::str, ir::Type::string);
  n->s = std::move(v);
  return n;
}

uint32_t Lowerer::location(SourceLoc loc, const std::string& token) {
  std::string text = token;
  if (loc.valid()) text += (text.empty() ? "" : " ") + std::string("at ") + where(loc);
  return out_.add_location(std::move(text));
}

uint32_t Lowerer::location(const ast::Expr& e) { return location(e.loc, describe_expr(e)); }

ir::Node* Lowerer::long_op(ir::Op op, ir::Node* x, ir::Node* y) {
  ir::Node* n = make(op, ir::Type::long_);
  n->kids = {x, y};
  return n;
}

ir::Node* Lowerer::builtin_call(const std::string& name, std::vector<ir::Node*> args) {
  ir::Node* n = make(ir::Op::builtin, ir::Type::long_);
  n->s = name;
  n->kids = std::move(args);
  return n;
}

void Lowerer::error(SourceLoc loc, std::string message, std::string token) {
  if (trial_) {
    if (trial_error_.message.empty()) trial_error_ = {std::move(message), loc};
    return;
  }
  diags_.semantic_error(loc, std::move(message), std::move(token));
}

void Lowerer::limitation(SourceLoc loc, std::string message, std::string token) {
  if (options_.checking && !trial_) return;
  error(loc, std::move(message), std::move(token));
}

void Lowerer::begin_trial() {
  trial_ = true;
  trial_error_ = {};
}

Lowerer::TrialError Lowerer::end_trial() {
  trial_ = false;
  return std::move(trial_error_);
}

int Lowerer::global_index(const ast::VarDecl* d) const {
  auto it = globals_.find(d);
  return it == globals_.end() ? -1 : it->second;
}

int Lowerer::slot(const ast::VarDecl* d) {
  auto it = body_->slot_of.find(d);
  if (it != body_->slot_of.end()) return it->second;
  // A local the elaborator did not list (it lists every one it resolved,
  // so this is belt and braces): give it a slot of its own.
  int s = add_temp(ir_type(d->type));
  body_->slot_of.emplace(d, s);
  return s;
}

int Lowerer::add_temp(ir::Type t) {
  body_->slots->push_back(t);
  return static_cast<int>(body_->slots->size() - 1);
}

kernel::KernelBtf* Lowerer::btf(SourceLoc loc, const std::string& token, bool quiet) {
  if (!btf_asked_) {
    btf_asked_ = true;
    if (options_.btf) btf_ = options_.btf(btf_error_);
    if (!btf_ && btf_error_.empty()) btf_error_ = "the kernel's BTF could not be read";
  }
  if (btf_) return btf_;
  if (!quiet) error(loc, "@cast needs the kernel's type information: " + btf_error_, token);
  return nullptr;
}

bool optional_point(const DerivedProbe& dp) {
  if (dp.point->optional || dp.point->sufficient) return true;
  for (const ast::ProbePoint* p : dp.decl->derived_from)
    if (p->optional || p->sufficient) return true;
  return false;
}

namespace {

// Finds a target variable ($x, $$parms, $return) or @entry(...).
struct TargetUse : ast::TraversingVisitor {
  bool found = false;
  void visit(ast::TargetSymbol& n) override {
    found = true;
    ast::TraversingVisitor::visit(n);
  }
  void visit(ast::AtOp& n) override {
    if (n.op == "entry") found = true;
    ast::TraversingVisitor::visit(n);
  }
};

}  // namespace

ir::Probe kernel_probe(ir::ProbeSpec spec, std::string pp) {
  ir::Probe probe;
  probe.context = ir::Context::kernel;
  probe.pp = std::move(pp);
  probe.spec = std::move(spec);
  return probe;
}

bool reads_probe_context(const DerivedProbe& dp) {
  TargetUse use;
  if (dp.decl->body) dp.decl->body->accept(use);
  if (dp.point->condition) dp.point->condition->accept(use);
  return use.found;
}

// ---------------------------------------------------------------- globals

namespace {

bool literal_value(const ast::Expr* e, int64_t& out) {
  if (auto* n = dynamic_cast<const ast::NumberLit*>(e)) {
    out = n->value;
    return true;
  }
  auto* u = dynamic_cast<const ast::UnaryExpr*>(e);
  if (u && (u->op == ast::UnaryOp::neg || u->op == ast::UnaryOp::plus) &&
      literal_value(u->operand, out)) {
    if (u->op == ast::UnaryOp::neg) out = static_cast<int64_t>(0ull - static_cast<uint64_t>(out));
    return true;
  }
  return false;
}

// Collects the histogram shape of every statistic from its @hist_* uses.
struct HistogramCollector : ast::TraversingVisitor {
  Lowerer& lowerer;
  std::unordered_map<int, const ast::HistExpr*> first;
  explicit HistogramCollector(Lowerer& l) : lowerer(l) {}

  void visit(ast::HistExpr& n) override {
    ast::TraversingVisitor::visit(n);
    const ast::Expr* e = n.operand;
    if (auto* idx = dynamic_cast<const ast::ArrayIndex*>(e)) e = idx->base;
    auto* sym = dynamic_cast<const ast::Symbol*>(e);
    int g = sym ? lowerer.global_index(sym->decl) : -1;
    if (g < 0) return;
    ir::HistShape shape;
    shape.kind = n.linear ? ir::HistShape::Kind::linear : ir::HistShape::Kind::log;
    if (n.linear) {
      for (auto [e2, out] : {std::pair{n.low, &shape.low}, {n.high, &shape.high},
                             {n.step, &shape.step}}) {
        if (!e2 || !literal_value(e2, *out)) {
          lowerer.error(e2 ? e2->loc : n.loc, "@hist_linear parameters must be literal numbers",
                        e2 ? describe_expr(*e2) : describe_expr(n));
          return;
        }
      }
    }
    ir::HistShape& have = lowerer.module().globals[g].hist;
    auto [it, inserted] = first.try_emplace(g, &n);
    if (inserted) {
      have = shape;
      return;
    }
    if (have.kind != shape.kind || have.low != shape.low || have.high != shape.high ||
        have.step != shape.step)
      lowerer.error(n.loc,
                    "multiple histogram types declared on '__global_" + sym->decl->name + "'",
                    describe_expr(n));
  }
};

}  // namespace

void Lowerer::lower_globals() {
  for (const ast::VarDecl* d : program_.globals) {
    ir::Global g;
    g.name = d->name;
    g.type = ir_type(d->type);
    for (ast::Type k : d->index_types) g.keys.push_back(ir_type(k));
    g.max_entries = d->max_entries;
    g.wrap = d->wrap;
    if (auto* s = dynamic_cast<const ast::StringLit*>(d->init)) g.init_str = s->value;
    else if (d->init && !literal_value(d->init, g.init_num))
      error(d->init->loc, "global initializer must be a literal", describe_expr(*d->init));
    globals_.emplace(d, static_cast<int>(out_.globals.size()));
    out_.globals.push_back(std::move(g));
  }
}

int Lowerer::hidden_global(ir::Global g) {
  // After the script's globals, whose indexes the bodies already use; no
  // AST declaration, so the end-of-run display never shows it.
  out_.globals.push_back(std::move(g));
  return static_cast<int>(out_.globals.size() - 1);
}

void Lowerer::collect_histograms() {
  HistogramCollector collector(*this);
  for (const DerivedProbe& dp : program_.probes) {
    if (dp.point && dp.point->condition) dp.point->condition->accept(collector);
    if (dp.decl && dp.decl->body) dp.decl->body->accept(collector);
  }
  for (ast::FunctionDecl* f : program_.functions)
    if (f->body) f->body->accept(collector);
}

// ---------------------------------------------------------------- functions

void Lowerer::lower_functions() {
  for (const ast::FunctionDecl* f : program_.functions) {
    functions_.emplace(f, static_cast<int>(out_.functions.size()));
    ir::Function fn;
    fn.name = f->name;
    fn.ret = ir_type(f->return_type);
    fn.param_count = f->param_decls.size();
    out_.functions.push_back(std::move(fn));
  }
  compute_function_facts();
  // Callees first, so that a call's autocast knows what its callee
  // returns (autocast.cpp).
  std::vector<const ast::FunctionDecl*> order;
  std::unordered_set<const ast::FunctionDecl*> placed;
  std::function<void(const ast::FunctionDecl*)> place = [&](const ast::FunctionDecl* f) {
    if (!placed.insert(f).second) return;
    for (const ast::FunctionDecl* callee : facts(f).callees) place(callee);
    order.push_back(f);
  };
  for (const ast::FunctionDecl* f : program_.functions) place(f);
  for (const ast::FunctionDecl* f : order) {
    ir::Function& fn = out_.functions[function_index(f)];
    fn.recursive = facts(f).recursive;
    BodyState state;
    state.in_function = true;
    state.function = f;
    BodyContext no_probe(*this);  // a function reads no probe's context
    state.kind = &no_probe;
    // The context of a function is its caller's; rules are checked at the
    // call sites (context_rules.cpp), so the body is lowered neutrally.
    state.context = ir::Context::user;
    state.slots = &fn.slots;
    for (const ast::VarDecl* p : f->param_decls) state.slot_of.emplace(p, add_slot(fn.slots, p));
    for (const ast::VarDecl* l : f->locals) state.slot_of.emplace(l, add_slot(fn.slots, l));
    body_ = &state;
    if (f->embedded_c)
      limitation(f->loc,
                 "function '" + f->name + "' has an embedded-C body (%{ %}), which cannot run "
                 "on BPF: write its body in the script language",
                 "identifier '" + f->name + "'");
    fn.body = f->body ? stmt(f->body) : make(ir::Op::block);
    body_ = nullptr;
  }
}

int Lowerer::add_slot(std::vector<ir::Type>& slots, const ast::VarDecl* d) {
  slots.push_back(ir_type(d->type));
  return static_cast<int>(slots.size() - 1);
}

int Lowerer::function_index(const ast::FunctionDecl* f) const {
  auto it = functions_.find(f);
  return it == functions_.end() ? -1 : it->second;
}

// ---------------------------------------------------------------- probes

void Lowerer::lower_probe(const DerivedProbe& dp) {
  int row = kind_row(dp);
  if (row < 0) {
    // A family pass 2 knows and no kind here lowers.
    const ast::ProbePointComponent& head = dp.point->components[0];
    std::string kind;
    for (const ast::ProbePointComponent& c : dp.point->components)
      kind += (kind.empty() ? "" : ".") + c.functor;
    limitation(head.loc, "probe point kind '" + kind + "' is not supported yet by this engine",
          "identifier '" + head.functor + "'");
    return;
  }
  if (kinds_.empty()) kinds_.resize(kind_rows());
  if (!kinds_[size_t(row)]) kinds_[size_t(row)] = make_kind(row, *this);
  size_t first = out_.probes.size();
  kinds_[size_t(row)]->lower(dp);
  for (size_t i = first; i < out_.probes.size(); ++i) describe_origin(dp, out_.probes[i]);
}

// What the -t report and the output formats say of a probe: the user's
// probe's place, the points it came through (as stap's derived_locations()
// words them: from the innermost alias's point outwards to the user's;
// the concrete point itself is the report's pp), and the global a
// synthesized display probe prints; and pn()'s point.
void Lowerer::describe_origin(const DerivedProbe& dp, ir::Probe& probe) {
  const ast::ProbeDecl& user = dp.decl->origin ? *dp.decl->origin : *dp.decl;
  probe.location = where(user.loc);
  std::vector<const ast::ProbePoint*> chain(dp.decl->derived_from.rbegin(),
                                            dp.decl->derived_from.rend());
  if (chain.empty()) chain.push_back(dp.point);
  probe.derivation.clear();
  for (const ast::ProbePoint* p : chain) probe.derivation += " from: " + p->to_string();
  if (dp.decl->displays) probe.displays_global = global_index(dp.decl->displays);
  probe.pn = alias_point_name(*dp.decl);
  if (probe.pn.empty()) probe.pn = probe.pp;
}

void Lowerer::lower_body(const DerivedProbe& dp, ir::Probe&& probe, BodyContext& context) {
  BodyState state;
  state.context = probe.context;
  state.slots = &probe.slots;
  state.kind = &context;
  for (const ast::VarDecl* l : dp.decl->locals) state.slot_of.emplace(l, add_slot(probe.slots, l));
  body_ = &state;
  current_probe_ = &probe;
  value_types_.exprs.clear();  // a body shared by derived probes types anew
  value_types_.locals.clear();
  ir::Node* body = dp.decl->body ? stmt(dp.decl->body) : make(ir::Op::block);
  if (dp.point->condition) {
    // probe P if (cond): the body runs only when cond holds.
    ir::Node* guarded = make(ir::Op::if_);
    guarded->kids = {expr(dp.point->condition), body, nop()};
    body = make(ir::Op::block);
    body->kids.push_back(guarded);
  }
  probe.body = context.guard(body, probe);
  body_ = nullptr;
  current_probe_ = nullptr;
  finish_entry_values(probe);  // a .return body's entry probe comes first
  out_.probes.push_back(std::move(probe));
}

// ---------------------------------------------------------------- what kinds answer

ir::Node* BodyContext::target(ast::TargetSymbol& n, bool) {
  // Pass 2 said so already where it knew; a function body, or a branch
  // that an @defined pass 2 could not decide guards, lands here.
  l_.error(n.loc, "unresolved target-symbol expression", describe_expr(n));
  return l_.num(0);
}

// A body without target variables (begin, timers, functions) has none.
std::optional<bool> BodyContext::target_exists(const ast::Expr& e) {
  if (dynamic_cast<const ast::TargetSymbol*>(&e)) return false;
  return std::nullopt;
}

ir::Node* BodyContext::builtin(ast::CallExpr&) { return nullptr; }

std::unique_ptr<EntryProbe> BodyContext::entry_probe(const ir::Probe&) { return nullptr; }

ir::Node* BodyContext::guard(ir::Node* body, ir::Probe&) { return body; }

std::optional<bool> Lowerer::target_defined(const ast::Expr* e) {
  if (!body_) return std::nullopt;
  if (auto* u = dynamic_cast<const ast::UnaryExpr*>(e); u && u->op == ast::UnaryOp::logical_not) {
    std::optional<bool> inner = target_defined(u->operand);
    if (inner) return !*inner;
    return std::nullopt;
  }
  // a || b, a && b of @defined forms (both known: neither side has an
  // effect that deciding would skip).
  if (auto* b = dynamic_cast<const ast::BinaryExpr*>(e); b && (b->op == "||" || b->op == "&&")) {
    std::optional<bool> left = target_defined(b->left), right = target_defined(b->right);
    if (!left || !right) return std::nullopt;
    return b->op == "||" ? *left || *right : *left && *right;
  }
  auto* op = dynamic_cast<const ast::AtOp*>(e);
  if (!op || op->op != "defined" || op->operands.size() != 1) return std::nullopt;
  return target_exists(op->operands[0]);
}

std::optional<bool> Lowerer::target_exists(const ast::Expr* e) {
  if (!body_) return std::nullopt;
  if (auto* c = dynamic_cast<const ast::CastExpr*>(e)) return cast_exists(*c);
  if (auto* a = dynamic_cast<const ast::Autocast*>(e)) return autocast_exists(*a);
  if (std::optional<bool> plain = untargeted_exists(e)) return plain;
  // @entry(e) exists where e does: a .return body reads its entry's $vars.
  if (auto* op = dynamic_cast<const ast::AtOp*>(e); op && op->op == "entry" && op->operands.size() == 1)
    return target_exists(op->operands[0]);
  // @choose_defined(a, b) exists where the operand it chooses does.
  if (auto* op = dynamic_cast<const ast::AtOp*>(e);
      op && op->op == "choose_defined" && op->operands.size() == 2) {
    std::optional<bool> first = target_exists(op->operands[0]);
    if (!first || *first) return first;
    return target_exists(op->operands[1]);
  }
  return context().target_exists(*e);
}

ir::Node* Lowerer::context_builtin(ast::CallExpr& call) {
  const std::string& name = call.name;
  // The registers are the running program's context, in a probe's body or
  // a function it calls (codegen refuses them where there are none).
  if (name == "register" || name == "u_register") return register_value(call);
  if (name == "returnval") {
    constexpr int64_t kRegAxOffset = 80;  // struct pt_regs' ax on x86-64: the return value
    ir::Node* v = make(ir::Op::reg, ir::Type::long_);
    v->a = kRegAxOffset;
    return v;
  }
  return context().builtin(call);
}

ir::Node* Lowerer::checked_long(ir::Node* v, const ast::Expr& n, bool any_type) {
  ir::Type wanted = ir_type(n.type);
  if (!any_type && wanted != ir::Type::none && wanted != v->type)
    error(n.loc, std::string("type mismatch: '") + describe_expr(n) + "' is a " +
                     ir::type_name(v->type) + ", used here as a " + ir::type_name(wanted) +
                     (v->type == ir::Type::long_ ? " (read a char* or char[] with kernel_string())"
                                                 : ""),
          describe_expr(n));
  return v;
}

bool Lowerer::run() {
  size_t errors = diags_.error_count();
  out_.script_name = options_.script_name;
  out_.limits = options_.limits;
  lower_globals();
  collect_histograms();
  // The user's top-level C (a tapset's serves only its embedded functions,
  // refused where called).
  for (const auto& file : program_.files)
    if (!file->is_tapset)
      for (const ast::File::EmbeddedBlock& b : file->embedded_blocks)
        limitation(b.loc, "embedded C (%{ %}) cannot run on BPF: remove it", "embedded-code");
  lower_functions();
  for (const DerivedProbe& dp : program_.probes) lower_probe(dp);
  if (diags_.error_count() != errors) return false;
  ir::forward_syscall_names(out_);
  ir::narrow_string_keys(out_);
  ir::code_string_keys(out_);
  ir::assign_layout(out_);
  return true;
}

}  // namespace lower

bool lower_program(const Program& program, const LowerOptions& options,
                   const SourceManager& sources, Diagnostics& diags, ir::Module& out) {
  lower::Lowerer lowerer(program, options, sources, diags, out);
  return lowerer.run();
}

}  // namespace stap
