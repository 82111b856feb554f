// The type-path walker of target variables (target_path.h): ->field,
// [index], &, values of places and bit fields, over BTF or DWARF types
// alike.  Errors use stap's words (dwflpp.cxx).
#include <algorithm>

#include "base/edit_distance.h"
#include "elaborate/typecheck.h"
#include "lower/target_path.h"

namespace stap::lower {

std::string suggest(const std::string& word, const std::set<std::string>& candidates,
                    size_t max) {
  std::vector<std::pair<size_t, std::string>> near;
  for (const std::string& c : candidates)
    if (!c.empty()) near.emplace_back(edit_distance(word, c), c);
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (size_t i = 0; i < near.size() && i < max; ++i) out += (i ? ", " : "") + near[i].second;
  return out;
}

namespace {

// Member names as stap lists them: anonymous members' members included.
void member_names(TType t, std::set<std::string>& out) {
  for (const TMember& m : types::members(t)) {
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

uint32_t register_size(TType t) {
  TypeKind k = types::kind(t);
  if (k == TypeKind::pointer) return 8;
  if (k != TypeKind::integer && k != TypeKind::enum_) return 0;
  uint32_t size = types::size(t);
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

bool value_signed(TType t) {
  return types::kind(t) != TypeKind::pointer && types::is_signed(t);
}

std::string type_text(TType t) { return types::name(t); }

// ---------------------------------------------------------------- TypePath

TypePath::TypePath(Lowerer& l, SourceLoc loc, std::string token, bool quiet)
    : l_(l), loc_(loc), token_(std::move(token)), quiet_(quiet) {}

void TypePath::fail(SourceLoc loc, const std::string& message, const std::string& token) {
  if (!failed_ && !quiet_)
    l_.error(loc.valid() ? loc : loc_, message, token.empty() ? token_ : token);
  failed_ = true;
}

ir::Node* TypePath::read(ir::Node* address, uint32_t size, bool is_signed, bool user) {
  if (!site_) site_ = l_.location(loc_, token_);
  ir::Node* n = l_.make(user ? ir::Op::uread : ir::Op::kread, ir::Type::long_);
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
  return read(p.address, 8, false, p.type.user());
}

bool TypePath::member(Place& p, const std::string& field, SourceLoc loc, const std::string& token) {
  std::string shown = "->" + field;
  for (;;) {
    TType t = types::strip(p.type);
    TypeKind k = types::kind(t);
    if (k == TypeKind::pointer) {
      TType to = types::pointee(p.type);
      if (to.is_void()) {
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
    std::optional<TMember> m = types::member(t, field);
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

Place TypePath::member_place(const Place& p, const TMember& m) {
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
  TType t = types::strip(p.type);
  TypeKind k = types::kind(t);
  std::string shown = "[...]";
  if (idx->op == ir::Op::num) shown = "[" + std::to_string(idx->a) + "]";
  TType elem;
  ir::Node* base = nullptr;
  if (k == TypeKind::pointer) {
    elem = types::pointee(p.type);
    if (elem.is_void()) {
      fail(loc, "invalid access '" + shown + "' vs '" + type_text(t) + "'", token);
      return false;
    }
    base = pointer_value(p);
  } else if (k == TypeKind::array) {
    elem = types::element(t);
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
  int64_t size = types::size(elem);
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
  ir::Node* word = read(add_offset(l_, p.address, unit_byte), size, false, p.type.user());
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
  TType t = types::strip(p.type);
  TypeKind k = types::kind(t);
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
  bool is_signed = value_signed(t);
  if (p.bit_size) return bitfield(p, size, is_signed);
  return read(p.address, size, is_signed, p.type.user());
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


ir::Node* finish_path(Lowerer& l, const ast::Expr& n, Place p,
                      const std::vector<ast::TargetComponent>& comps, bool address_of, int pretty,
                      bool any_type) {
  TypePath path(l, n.loc, describe_expr(n));
  if (!path.walk(p, comps)) return l.num(0);
  if (pretty) return l.pretty_place(path, p, pretty > 1);
  ir::Node* v = address_of ? path.address(p) : path.value(p);
  if (!v) return l.num(0);
  l.note_path_type(n, p, address_of);
  return l.checked_long(v, n, any_type);
}

bool path_exists(Lowerer& l, const ast::Expr& n, Place p,
                 const std::vector<ast::TargetComponent>& comps, bool address_of, int pretty) {
  TypePath path(l, n.loc, describe_expr(n), true);
  path.walk(p, comps);
  if (!pretty) {
    if (address_of) path.address(p);
    else path.value(p);
  }
  return !path.failed();
}

}  // namespace stap::lower
