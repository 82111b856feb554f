// Entry values of .return probes of kernel functions and of process
// functions: @entry(expr), and every target variable but $return/$$return,
// which stap reads at the function's entry too (its "saved return"
// expansion: a parameter's register is long overwritten when the function
// returns).
//
// For each .return body that reads one, lowering adds an entry probe
// (ProbeKind::kfunc on the same functions, or ProbeKind::uprobe at the
// same site: the return site is the function's probe address, where its
// parameters are in place; is_return = false) whose body
// stores each value in a hidden global array keyed by tid(); the return
// body starts by moving each value into a local and deleting the element,
// and reads the local where the expression was.  A thread is in one call
// of a function at a time except when the function recurses: a recursive
// call's entry overwrites the outer call's values, so the outer return
// sees the inner call's entry values (the known limit of keying by tid;
// stap's own kretprobe data is per call).  A return without its entry
// (the probe started in between) reads 0 or "".
#include "debuginfo/process_points.h"
#include "elaborate/typecheck.h"
#include "lower/kfunc_target.h"

namespace stap::lower {

namespace {

ir::Node* tid(Lowerer& l) {
  ir::Node* n = l.make(ir::Op::builtin, ir::Type::long_);
  n->s = "tid";
  return n;
}

ir::Node* statement(Lowerer& l, ir::Node* value) {
  ir::Node* st = l.make(ir::Op::expr);
  st->kids = {value};
  return st;
}

}  // namespace

namespace {

// The uprobe entry probe of a process .return probe: at the function's
// probe address, where the parameters are in place (after the prologue of
// unoptimized code), not at the return site's first instruction.
void uprobe_entry(EntryValues& e, const ir::Probe& ret, const BodyState& from) {
  ir::Probe& p = e.probe;
  BodyState& s = e.state;
  const debuginfo::ProbeSite& site = *from.uprobe_site;
  const debuginfo::Binary& bin = *from.uprobe_point->binary;
  e.site = std::make_shared<debuginfo::ProbeSite>(site);
  if (bin.dwarf && site.fn && !site.fn->inlined) {
    uint64_t pc = bin.dwarf->function_probe_pc(*site.fn);
    if (std::optional<uint64_t> offset = bin.elf->file_offset(pc)) {
      e.site->pc = pc;
      e.site->offset = *offset;
    }
  }
  p.kind = ir::ProbeKind::uprobe;
  p.context = ir::Context::kernel;
  p.binary = ret.binary;
  p.target_pid = ret.target_pid;
  p.offsets = {e.site->offset};
  p.semaphores = ret.semaphores;
  p.functions = ret.functions;
  p.site_points = ret.site_points;
  p.is_return = false;
  p.pp = ret.pp;
  if (p.pp.ends_with(".return")) p.pp.resize(p.pp.size() - 7);
  s.context = ir::Context::kernel;
  s.slots = &p.slots;
  s.uprobe_probe = &p;
  s.uprobe_point = from.uprobe_point;
  s.uprobe_site = e.site.get();
}

}  // namespace

bool Lowerer::return_body() const {
  if (kfunc_body()) return body_->kfunc_return;
  return uprobe_body() && body_->uprobe_probe->is_return && body_->uprobe_site &&
         body_->uprobe_site->fn;
}

ir::Node* Lowerer::entry_value(ast::Expr& e, bool any_type) {
  auto* target_symbol = dynamic_cast<ast::TargetSymbol*>(&e);
  return entry_node([&] { return target_symbol ? target(*target_symbol, any_type) : expr(&e); });
}

ir::Node* Lowerer::entry_node(const std::function<ir::Node*()>& make_value) {
  if (!entry_ && uprobe_body()) {
    entry_.emplace();
    uprobe_entry(*entry_, *body_->uprobe_probe, *body_);
  }
  if (!entry_) {
    const ir::Probe& ret = *body_->kfunc_probe;
    entry_.emplace();
    ir::Probe& p = entry_->probe;
    p.kind = ir::ProbeKind::kfunc;
    p.context = ir::Context::kernel;
    p.functions = ret.functions;
    p.offsets = ret.offsets;  // placed from DWARF: the function's entry (offset 0)
    p.module = ret.module;
    p.arg_count = ret.arg_count;
    p.is_return = false;
    p.pp = ret.pp;
    if (p.pp.ends_with(".return")) p.pp.resize(p.pp.size() - 7);
    BodyState& s = entry_->state;
    s.context = ir::Context::kernel;
    s.slots = &p.slots;
    s.kfunc = body_->kfunc;
    s.kfunc_return = false;
    s.kfunc_probe = &p;
    s.kfunc_point = body_->kfunc_point;
    s.uprobe_point = body_->uprobe_point;
    s.uprobe_site = body_->uprobe_site;
  }
  BodyState* saved = body_;
  body_ = &entry_->state;
  ir::Node* value = make_value();
  body_ = saved;
  ir::Type t = value->type == ir::Type::string ? ir::Type::string : ir::Type::long_;
  ir::Global g;
  g.name = "__entry_value_" + std::to_string(out_.globals.size());
  g.type = t;
  g.keys = {ir::Type::long_};
  int global = hidden_global(std::move(g));
  int slot = add_temp(t);
  entry_->saves.push_back({global, slot, value});
  ir::Node* read = make(ir::Op::local, t);
  read->a = slot;
  return read;
}

// @entry(expr) in a .return probe of a kernel or process function.
ir::Node* Lowerer::at_entry(ast::AtOp& n) {
  if (!body_ || !return_body() || n.operands.size() != 1) return nullptr;
  return entry_value(*n.operands[0], false);
}

void Lowerer::finish_entry_values(ir::Probe& probe) {
  if (!entry_) return;
  ir::Node* save = make(ir::Op::block);
  ir::Node* body = make(ir::Op::block);
  for (const EntryValues::Save& s : entry_->saves) {
    ir::Node* set = make(ir::Op::set_elem, s.value->type);
    set->a = s.global;
    set->kids = {tid(*this), s.value};
    save->kids.push_back(statement(*this, set));
    ir::Node* get = make(ir::Op::elem, out_.globals[s.global].type);
    get->a = s.global;
    get->kids = {tid(*this)};
    ir::Node* keep = make(ir::Op::set_local, get->type);
    keep->a = s.slot;
    keep->kids = {get};
    body->kids.push_back(statement(*this, keep));
    ir::Node* del = make(ir::Op::delete_elem);
    del->a = s.global;
    del->kids = {tid(*this)};
    body->kids.push_back(del);
  }
  body->kids.push_back(probe.body);
  probe.body = body;
  entry_->probe.body = save;
  out_.probes.push_back(std::move(entry_->probe));
  entry_.reset();
}

}  // namespace stap::lower
