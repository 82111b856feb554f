// Pretty-printed target variables (kernel functions, DWARF variables,
// @cast), as stap
// 4.8 prints them (tapsets.cxx, dwarf_pretty_print and
// visit_target_symbol_context):
//   $$parms    "file=0xffff... buf=0x7ffd... count=0x83 pos=0xffff..."
//              ("name={...}" for a struct passed by value, "name=[...]"
//              for an array, "name=?" for what cannot be read)
//   $$vars     $$parms and the locals; BTF has no locals (they live in
//              DWARF only), so without debuginfo it is $$parms
//   $$locals   "" for the same reason
//   $$return   "return=0x..." ("" for a void function)
//   $$parms$   each parameter as $name$ shows it
//   $x$, $x$$  the value by its type: integers %i/%u, chars '%#c', char
//              pointers and arrays as quoted strings, a struct as
//              "{.a=1, .b={...}, .p=0x...}" (members' structs and arrays
//              expanded only with $$, pointers followed only at the top),
//              at most 32 values, the rest "...".
// A pretty-printed value is a call of a synthesized function whose body is
// try { return sprintf(...) } catch { return "ERROR" }, as stap builds it:
// a fault anywhere in it makes the whole value "ERROR".
#include "elaborate/typecheck.h"
#include "lower/target_path.h"

namespace stap::lower {

namespace {

constexpr size_t kMaxValues = 32;  // stap's limit per pretty-printed value (PR10750)
// Values one sprintf takes in kernel context (codegen/emit_builtins.cpp);
// a longer value is a concatenation of sprintfs.
constexpr size_t kSprintfValues = 12;

ir::Node* local(Lowerer& l, int slot, ir::Type t) {
  ir::Node* n = l.make(ir::Op::local, t);
  n->a = slot;
  return n;
}

ir::Node* ret(Lowerer& l, ir::Node* value) {
  ir::Node* n = l.make(ir::Op::ret);
  n->kids = {value};
  return n;
}

ir::Node* builtin(Lowerer& l, const char* name, ir::Type t, std::vector<ir::Node*> args,
                  uint32_t loc) {
  ir::Node* n = l.make(ir::Op::builtin, t);
  n->s = name;
  n->kids = std::move(args);
  n->loc = loc;
  return n;
}

// try { return TRY } catch { return CATCH }
ir::Node* try_return(Lowerer& l, ir::Node* tried, ir::Node* caught) {
  ir::Node* t = l.make(ir::Op::try_);
  t->a = -1;
  t->kids = {ret(l, tried), ret(l, caught)};
  return t;
}

// A synthesized function of one long parameter returning a string.
int add_function(Lowerer& l, std::string name, ir::Node* body) {
  ir::Function fn;
  fn.name = std::move(name);
  fn.ret = ir::Type::string;
  fn.param_count = 1;
  fn.slots = {ir::Type::long_};
  fn.body = body;
  l.module().functions.push_back(std::move(fn));
  return static_cast<int>(l.module().functions.size() - 1);
}

ir::Node* call_function(Lowerer& l, int fn, ir::Node* arg) {
  ir::Node* n = l.make(ir::Op::call, ir::Type::string);
  n->a = fn;
  n->kids = {arg};
  return n;
}

// Builds one pretty value's format and arguments (stap's recurse*).
class Printer {
 public:
  Printer(Lowerer& l, TypePath& path, bool full) : l_(l), path_(path), full_(full) {}

  // The text: sprintf(...) . sprintf(...), each of at most kSprintfValues.
  ir::Node* text() {
    chunks_.emplace_back(std::move(format_), std::move(args_));
    ir::Node* out = nullptr;
    for (auto& [format, args] : chunks_) {
      ir::Node* part = l_.make(ir::Op::sprintf, ir::Type::string);
      part->a = l_.module().add_format(format);
      part->kids = std::move(args);
      if (!out) {
        out = part;
        continue;
      }
      ir::Node* both = l_.make(ir::Op::concat, ir::Type::string);
      both->kids = {out, part};
      out = both;
    }
    return out;
  }

  void recurse(const Place& p, bool top) {
    TType t = types::strip(p.type);
    switch (types::kind(t)) {
      case TypeKind::integer:
      case TypeKind::enum_: base(p, t); return;
      case TypeKind::pointer: pointer(p, t, top); return;
      case TypeKind::array: array(p, t, top); return;
      case TypeKind::struct_:
      case TypeKind::union_: aggregate(p, t, top); return;
      case TypeKind::func_proto: push("<function>:%p", p); return;
      default: format_ += "?"; return;
    }
  }

 private:
  // One value read for `fmt`, or "?" when it cannot be read.
  bool push(const std::string& fmt, const Place& p) {
    TypePath quiet(l_, path_.loc(), path_.token(), true);
    ir::Node* v = quiet.value(p);
    if (!v) {
      format_ += "?";
      return false;
    }
    if (args_.size() == kSprintfValues) {
      chunks_.emplace_back(std::move(format_), std::move(args_));
      format_.clear();
      args_.clear();
    }
    format_ += fmt;
    args_.push_back(v);
    ++values_;
    return true;
  }
  void base(const Place& p, TType t) {
    if (p.bit_size) push(types::is_signed(t) ? "%i" : "%u", p);  // always numbers
    else if (types::is_char(t) && push("%s", p))  // stap's '%#c'
      args_.back() = call_function(l_, l_.quoted_char_function(), args_.back());
    else if (types::kind(t) == TypeKind::enum_) push("%i", p);
    else push(types::is_signed(t) ? "%i" : "%u", p);
  }
  // char* and char[]: the string, quoted (a kernel type's from kernel
  // memory, else user memory; a user type's from user memory).
  bool chars(const Place& p, TType elem) {
    if (!types::is_char(types::strip(elem)) || types::kind(types::strip(elem)) != TypeKind::integer)
      return false;
    if (push("%s", p))
      args_.back() = call_function(l_, l_.quoted_string_function(elem.user()), args_.back());
    return true;
  }
  void pointer(const Place& p, TType t, bool top) {
    TType to = types::pointee(t);
    if (!to.is_void()) {
      if (chars(p, to)) return;
      if (top) {
        ir::Node* target = path_.pointer_value(p);
        recurse(Place{to, nullptr, target}, true);
        return;
      }
    }
    push("%p", p);
  }
  void array(const Place& p, TType t, bool top) {
    if (!top && !full_) {
      format_ += "[...]";
      return;
    }
    TType elem = types::element(t);
    if (chars(p, elem)) return;
    // stap prints the first element only, whatever the length.
    format_ += "[";
    Place first = p;
    first.type = elem;
    recurse(first, false);
    format_ += ", ...]";
  }
  void aggregate(const Place& p, TType t, bool top) {
    format_ += "{";
    if (top || full_) {
      int count = 0;
      members(p, t, count);
    } else {
      format_ += "...";
    }
    format_ += "}";
  }
  void members(const Place& p, TType t, int& count) {
    for (const TMember& m : types::members(t)) {
      if (++count > 1) format_ += ", ";
      if (values_ >= kMaxValues) {
        format_ += "...";
        return;
      }
      if (!m.name.empty()) format_ += "." + m.name;
      else if (types::kind(m.type) == TypeKind::union_) format_ += "<union>";
      else format_ += "<class>";  // stap's words for an anonymous struct
      format_ += "=";
      recurse(path_.member_place(p, m), false);
    }
  }

  Lowerer& l_;
  TypePath& path_;
  bool full_;
  std::string format_;
  std::vector<ir::Node*> args_;
  std::vector<std::pair<std::string, std::vector<ir::Node*>>> chunks_;
  size_t values_ = 0;
};

}  // namespace

int Lowerer::quoted_string_function(bool user) {
  int& fn = user ? quoted_user_string_fn_ : quoted_string_fn_;
  if (fn >= 0) return fn;
  uint32_t site = location(SourceLoc{}, "pretty-printed string");
  ir::Node* addr = local(*this, 0, ir::Type::long_);
  auto quoted = [&](const char* reader) {
    return builtin(*this, "string_quoted", ir::Type::string,
                   {builtin(*this, reader, ir::Type::string, {addr}, site)}, 0);
  };
  if (user) {
    // stap's user_string_quoted(addr); a fault makes the value "ERROR".
    fn = add_function(*this, "__user_string_quoted", ret(*this, quoted("user_string")));
    return fn;
  }
  // stap's kernel_or_user_string_quoted(addr).
  ir::Node* kernel = quoted("kernel_string");
  fn = add_function(*this, "__kernel_or_user_string_quoted",
                    try_return(*this, kernel, quoted("user_string")));
  return fn;
}

// stap's "'%#c'": the character quoted, C escapes or octal for the
// unprintable ones (runtime/vsprintf.c), built here because kernel-context
// sprintf has no '#' on %c.
int Lowerer::quoted_char_function() {
  if (quoted_char_fn_ >= 0) return quoted_char_fn_;
  auto c = [&] {
    ir::Node* n = make(ir::Op::bit_and, ir::Type::long_);
    n->kids = {local(*this, 0, ir::Type::long_), num(255)};
    return n;
  };
  auto op = [&](ir::Op o, ir::Node* a, ir::Node* b) {
    ir::Node* n = make(o, ir::Type::long_);
    n->kids = {a, b};
    return n;
  };
  auto text = [&](const std::string& format, std::vector<ir::Node*> args) {
    ir::Node* n = make(ir::Op::sprintf, ir::Type::string);
    n->a = module().add_format(format);
    n->kids = std::move(args);
    return n;
  };
  auto when = [&](ir::Node* cond, ir::Node* value) {
    ir::Node* n = make(ir::Op::if_);
    n->kids = {cond, ret(*this, value), nop()};
    return n;
  };
  ir::Node* body = make(ir::Op::block);
  ir::Node* in_range =
      op(ir::Op::log_and, op(ir::Op::ge, c(), num(32)), op(ir::Op::le, c(), num(126)));
  ir::Node* plain =
      op(ir::Op::log_and, op(ir::Op::ne, c(), num('\'')), op(ir::Op::ne, c(), num('\\')));
  body->kids.push_back(when(op(ir::Op::log_and, in_range, plain), text("'%c'", {c()})));
  const std::pair<int, const char*> escapes[] = {{'\a', "a"}, {'\b', "b"},  {'\f', "f"},
                                                 {'\n', "n"}, {'\r', "r"},  {'\t', "t"},
                                                 {'\v', "v"}, {'\'', "'"}, {'\\', "\\"}};
  for (auto [value, letter] : escapes) {
    ir::Node* quoted = str(std::string("'\\") + letter + "'");
    body->kids.push_back(when(op(ir::Op::eq, c(), num(value)), quoted));
  }
  ir::Node* high = op(ir::Op::shr, c(), num(6));
  ir::Node* middle = op(ir::Op::bit_and, op(ir::Op::shr, c(), num(3)), num(7));
  ir::Node* low = op(ir::Op::bit_and, c(), num(7));
  body->kids.push_back(ret(*this, text("'\\%d%d%d'", {high, middle, low})));
  quoted_char_fn_ = add_function(*this, "__quoted_char", body);
  return quoted_char_fn_;
}

ir::Node* Lowerer::pretty_place(TypePath& path, const Place& p, bool full) {
  // The function takes what the place starts from: the register value or
  // the address (index expressions already evaluated into it).
  ir::Node* arg = p.value ? p.value : p.address;
  Place inner = p;
  if (p.value) inner.value = local(*this, 0, ir::Type::long_);
  else inner.address = local(*this, 0, ir::Type::long_);
  Printer printer(*this, path, full);
  printer.recurse(inner, true);
  ir::Node* text = printer.text();
  int fn = add_function(*this, "__pretty_print_" + std::to_string(module().functions.size()),
                        try_return(*this, text, str("ERROR")));
  return call_function(*this, fn, arg);
}

ir::Node* vars_text(Lowerer& l, const ast::TargetSymbol& n, const std::vector<NamedVar>& vars,
                    const std::function<bool(const NamedVar&, Place&)>& base) {
  bool pretty = n.pretty > 0;
  ir::Node* out = l.make(ir::Op::sprintf, ir::Type::string);
  std::string format;
  for (const NamedVar& var : vars) {
    if (!format.empty()) format += ' ';
    format += var.name;
    TypeKind k = types::kind(var.type);
    // stap's placeholders for aggregates ($$return has none).
    if (!pretty && n.name != "$$return" && (k == TypeKind::struct_ || k == TypeKind::union_ || k == TypeKind::array)) {
      format += k == TypeKind::array ? "=[...]" : "={...}";
      continue;
    }
    Place p;
    ir::Node* v = nullptr;
    if (base(var, p)) {
      TypePath path(l, n.loc, describe_expr(n), true);
      v = pretty ? l.pretty_place(path, p, n.pretty > 1) : path.value(p);
    }
    if (!v) {
      format += "=?";
      continue;
    }
    format += pretty ? "=%s" : "=%#x";
    out->kids.push_back(v);
  }
  out->a = l.module().add_format(format);
  return out;
}

}  // namespace stap::lower
