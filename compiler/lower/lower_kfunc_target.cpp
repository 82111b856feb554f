// Target variables of kernel-function probes, from BTF (no debuginfo):
//   $param                fn_arg of its index, sized and signed as BTF says
//   $return               fn_ret (return probes)
//   $p->f->g, $p->a[i]    each pointer gone through is one kread; '->'
//                         also steps into embedded structs and unions, as
//                         in stap; [i] indexes arrays and pointers
//   &$p->f                the address, with nothing read
//   bitfields             the containing unit read, shifted, masked and
//                         sign-extended when the type is signed
//   char arrays           their address (a long, for kernel_string)
// and @cast(p, "type"[, "module"]) in any kernel-context body, @var,
// @defined over these.  Errors use stap's words (dwflpp.cxx).
#include "base/edit_distance.h"
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "elaborate/typecheck.h"
#include "lower/kfunc_target.h"

namespace stap::lower {

using kernel::KernelBtf;
using kernel::TypeKind;

namespace {


// stap's levenshtein_suggest: the candidates nearest first (ties in name
// order), at most `max`, joined by ", ".
std::string suggest(const std::string& word, const std::set<std::string>& candidates,
                    size_t max = SIZE_MAX) {
  std::vector<std::pair<size_t, std::string>> near;
  for (const std::string& c : candidates)
    if (!c.empty()) near.emplace_back(edit_distance(word, c), c);
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (size_t i = 0; i < near.size() && i < max; ++i) out += (i ? ", " : "") + near[i].second;
  return out;
}

// Member names as stap lists them: anonymous members' members included.
void member_names(kernel::Type t, std::set<std::string>& out) {
  for (const kernel::Member& m : KernelBtf::members(t)) {
    if (!m.name.empty()) out.insert(m.name);
    else member_names(m.type, out);
  }
}

bool is_aggregate(TypeKind k) { return k == TypeKind::struct_ || k == TypeKind::union_; }

ir::Node* binary(Lowerer& l, ir::Op op, ir::Node* a, ir::Node* b) {
  ir::Node* n = l.make(op, ir::Type::long_);
  n->kids = {a, b};
  return n;
}

}  // namespace

// ---------------------------------------------------------------- helpers

ir::Node* add_offset(Lowerer& l, ir::Node* address, int64_t k) {
  if (k == 0) return address;
  if (address->op == ir::Op::num) return l.num(address->a + k);
  if (address->op == ir::Op::add && address->kids[1]->op == ir::Op::num)
    return binary(l, ir::Op::add, address->kids[0], l.num(address->kids[1]->a + k));
  return binary(l, ir::Op::add, address, l.num(k));
}

uint32_t register_size(kernel::Type t) {
  TypeKind k = KernelBtf::kind(t);
  if (k == TypeKind::pointer) return 8;
  if (k != TypeKind::integer && k != TypeKind::enum_) return 0;
  uint32_t size = KernelBtf::size(t);
  return size == 1 || size == 2 || size == 4 || size == 8 ? size : 0;
}

std::string component_text(const ast::TargetComponent& c) {
  switch (c.kind) {
    case ast::TargetComponent::Kind::field: return "->" + c.field;
    case ast::TargetComponent::Kind::literal_index: return "[" + std::to_string(c.index) + "]";
    case ast::TargetComponent::Kind::expr_index: break;
  }
  if (auto* s = dynamic_cast<const ast::Symbol*>(c.index_expr)) return "[" + s->name + "]";
  if (auto* t = dynamic_cast<const ast::TargetSymbol*>(c.index_expr)) return "[" + t->name + "]";
  return "[...]";
}

std::string type_text(kernel::Type t) { return KernelBtf::name(t); }

// ---------------------------------------------------------------- TypePath

TypePath::TypePath(Lowerer& l, SourceLoc loc, std::string token, bool quiet)
    : l_(l), loc_(loc), token_(std::move(token)), quiet_(quiet) {}

void TypePath::fail(SourceLoc loc, const std::string& message, const std::string& token) {
  if (!failed_ && !quiet_)
    l_.error(loc.valid() ? loc : loc_, message, token.empty() ? token_ : token);
  failed_ = true;
}

ir::Node* TypePath::read(ir::Node* address, uint32_t size, bool is_signed) {
  if (!site_) site_ = l_.location(loc_, token_);
  ir::Node* n = l_.make(ir::Op::kread, ir::Type::long_);
  n->kids = {address};
  n->b = size;
  n->c = is_signed ? 1 : 0;
  n->loc = site_;
  return n;
}

bool TypePath::walk(Place& p, const std::vector<ast::TargetComponent>& comps, size_t first) {
  for (size_t i = first; i < comps.size() && !failed_; ++i) {
    const ast::TargetComponent& c = comps[i];
    std::string shown = component_text(c);
    std::string token = c.kind == ast::TargetComponent::Kind::field
                            ? "identifier '" + c.field + "'"
                            : std::string("operator '['");
    if (c.kind == ast::TargetComponent::Kind::field) {
      member(p, c.field, c.loc, token);
      continue;
    }
    ir::Node* idx = c.kind == ast::TargetComponent::Kind::literal_index ? l_.num(c.index)
                                                                          : l_.expr(c.index_expr);
    index(p, idx, c.loc, token);
  }
  return !failed_;
}

ir::Node* TypePath::pointer_value(const Place& p) {
  if (p.value) return p.value;
  return read(p.address, 8, false);
}

bool TypePath::member(Place& p, const std::string& field, SourceLoc loc, const std::string& token) {
  std::string shown = "->" + field;
  for (;;) {
    kernel::Type t = KernelBtf::strip(p.type);
    TypeKind k = KernelBtf::kind(t);
    if (k == TypeKind::pointer) {
      kernel::Type to = KernelBtf::pointee(p.type);
      if (to.id == 0) {
        fail(loc, "invalid access '" + shown + "' vs '" + type_text(t) + "'", token);
        return false;
      }
      p = Place{to, nullptr, pointer_value(p)};
      continue;
    }
    if (k == TypeKind::array) {
      fail(loc, "invalid access '" + shown + "' for array type", token);
      return false;
    }
    if (!is_aggregate(k)) {
      // A forward declaration BTF never completed is "other".
      fail(loc, k == TypeKind::other ? "unresolved " + type_text(t)
                                     : "invalid access '" + shown + "' vs. " + type_text(t),
           token);
      return false;
    }
    std::optional<kernel::Member> m = KernelBtf::member(t, field);
    if (!m) {
      std::set<std::string> names;
      member_names(t, names);
      std::string sugs = suggest(field, names);
      fail(loc, "unable to find member '" + field + "' for " + type_text(t) +
                    (sugs.empty() ? "" : " (alternatives: " + sugs + ")"),
           token);
      return false;
    }
    if (!p.address) {
      fail(loc, "cannot access a member of " + type_text(t) + " held in a register", token);
      return false;
    }
    p = member_place(p, *m);
    return true;
  }
}

Place TypePath::member_place(const Place& p, const kernel::Member& m) {
  Place out;
  out.type = m.type;
  if (m.bitfield_size) {
    out.address = p.address;
    out.bit_offset = p.bit_offset + m.bit_offset;
    out.bit_size = m.bitfield_size;
    return out;
  }
  out.address = add_offset(l_, p.address, (p.bit_offset + m.bit_offset) / 8);
  return out;
}

bool TypePath::index(Place& p, ir::Node* idx, SourceLoc loc, const std::string& token) {
  kernel::Type t = KernelBtf::strip(p.type);
  TypeKind k = KernelBtf::kind(t);
  std::string shown = "[...]";
  if (idx->op == ir::Op::num) shown = "[" + std::to_string(idx->a) + "]";
  kernel::Type elem;
  ir::Node* base = nullptr;
  if (k == TypeKind::pointer) {
    elem = KernelBtf::pointee(p.type);
    if (elem.id == 0) {
      fail(loc, "invalid access '" + shown + "' vs '" + type_text(t) + "'", token);
      return false;
    }
    base = pointer_value(p);
  } else if (k == TypeKind::array) {
    elem = KernelBtf::element(t);
    base = p.address;
    if (!base) {
      fail(loc, "cannot index an array held in a register", token);
      return false;
    }
  } else {
    fail(loc, is_aggregate(k) ? "invalid access '" + shown + "' for " + type_text(t)
                              : "invalid access '" + shown + "' vs. " + type_text(t),
         token);
    return false;
  }
  int64_t size = KernelBtf::size(elem);
  if (size == 0) {
    fail(loc, "invalid access '" + shown + "' vs '" + type_text(t) + "'", token);
    return false;
  }
  Place out;
  out.type = elem;
  if (idx->op == ir::Op::num) out.address = add_offset(l_, base, idx->a * size);
  else out.address = binary(l_, ir::Op::add, base, binary(l_, ir::Op::mul, idx, l_.num(size)));
  p = out;
  return true;
}

ir::Node* TypePath::bitfield(const Place& p, uint32_t size, bool is_signed) {
  // As stap (and C) read a bitfield: the aligned unit of the member's
  // type that holds it, then shift and mask.
  uint32_t unit_byte = (p.bit_offset / 8) / size * size;
  uint32_t shift = p.bit_offset - 8 * unit_byte;
  ir::Node* word = read(add_offset(l_, p.address, unit_byte), size, false);
  if (is_signed) {
    ir::Node* up = binary(l_, ir::Op::shl, word, l_.num(64 - shift - p.bit_size));
    return binary(l_, ir::Op::shr, up, l_.num(64 - p.bit_size));
  }
  ir::Node* down = shift ? binary(l_, ir::Op::shr, word, l_.num(shift)) : word;
  int64_t mask = p.bit_size >= 64 ? -1 : static_cast<int64_t>((uint64_t{1} << p.bit_size) - 1);
  return binary(l_, ir::Op::bit_and, down, l_.num(mask));
}

ir::Node* TypePath::value(const Place& p) {
  if (failed_) return nullptr;
  kernel::Type t = KernelBtf::strip(p.type);
  TypeKind k = KernelBtf::kind(t);
  if (is_aggregate(k)) {
    std::set<std::string> names;
    member_names(t, names);
    fail(loc_, "'" + type_text(t) + "' is being accessed instead of a member" +
                   (names.empty() ? "" : " such as '->" + *names.begin() + "'"));
    return nullptr;
  }
  if (p.value) return p.value;
  if (k == TypeKind::array) return p.address;
  uint32_t size = register_size(t);
  if (size == 0) {
    fail(loc_, "unsupported type " + type_text(t) + " for " + token_);
    return nullptr;
  }
  bool is_signed = k != TypeKind::pointer && KernelBtf::is_signed(t);
  if (p.bit_size) return bitfield(p, size, is_signed);
  return read(p.address, size, is_signed);
}

ir::Node* TypePath::address(const Place& p) {
  if (failed_) return nullptr;
  if (p.bit_size) {
    fail(loc_, "cannot take the address of a bit field");
    return nullptr;
  }
  if (!p.address) {
    fail(loc_, "cannot take address of object in register");
    return nullptr;
  }
  return p.address;
}


// ---------------------------------------------------------------- $vars

namespace {

std::string function_text(const kernel::Function& fn) {
  return fn.module.empty() ? fn.name : fn.name + " [" + fn.module + "]";
}

std::set<std::string> param_names(const kernel::Function& fn) {
  std::set<std::string> out;
  for (const kernel::Param& p : fn.params) out.insert(p.name);
  return out;
}

}  // namespace

bool Lowerer::kfunc_body() const {
  return body_ && body_->kfunc_probe;
}

// The register a $name starts from: a parameter or the return value.
bool Lowerer::kfunc_base(const ast::TargetSymbol& n, Place& p, bool quiet) {
  const kernel::Function* fn = body_->kfunc;
  std::string token = describe_expr(n);
  auto fail = [&](const std::string& message) {
    if (!quiet) error(n.loc, message, token);
    return false;
  };
  if (!fn) {
    std::string what = body_->kfunc_probe && body_->kfunc_probe->functions.size() == 1
                           ? "function " + body_->kfunc_probe->functions[0]
                           : std::string("a probe over several functions");
    return fail("target variable '" + n.name + "' cannot be read: " + what +
                " has no BTF type information here (kernels with CONFIG_DEBUG_INFO_BTF "
                "describe their functions; a probe over several functions has no one set "
                "of parameters)");
  }
  std::string name = n.name.substr(1);
  if (name == "return" && body_->kfunc_return) {
    if (fn->ret.id == 0) return fail("function " + function_text(*fn) + " has no return value");
    uint32_t size = register_size(fn->ret);
    if (!size)
      return fail("the return value of " + function_text(*fn) + " (" + type_text(fn->ret) +
                  ") is not returned in a register and cannot be read");
    ir::Node* v = make(ir::Op::fn_ret, ir::Type::long_);
    v->b = size;
    v->c = KernelBtf::kind(fn->ret) != TypeKind::pointer && KernelBtf::is_signed(fn->ret);
    p = Place{fn->ret, v};
    return true;
  }
  for (size_t i = 0; i < fn->params.size(); ++i) {
    const kernel::Param& param = fn->params[i];
    if (param.name != name) continue;
    if (i >= 6)
      return fail("parameter '" + name + "' of " + function_text(*fn) + " is argument " +
                  std::to_string(i + 1) +
                  "; only the first 6 arguments (those passed in registers) can be read");
    uint32_t size = register_size(param.type);
    if (!size)
      return fail("parameter '" + name + "' of " + function_text(*fn) + " is a " +
                  type_text(param.type) +
                  " passed by value, which cannot be read from the argument registers");
    ir::Node* v = make(ir::Op::fn_arg, ir::Type::long_);
    v->a = static_cast<int64_t>(i);
    v->b = size;
    v->c = KernelBtf::kind(param.type) != TypeKind::pointer && KernelBtf::is_signed(param.type);
    p = Place{param.type, v};
    return true;
  }
  std::string sugs = suggest(name, param_names(*fn), 5);
  return fail("unable to find local '" + name + "' in " + function_text(*fn) + " (" +
              (sugs.empty() ? "<no alternatives>" : "alternatives: " + sugs) + ")");
}

// A long where the script wants one; `any_type`: print's arguments.
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

ir::Node* Lowerer::kfunc_target(ast::TargetSymbol& n, bool any_type) {
  bool return_var = n.name == "$return" || n.name == "$$return";
  // stap reads every other target variable of a .return probe at entry
  // and keeps it for the return.
  if (body_->kfunc_return && !return_var && body_->kfunc) return entry_value(n, any_type);
  if (n.name.starts_with("$$")) return kfunc_all_vars(n);
  Place p;
  if (!kfunc_base(n, p, false)) return num(0);
  TypePath path(*this, n.loc, describe_expr(n));
  if (!path.walk(p, n.components)) return num(0);
  if (n.pretty) return pretty_place(path, p, n.pretty > 1);
  ir::Node* v = n.address_of ? path.address(p) : path.value(p);
  if (!v) return num(0);
  return checked_long(v, n, any_type);
}

std::optional<bool> Lowerer::kfunc_exists(const ast::Expr* e) {
  if (auto* c = dynamic_cast<const ast::CastExpr*>(e)) return cast_exists(*c);
  auto* t = dynamic_cast<const ast::TargetSymbol*>(e);
  if (!t) return std::nullopt;
  if (t->name.starts_with("$$"))
    return t->name == "$$vars" || t->name == "$$parms" || t->name == "$$locals" ||
           (t->name == "$$return" && body_->kfunc_return && body_->kfunc &&
            body_->kfunc->ret.id != 0);
  Place p;
  if (!kfunc_base(*t, p, true)) return false;
  TypePath path(*this, t->loc, describe_expr(*t), true);
  path.walk(p, t->components);
  if (!t->pretty) {
    if (t->address_of) path.address(p);
    else path.value(p);
  }
  return !path.failed();
}

// ---------------------------------------------------------------- @cast, @var

kernel::KernelBtf* Lowerer::cast_btf(SourceLoc loc, const std::string& token, bool quiet) {
  if (!cast_btf_) {
    cast_btf_ = std::make_unique<kernel::KernelBtf>();
    if (!cast_btf_->load(cast_btf_error_) && cast_btf_error_.empty())
      cast_btf_error_ = "the kernel's BTF could not be read";
  }
  if (cast_btf_->loaded()) return cast_btf_.get();
  if (!quiet) error(loc, "@cast needs the kernel's type information: " + cast_btf_error_, token);
  return nullptr;
}

// The type @cast names, or nothing (after an error unless quiet).
std::optional<kernel::Type> Lowerer::cast_type(const ast::CastExpr& n, bool quiet) {
  std::string token = describe_expr(n);
  kernel::KernelBtf* btf = cast_btf(n.loc, token, quiet);
  if (!btf) return std::nullopt;
  // "kernel", "kernel<linux/sched.h>" and bare headers are vmlinux's types.
  std::string module = n.module;
  if (module.starts_with("kernel") || module.starts_with("<")) module.clear();
  std::optional<kernel::Type> t = btf->find_type(n.type_name, module);
  if (!t && !quiet)
    error(n.loc, "type definition '" + n.type_name + "' not found in '" +
                     (n.module.empty() ? std::string("kernel") : n.module) + "'",
          token);
  return t;
}

ir::Node* Lowerer::cast_expr(ast::CastExpr& n) {
  std::string token = describe_expr(n);
  if (body_ && body_->context == ir::Context::user && !body_->in_function) {
    error(n.loc, "@cast reads kernel memory, which this probe cannot: it runs in user space "
                 "(begin, end and timer.s/ms probes do); read it from a kernel-context probe",
          token);
    return num(0);
  }
  std::optional<kernel::Type> type = cast_type(n, false);
  if (!type) return num(0);
  Place p{*type, nullptr, expr(n.operand)};
  TypePath path(*this, n.loc, token);
  if (!path.walk(p, n.components)) return num(0);
  if (n.pretty) return pretty_place(path, p, n.pretty > 1);
  ir::Node* v = n.address_of ? path.address(p) : path.value(p);
  if (!v) return num(0);
  return checked_long(v, n, false);
}

std::optional<bool> Lowerer::cast_exists(const ast::CastExpr& n) {
  std::optional<kernel::Type> type = cast_type(n, true);
  if (!type) return false;
  Place p{*type, nullptr, num(0)};
  TypePath path(*this, n.loc, describe_expr(n), true);
  path.walk(p, n.components);
  if (!n.pretty) {
    if (n.address_of) path.address(p);
    else path.value(p);
  }
  return !path.failed();
}

ir::Node* Lowerer::at_var(ast::AtVar& n) {
  // BTF has VARs for per-CPU variables only; a global's type (and a
  // static's address) is in vmlinux's DWARF.
  std::string release;
  if (std::ifstream f("/proc/sys/kernel/osrelease"); f) std::getline(f, release);
  std::string dwarf = "/usr/lib/debug/boot/vmlinux-" + release;
  std::string why =
      std::filesystem::exists(dwarf)
          ? "reading the kernel's DWARF (" + dwarf + ") is not supported yet by this engine"
          : std::string("it is not installed (Debian: linux-image-$(uname -r)-dbg; Fedora: "
                        "kernel-debuginfo)");
  error(n.loc,
        "@var(\"" + n.name + "\") needs the kernel's debuginfo (DWARF): BTF describes the "
        "types of functions and per-CPU variables only, not of kernel globals, and " + why,
        describe_expr(n));
  return num(0);
}

}  // namespace stap::lower
