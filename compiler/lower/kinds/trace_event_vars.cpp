// Target variables of kernel.trace probes, read from the event's record as
// its tracefs format lays it out:
//   $f of an integer or pointer field   tp_field (size 1/2/4/8, signedness from the format)
//   $f of `char f[N]`                   tp_chars   (a string)
//   $f of `__data_loc char[] f`         tp_dataloc (a string)
//   $f[i] of another fixed array        tp_field at offset + i * element size
//   $$vars, $$parms                     "f1=0x.. f2=\"str\" ..." built by sprintf
//   $$name, $$system                    the event's name and system
// The common_* fields (type, flags, preempt count, pid of the record
// header) are not script variables: stap's own BPF back end lists only the
// event's fields for kernel.trace (stap -L), and pid() and friends give the
// same facts.
#include "elaborate/typecheck.h"
#include "lower/kinds/trace_event.h"

namespace stap::lower {

namespace {

bool visible(const tracefs::Field& f) { return !f.is_common(); }

bool readable_as_string(const tracefs::Field& f) {
  return f.is_string && (f.is_data_loc || f.array_length > 0);
}

bool readable_as_long(const tracefs::Field& f) {
  return !f.is_data_loc && f.array_length < 0 &&
         (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8);
}

std::string describe_field(const tracefs::Field& f) {
  if (f.is_data_loc) return f.type + " " + f.name;
  if (f.array_length >= 0)
    return f.type + " " + f.name + "[" + (f.array_length ? std::to_string(f.array_length) : "") +
           "]";
  return f.type + " " + f.name;
}

}  // namespace

std::optional<bool> TraceEventBody::target_exists(const ast::Expr& e) {
  auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
  if (!event_ || !t) return std::nullopt;
  if (t->name.starts_with("$$"))
    return t->name == "$$vars" || t->name == "$$parms" || t->name == "$$locals" ||
           t->name == "$$name" || t->name == "$$system";
  const tracefs::Format* owner = nullptr;
  const tracefs::Field* f = syscall_field(t->name.substr(1), owner);
  return f && visible(*f);
}

ir::Node* TraceEventBody::target(ast::TargetSymbol& n, bool any_type) {
  const tracefs::Format* event = event_;
  if (!event) return BodyContext::target(n, any_type);  // its format could not be read
  std::string token = describe_expr(n);
  if (n.address_of) {
    l_.error(n.loc, "the address of a tracepoint field cannot be taken", token);
    return l_.num(0);
  }
  if (n.name == "$$name") return l_.str(event->name);
  if (n.name == "$$system") return l_.str(event->system);
  if (n.name == "$$locals") return l_.str("");
  if (n.name == "$$vars" || n.name == "$$parms") return all_fields(*event, n);
  const tracefs::Format* owner = event;
  const tracefs::Field* f = syscall_field(n.name.substr(1), owner);
  if (!f || !visible(*f) || n.name.starts_with("$$")) {
    std::string alternatives = "$$parms, $$vars";
    for (const tracefs::Field& g : event->fields)
      if (visible(g)) alternatives += ", $" + g.name;
    if (syscall_exit_) alternatives += ", $return";
    if (entry_event_ && syscall_raw_)
      for (const tracefs::Field& g : entry_event_->fields)
        if (visible(g) && !event->find(g.name)) alternatives += ", $" + g.name;
    alternatives += ", $$name, $$system";
    l_.error(n.loc, "unable to find tracepoint variable '" + n.name + "' (alternatives: " +
                     alternatives + ")",
          token);
    return l_.num(0);
  }
  ir::Node* read = syscall_read(field_read(*f, n), *f, *owner, n);
  if (!read) return l_.num(0);
  ir::Type wanted = ir_type(n.type);
  if (n.pretty) return pretty(read);
  if (!any_type && wanted != ir::Type::none && wanted != read->type) {
    l_.error(n.loc, std::string("type mismatch: tracepoint field '") + n.name + "' (" +
                     describe_field(*f) + ") is a " + ir::type_name(read->type) +
                     ", used here as a " + ir::type_name(wanted),
          token);
  }
  return read;
}

// One field read, or null after an error.
ir::Node* TraceEventBody::field_read(const tracefs::Field& f, const ast::TargetSymbol& n) {
  std::string token = describe_expr(n);
  if (!n.components.empty()) {
    const ast::TargetComponent& c = n.components[0];
    bool indexable = f.array_length > 0 && !f.is_data_loc;
    if (!indexable || n.components.size() != 1 ||
        c.kind != ast::TargetComponent::Kind::literal_index) {
      l_.error(c.loc.valid() ? c.loc : n.loc,
            "field '" + n.name + "' (" + describe_field(f) +
                ") takes no member access; a fixed array takes one literal index",
            token);
      return nullptr;
    }
    uint32_t elem = f.size / static_cast<uint32_t>(f.array_length);
    if (c.index < 0 || c.index >= f.array_length || !(elem == 1 || elem == 2 || elem == 4 || elem == 8)) {
      l_.error(c.loc.valid() ? c.loc : n.loc,
            "index " + std::to_string(c.index) + " is outside field '" + n.name + "' (" +
                describe_field(f) + ")",
            token);
      return nullptr;
    }
    ir::Node* read = l_.make(ir::Op::tp_field, ir::Type::long_);
    read->a = f.offset + static_cast<int64_t>(c.index) * elem;
    read->b = elem;
    read->c = f.is_signed ? 1 : 0;
    return read;
  }
  if (f.is_data_loc && f.is_string) {
    ir::Node* read = l_.make(ir::Op::tp_dataloc, ir::Type::string);
    read->a = f.offset;
    return read;
  }
  if (readable_as_string(f)) {
    ir::Node* read = l_.make(ir::Op::tp_chars, ir::Type::string);
    read->a = f.offset;
    read->b = f.array_length;
    return read;
  }
  if (readable_as_long(f)) {
    ir::Node* read = l_.make(ir::Op::tp_field, ir::Type::long_);
    read->a = f.offset;
    read->b = f.size;
    read->c = f.is_signed ? 1 : 0;
    return read;
  }
  l_.limitation(n.loc, "field '" + n.name + "' (" + describe_field(f) +
                   ") cannot be read as a whole: index an element of a fixed array ($" + f.name +
                   "[0]); variable-length arrays are not supported yet",
        token);
  return nullptr;
}

// $f$: the value as $$vars shows it.
ir::Node* TraceEventBody::pretty(ir::Node* read) {
  ir::Node* node = l_.make(ir::Op::sprintf, ir::Type::string);
  node->a = l_.module().add_format(read->type == ir::Type::string ? "\"%s\"" : "%#x");
  node->kids = {read};
  return node;
}

// "dfd=0xffffff9c filename=0x7ffd... flags=0x0 mode=0x0": every field a
// script can read whole, as stap's $$vars shows tracepoint fields.
ir::Node* TraceEventBody::all_fields(const tracefs::Format& event, const ast::TargetSymbol& n) {
  ir::Node* node = l_.make(ir::Op::sprintf, ir::Type::string);
  std::string format;
  for (const tracefs::Field& f : event.fields) {
    if (!visible(f)) continue;
    ir::Node* read = nullptr;
    if (readable_as_string(f) || readable_as_long(f)) {
      ast::TargetSymbol whole;
      whole.name = "$" + f.name;
      whole.loc = n.loc;
      read = syscall_read(field_read(f, whole), f, event, whole);
    }
    // Arrays other than strings have no one value to show; they are left
    // out rather than shown wrongly.
    if (!read) continue;
    if (!format.empty()) format += ' ';
    format += f.name + (read->type == ir::Type::string ? "=\"%s\"" : "=%#x");
    node->kids.push_back(read);
  }
  node->a = l_.module().add_format(format);
  return node;
}

}  // namespace stap::lower
