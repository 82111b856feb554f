// DWARF types of user-space variables: their names as stap -L spells
// them ("int", "char const*", "struct foo*", "char const[] const",
// "va_list", "struct {...}", "int (*) (int, char*)"), sizes and
// signedness, what pointers and arrays lead to, and struct/union/class
// member lookup (anonymous members and C++ base classes searched, bit
// fields described) for $p->field.
//
// A Type wraps a type DIE of a Dwarf that must outlive it; the default
// Type is void.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stap::debuginfo {

struct Type {
  Dwarf_Die die{};
  bool is_void = true;
  static Type of(Dwarf_Die* die) {
    Type t;
    if (die) {
      t.die = *die;
      t.is_void = false;
    }
    return t;
  }
};

enum class TypeKind : uint8_t {
  void_, base, pointer, reference, array, struct_, union_, class_, enum_, function, other
};

// The DW_AT_type of `die` (a variable, member, function or type); void
// when absent.
Type type_of(Dwarf_Die* die);
// `t` through typedefs and const/volatile/restrict/atomic qualifiers.
Type strip_type(Type t);
// The kind of strip_type(t).
TypeKind type_kind(Type t);
// stap's spelling of `t` (see the file comment); "<unknown>" for a type
// it cannot name.
std::string type_name(Type t);
// Size in bytes (arrays: element size * count; pointers: 8); 0 unknown.
uint64_t type_size(Type t);
// Whether integer values of `t` are signed (base types and enums).
bool type_signed(Type t);
// What a pointer, reference or array (after stripping) refers to.
Type target_type(Type t);
// The element count of an array's first dimension, if known.
std::optional<uint64_t> array_count(Type t);
// Base types by encoding (typedefs stripped): a character type
// (DW_ATE_signed_char/unsigned_char, UTF) and a floating-point one.
bool type_is_char(Type t);
bool type_is_float(Type t);
// A struct/union/class only declared here (its members are elsewhere).
bool type_is_declaration(Type t);

struct Member {
  std::string name;
  Type type;
  uint64_t offset = 0;        // bytes from the start of the searched struct
  uint32_t bit_size = 0;      // 0: not a bit field
  uint32_t bit_offset = 0;    // bit fields: from the least significant bit of
                              // the storage unit at `offset` (little endian)
  uint32_t storage_size = 0;  // bit fields: bytes to read at `offset`
};

// Member `name` of the struct, union or class `t` (typedefs stripped; a
// pointer to one is followed once, as `$p->name` does).  nullopt with
// `why` set when `t` is not a composite or has no such member.
std::optional<Member> find_member(Type t, const std::string& name, std::string& why);
// The data members of the struct, union or class `t` (typedefs stripped)
// in declaration order: anonymous members and base classes as unnamed
// members of their own type, static members left out.
std::vector<Member> members(Type t);

}  // namespace stap::debuginfo
