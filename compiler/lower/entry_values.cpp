// Entry values of .return probes of kernel functions and of process
// functions: @entry(expr), and every target variable but $return/$$return,
// which stap reads at the function's entry too (its "saved return"
// expansion: a parameter's register is long overwritten when the function
// returns).
//
// For each .return body that reads one, lowering adds an entry probe (its
// kind's BodyContext::entry_probe(): a KfuncSpec on the same functions, or
// a UprobeSpec at the function's probe address, where its parameters are
// in place; is_return = false) whose body
// stores each value in a hidden global array keyed by tid(); the return
// body starts by moving each value into a local and deleting the element,
// and reads the local where the expression was.  A thread is in one call
// of a function at a time except when the function recurses: a recursive
// call's entry overwrites the outer call's values, so the outer return
// sees the inner call's entry values (the known limit of keying by tid;
// stap's own kretprobe data is per call).  A return without its entry
// (the probe started in between) reads 0 or "".
#include "elaborate/typecheck.h"
#include "lower/target_path.h"

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

ir::Node* Lowerer::entry_value(ast::Expr& e, bool any_type) {
  auto* target_symbol = dynamic_cast<ast::TargetSymbol*>(&e);
  return entry_node([&] { return target_symbol ? target(*target_symbol, any_type) : expr(&e); });
}

ir::Node* Lowerer::entry_node(const std::function<ir::Node*()>& make_value) {
  if (!entry_) {
    entry_ = context().entry_probe(*current_probe_);
    if (!entry_) return make_value();  // cannot happen: only return bodies ask
    entry_state_ = BodyState();
    entry_state_.context = entry_->probe.context;
    entry_state_.slots = &entry_->probe.slots;
    entry_state_.kind = entry_->context.get();
  }
  BodyState* saved = body_;
  body_ = &entry_state_;
  ir::Node* value = make_value();
  body_ = saved;
  ir::Type t = value->type == ir::Type::string ? ir::Type::string : ir::Type::long_;
  ir::Global g;
  g.name = "__entry_value_" + std::to_string(out_.globals.size());
  g.type = t;
  g.keys = {ir::Type::long_};
  int global = hidden_global(std::move(g));
  int slot = add_temp(t);
  entry_saves_.push_back({global, slot, value});
  ir::Node* read = make(ir::Op::local, t);
  read->a = slot;
  return read;
}

// @entry(expr) in a .return probe of a kernel or process function.
ir::Node* Lowerer::at_entry(ast::AtOp& n) {
  if (!body_ || !context().at_return() || n.operands.size() != 1) return nullptr;
  return entry_value(*n.operands[0], false);
}

void Lowerer::finish_entry_values(ir::Probe& probe) {
  if (!entry_) return;
  ir::Node* save = make(ir::Op::block);
  ir::Node* body = make(ir::Op::block);
  for (const EntrySave& s : entry_saves_) {
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
  entry_saves_.clear();
}

}  // namespace stap::lower
