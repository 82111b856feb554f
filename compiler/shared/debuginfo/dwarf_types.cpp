#include "debuginfo/dwarf_types.h"

#include <dwarf.h>

#include <cstring>
#include <vector>

namespace stap::debuginfo {

Type type_of(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  Dwarf_Die type;
  if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &type))
    return {};
  return Type::of(&type);
}

static bool is_qualifier(int tag) {
  return tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
         tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

Type strip_type(Type t) {
  for (int depth = 0; !t.is_void && depth < 64 && is_qualifier(dwarf_tag(&t.die)); ++depth)
    t = type_of(&t.die);
  return t;
}

TypeKind type_kind(Type t) {
  t = strip_type(t);
  if (t.is_void) return TypeKind::void_;
  switch (dwarf_tag(&t.die)) {
    case DW_TAG_base_type: return TypeKind::base;
    case DW_TAG_pointer_type: return TypeKind::pointer;
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: return TypeKind::reference;
    case DW_TAG_array_type: return TypeKind::array;
    case DW_TAG_structure_type: return TypeKind::struct_;
    case DW_TAG_union_type: return TypeKind::union_;
    case DW_TAG_class_type: return TypeKind::class_;
    case DW_TAG_enumeration_type: return TypeKind::enum_;
    case DW_TAG_subroutine_type: return TypeKind::function;
    default: return TypeKind::other;
  }
}

// The spelling, built outside-in: a modifier (pointer, const, ...) names
// its referent first and appends its own mark; a function type stops the
// walk and is returned in `subroutine` so the modifiers seen so far can
// go in the middle: "int (*) (int)".
static bool spell(Type t, std::string& out, std::optional<Dwarf_Die>& subroutine, int depth) {
  if (t.is_void || depth > 64) return false;
  Dwarf_Die* die = &t.die;
  int tag = dwarf_tag(die);
  const char* prefix = nullptr;
  switch (tag) {
    case DW_TAG_enumeration_type: prefix = "enum "; break;
    case DW_TAG_structure_type: prefix = "struct "; break;
    case DW_TAG_union_type: prefix = "union "; break;
    case DW_TAG_class_type: prefix = "class "; break;
    case DW_TAG_typedef:
    case DW_TAG_base_type: prefix = ""; break;
    case DW_TAG_subroutine_type: subroutine = *die; return true;
    case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type: case DW_TAG_pointer_type:
    case DW_TAG_array_type: case DW_TAG_const_type: case DW_TAG_volatile_type:
    case DW_TAG_restrict_type: break;
    default: return false;
  }
  if (prefix) {
    const char* name = dwarf_diename(die);
    out += prefix;
    out += name ? name : "{...}";  // gdb's spelling of an anonymous struct
    return true;
  }
  Type referent = type_of(die);
  if (tag == DW_TAG_pointer_type && !referent.is_void &&
      dwarf_tag(&referent.die) == DW_TAG_structure_type && dwarf_diename(&referent.die) &&
      strcmp(dwarf_diename(&referent.die), "__va_list_tag") == 0) {
    out += "va_list";
    return true;
  }
  if (referent.is_void || !spell(referent, out, subroutine, depth + 1)) out += "void";
  int referent_tag = referent.is_void ? 0 : dwarf_tag(&referent.die);
  switch (tag) {
    case DW_TAG_reference_type: out += "&"; break;
    case DW_TAG_rvalue_reference_type: out += "&&"; break;
    case DW_TAG_pointer_type: out += "*"; break;
    case DW_TAG_array_type: out += "[]"; break;
    case DW_TAG_const_type:
      // A const on a reference is redundant.
      if (referent_tag != DW_TAG_reference_type && referent_tag != DW_TAG_rvalue_reference_type)
        out += " const";
      break;
    case DW_TAG_volatile_type: out += " volatile"; break;
    case DW_TAG_restrict_type: out += " restrict"; break;
  }
  return true;
}

static std::string spell_subroutine(Dwarf_Die* subroutine, const std::string& modifiers) {
  std::string out = type_name(type_of(subroutine)) + " (" + modifiers + ") (";
  bool first = true;
  Dwarf_Die child;
  if (dwarf_child(subroutine, &child) == 0) {
    do {
      int tag = dwarf_tag(&child);
      if (tag != DW_TAG_formal_parameter && tag != DW_TAG_unspecified_parameters) continue;
      out += first ? "" : ", ";
      first = false;
      out += tag == DW_TAG_unspecified_parameters ? "..." : type_name(type_of(&child));
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  return out + (first ? "void)" : ")");
}

std::string type_name(Type t) {
  if (t.is_void) return "void";
  std::string out;
  std::optional<Dwarf_Die> subroutine;
  if (!spell(t, out, subroutine, 0)) return "<unknown>";
  if (subroutine) return spell_subroutine(&*subroutine, out);
  return out;
}

static uint64_t attr_udata(Dwarf_Die* die, int name, uint64_t otherwise) {
  Dwarf_Attribute attr;
  Dwarf_Word value;
  if (dwarf_attr_integrate(die, name, &attr) && dwarf_formudata(&attr, &value) == 0) return value;
  return otherwise;
}

std::optional<uint64_t> array_count(Type t) {
  t = strip_type(t);
  if (t.is_void || dwarf_tag(&t.die) != DW_TAG_array_type) return std::nullopt;
  Dwarf_Die child;
  if (dwarf_child(&t.die, &child) != 0) return std::nullopt;
  do {
    if (dwarf_tag(&child) != DW_TAG_subrange_type) continue;
    Dwarf_Attribute attr;
    Dwarf_Word value;
    if (dwarf_attr(&child, DW_AT_count, &attr) && dwarf_formudata(&attr, &value) == 0)
      return value;
    if (dwarf_attr(&child, DW_AT_upper_bound, &attr) && dwarf_formudata(&attr, &value) == 0)
      return value + 1;
    return std::nullopt;
  } while (dwarf_siblingof(&child, &child) == 0);
  return std::nullopt;
}

uint64_t type_size(Type t) {
  t = strip_type(t);
  if (t.is_void) return 0;
  switch (dwarf_tag(&t.die)) {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: return attr_udata(&t.die, DW_AT_byte_size, 8);
    case DW_TAG_array_type: {
      auto count = array_count(t);
      return count ? *count * type_size(target_type(t)) : 0;
    }
    default: return attr_udata(&t.die, DW_AT_byte_size, 0);
  }
}

bool type_signed(Type t) {
  t = strip_type(t);
  if (t.is_void) return false;
  if (dwarf_tag(&t.die) == DW_TAG_enumeration_type) {
    Type underlying = type_of(&t.die);
    return underlying.is_void ? true : type_signed(underlying);
  }
  if (dwarf_tag(&t.die) != DW_TAG_base_type) return false;
  uint64_t encoding = attr_udata(&t.die, DW_AT_encoding, 0);
  return encoding == DW_ATE_signed || encoding == DW_ATE_signed_char;
}

Type target_type(Type t) {
  t = strip_type(t);
  if (t.is_void) return {};
  switch (dwarf_tag(&t.die)) {
    case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
    case DW_TAG_array_type: return type_of(&t.die);
    default: return {};
  }
}

static bool is_composite(int tag) {
  return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

// Fills the bit-field part of `m` from the member DIE (DWARF 4/5's
// DW_AT_data_bit_offset, or DWARF 2's big-endian DW_AT_bit_offset).
static void describe_bitfield(Dwarf_Die* die, Member& m) {
  m.bit_size = static_cast<uint32_t>(attr_udata(die, DW_AT_bit_size, 0));
  if (m.bit_size == 0) return;
  uint64_t storage = attr_udata(die, DW_AT_byte_size, type_size(m.type));
  if (storage == 0) storage = 4;
  Dwarf_Attribute attr;
  Dwarf_Word data_bit_offset;
  if (dwarf_attr(die, DW_AT_data_bit_offset, &attr) && dwarf_formudata(&attr, &data_bit_offset) == 0) {
    // Read the naturally aligned storage unit holding the field.
    uint64_t unit = data_bit_offset / (storage * 8) * storage;
    m.offset += unit;
    m.bit_offset = static_cast<uint32_t>(data_bit_offset - unit * 8);
  } else {
    uint64_t big_endian = attr_udata(die, DW_AT_bit_offset, 0);
    m.bit_offset = static_cast<uint32_t>(storage * 8 - big_endian - m.bit_size);
  }
  m.storage_size = static_cast<uint32_t>(storage);
}

std::vector<Member> members(Type t) {
  std::vector<Member> out;
  Type composite = strip_type(t);
  Dwarf_Die child;
  if (composite.is_void || !is_composite(dwarf_tag(&composite.die)) ||
      dwarf_child(&composite.die, &child) != 0)
    return out;
  do {
    int tag = dwarf_tag(&child);
    if (tag != DW_TAG_member && tag != DW_TAG_inheritance) continue;
    Dwarf_Attribute attr;
    Dwarf_Word offset = 0;
    bool located = dwarf_attr(&child, DW_AT_data_member_location, &attr) != nullptr;
    if (located && dwarf_formudata(&attr, &offset) != 0) continue;
    // A union's members have no location: they all start at 0.  A static
    // member of a struct or class has none either, and is not in the object.
    if (!located && dwarf_tag(&composite.die) != DW_TAG_union_type &&
        dwarf_hasattr(&child, DW_AT_external))
      continue;
    const char* name = dwarf_diename(&child);
    Member m{.name = tag == DW_TAG_member && name ? name : "", .type = type_of(&child),
             .offset = offset};
    describe_bitfield(&child, m);
    out.push_back(m);
  } while (dwarf_siblingof(&child, &child) == 0);
  return out;
}

static uint64_t base_encoding(Type t) {
  t = strip_type(t);
  if (t.is_void || dwarf_tag(&t.die) != DW_TAG_base_type) return 0;
  return attr_udata(&t.die, DW_AT_encoding, 0);
}

bool type_is_char(Type t) {
  uint64_t e = base_encoding(t);
  return e == DW_ATE_signed_char || e == DW_ATE_unsigned_char || e == DW_ATE_UTF;
}

bool type_is_float(Type t) {
  uint64_t e = base_encoding(t);
  return e == DW_ATE_float || e == DW_ATE_complex_float;
}

bool type_is_declaration(Type t) {
  t = strip_type(t);
  return !t.is_void && is_composite(dwarf_tag(&t.die)) && dwarf_hasattr(&t.die, DW_AT_declaration);
}

static std::optional<Member> search(Dwarf_Die* composite, const std::string& name, uint64_t base,
                                    int depth) {
  Dwarf_Die child;
  if (depth > 16 || dwarf_child(composite, &child) != 0) return std::nullopt;
  do {
    int tag = dwarf_tag(&child);
    if (tag != DW_TAG_member && tag != DW_TAG_inheritance) continue;
    // Static members have no DW_AT_data_member_location: not in the object.
    Dwarf_Attribute attr;
    Dwarf_Word offset = 0;
    if (dwarf_attr(&child, DW_AT_data_member_location, &attr) && dwarf_formudata(&attr, &offset) != 0)
      continue;
    const char* child_name = dwarf_diename(&child);
    if (tag == DW_TAG_member && child_name && name == child_name) {
      Member m{.name = name, .type = type_of(&child), .offset = base + offset};
      describe_bitfield(&child, m);
      return m;
    }
    // Anonymous struct/union members and base classes are searched through.
    if (tag == DW_TAG_inheritance || !child_name) {
      Type inner = strip_type(type_of(&child));
      if (!inner.is_void && is_composite(dwarf_tag(&inner.die)))
        if (auto found = search(&inner.die, name, base + offset, depth + 1)) return found;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return std::nullopt;
}

std::optional<Member> find_member(Type t, const std::string& name, std::string& why) {
  Type composite = strip_type(t);
  if (!composite.is_void && (dwarf_tag(&composite.die) == DW_TAG_pointer_type ||
                             dwarf_tag(&composite.die) == DW_TAG_reference_type))
    composite = strip_type(target_type(composite));
  if (composite.is_void || !is_composite(dwarf_tag(&composite.die))) {
    why = "'" + type_name(t) + "' is not a struct, union or class";
    return std::nullopt;
  }
  // A declaration-only struct (opaque here) has its members elsewhere.
  if (dwarf_hasattr(&composite.die, DW_AT_declaration)) {
    why = "'" + type_name(composite) + "' is only declared in this compilation unit";
    return std::nullopt;
  }
  if (auto found = search(&composite.die, name, 0, 0)) return found;
  why = "'" + type_name(composite) + "' has no member '" + name + "'";
  return std::nullopt;
}

}  // namespace stap::debuginfo
