// Pass 3, first half: the driver of the lowering.  Globals first (their
// indexes are what bodies refer to), then functions (declared before any
// body is lowered, so calls can name them), then one or more ir::Probe per
// derived probe.
#include "lower/lower.h"

#include "ast/visitor.h"
#include "elaborate/typecheck.h"
#include "ir/key_codes.h"
#include "debuginfo/process_points.h"
#include "lower/lowerer.h"

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

void Lowerer::error(SourceLoc loc, std::string message, std::string token) {
  diags_.semantic_error(loc, std::move(message), std::move(token));
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
  for (size_t i = 0; i < program_.functions.size(); ++i) {
    const ast::FunctionDecl* f = program_.functions[i];
    ir::Function& fn = out_.functions[i];
    fn.recursive = facts(f).recursive;
    BodyState state;
    state.in_function = true;
    // The context of a function is its caller's; rules are checked at the
    // call sites (context_rules.cpp), so the body is lowered neutrally.
    state.context = ir::Context::user;
    state.slots = &fn.slots;
    for (const ast::VarDecl* p : f->param_decls) state.slot_of.emplace(p, add_slot(fn.slots, p));
    for (const ast::VarDecl* l : f->locals) state.slot_of.emplace(l, add_slot(fn.slots, l));
    body_ = &state;
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

void Lowerer::lower_body(const DerivedProbe& dp, ir::Probe probe) {
  BodyState state;
  state.context = probe.context;
  state.slots = &probe.slots;
  if (probe.kind == ir::ProbeKind::tracepoint || probe.kind == ir::ProbeKind::syscall) {
    state.event = event_format({probe.system, probe.event}, dp.point->components[0].loc);
    syscall_context(state, probe, dp.point->components[0].loc);
  }
  std::optional<kernel::Function> kfunc;  // what state.kfunc points at
  if (probe.kind == ir::ProbeKind::kfunc) {
    kfunc_context(state, probe, kfunc);
    state.kfunc_point = dp.point;
  }
  if (probe.kind == ir::ProbeKind::uprobe) {
    state.uprobe_probe = &probe;
    state.uprobe_point = uprobe_point_;
    state.uprobe_site = uprobe_site_;
  }
  for (const ast::VarDecl* l : dp.decl->locals) state.slot_of.emplace(l, add_slot(probe.slots, l));
  body_ = &state;
  ir::Node* body = dp.decl->body ? stmt(dp.decl->body) : make(ir::Op::block);
  if (dp.point->condition) {
    // probe P if (cond): the body runs only when cond holds.
    ir::Node* guarded = make(ir::Op::if_);
    guarded->kids = {expr(dp.point->condition), body, nop()};
    body = make(ir::Op::block);
    body->kids.push_back(guarded);
  }
  if (probe.kind == ir::ProbeKind::uprobe && uprobe_point_ &&
      uprobe_point_->binary->path != uprobe_point_->process) {
    // process("P").library("L"): the library's code runs in every program
    // that maps it; the probe is P's.
    SourceLoc at = dp.point->components[0].loc;
    if (ir::Node* runs = runs_image(uprobe_point_->process, probe.slots, at)) {
      ir::Node* guarded = make(ir::Op::if_);
      guarded->kids = {runs, body, nop()};
      body = make(ir::Op::block);
      body->kids.push_back(guarded);
    } else {
      error(at, "cannot stat " + uprobe_point_->process + " to scope the library probe to it");
    }
  }
  if (probe.kind == ir::ProbeKind::uprobe && probe.target_pid > 0) {
    // process(PID): every thread of that process.  (A uprobe attached for
    // one pid follows that one thread only, so the filter is here.)
    ir::Node* pid = make(ir::Op::builtin, ir::Type::long_);
    pid->s = "pid";
    ir::Node* same = make(ir::Op::eq, ir::Type::long_);
    same->kids = {pid, num(probe.target_pid)};
    ir::Node* guarded = make(ir::Op::if_);
    guarded->kids = {same, body, nop()};
    body = make(ir::Op::block);
    body->kids.push_back(guarded);
  }
  probe.body = body;
  body_ = nullptr;
  finish_entry_values(probe);  // a kfunc .return body's entry probe
  out_.probes.push_back(std::move(probe));
}

bool Lowerer::run() {
  size_t errors = diags_.error_count();
  out_.script_name = options_.script_name;
  out_.limits = options_.limits;
  lower_globals();
  collect_histograms();
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
