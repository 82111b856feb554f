// TType's two implementations: BTF through KernelBtf, DWARF through
// debuginfo/dwarf_types.h.
#include "lower/target_type.h"

namespace stap::lower::types {

using kernel::KernelBtf;
namespace di = debuginfo;

namespace {

TypeKind dwarf_kind(di::Type t) {
  switch (di::type_kind(t)) {
    case di::TypeKind::void_: return TypeKind::void_;
    case di::TypeKind::base: return di::type_is_float(t) ? TypeKind::float_ : TypeKind::integer;
    case di::TypeKind::pointer:
    case di::TypeKind::reference: return TypeKind::pointer;
    case di::TypeKind::array: return TypeKind::array;
    case di::TypeKind::struct_:
    case di::TypeKind::class_:
      return di::type_is_declaration(t) ? TypeKind::other : TypeKind::struct_;
    case di::TypeKind::union_:
      return di::type_is_declaration(t) ? TypeKind::other : TypeKind::union_;
    case di::TypeKind::enum_: return TypeKind::enum_;
    case di::TypeKind::function: return TypeKind::func_proto;
    case di::TypeKind::other: break;
  }
  return TypeKind::other;
}

TMember from_dwarf(const di::Member& m, bool kernel) {
  // dwarf_types gives a bit field as its storage unit's offset plus the
  // bit within it; TypePath wants the bit from the struct's start.
  return TMember{m.name, TType::of(m.type, kernel),
                 static_cast<uint32_t>(m.offset * 8 + (m.bit_size ? m.bit_offset : 0)),
                 m.bit_size};
}

TMember from_btf(const kernel::Member& m) {
  return TMember{m.name, TType::of(m.type), m.bit_offset, m.bitfield_size};
}

}  // namespace

TType strip(TType t) {
  return t.from_dwarf ? TType::of(di::strip_type(t.dwarf), t.kernel)
                      : TType::of(KernelBtf::strip(t.btf));
}

TypeKind kind(TType t) { return t.from_dwarf ? dwarf_kind(t.dwarf) : KernelBtf::kind(t.btf); }

uint32_t size(TType t) {
  return t.from_dwarf ? static_cast<uint32_t>(di::type_size(t.dwarf)) : KernelBtf::size(t.btf);
}

bool is_signed(TType t) {
  return t.from_dwarf ? di::type_signed(t.dwarf) : KernelBtf::is_signed(t.btf);
}

bool is_char(TType t) {
  return t.from_dwarf ? di::type_is_char(t.dwarf) : KernelBtf::is_char(t.btf);
}

TType pointee(TType t) {
  if (!t.from_dwarf) return TType::of(KernelBtf::pointee(t.btf));
  return TType::of(kind(t) == TypeKind::pointer ? di::target_type(t.dwarf) : di::Type{}, t.kernel);
}

TType element(TType t) {
  if (!t.from_dwarf) return TType::of(KernelBtf::element(t.btf));
  return TType::of(kind(t) == TypeKind::array ? di::target_type(t.dwarf) : di::Type{}, t.kernel);
}

std::vector<TMember> members(TType t) {
  std::vector<TMember> out;
  if (t.from_dwarf)
    for (const di::Member& m : di::members(t.dwarf)) out.push_back(from_dwarf(m, t.kernel));
  else
    for (const kernel::Member& m : KernelBtf::members(t.btf)) out.push_back(from_btf(m));
  return out;
}

std::optional<TMember> member(TType t, const std::string& name) {
  if (!t.from_dwarf) {
    std::optional<kernel::Member> m = KernelBtf::member(t.btf, name);
    if (!m) return std::nullopt;
    return from_btf(*m);
  }
  std::string why;
  std::optional<di::Member> m = di::find_member(t.dwarf, name, why);
  if (!m) return std::nullopt;
  return from_dwarf(*m, t.kernel);
}

std::string name(TType t) {
  return t.from_dwarf ? di::type_name(t.dwarf) : KernelBtf::name(t.btf);
}

}  // namespace stap::lower::types
