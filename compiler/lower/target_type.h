// One view of the two type sources target variables are read through:
// BTF (kernel functions, @cast of kernel types; objects in kernel memory)
// and DWARF (process probes, @cast with a user binary, @var of a user
// program; objects in user memory).  The type-path walker (TypePath), the
// pretty printer and the entry values (target_path.h) work on TType only,
// so kernel and user variables share one implementation of $p->f[i],
// bit fields, $var$ and $$parms.
//
// A TType is a cheap value: a kernel::Type or a debuginfo::Type, whose
// BTF object or Dwarf must outlive it.  The kinds are kernel::TypeKind's:
// a DWARF class is a struct_, a C++ reference a pointer (stap follows
// references the same way), a base type an integer or a float_.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "debuginfo/dwarf_types.h"
#include "kernel/kernel_btf.h"

namespace stap::lower {

using kernel::TypeKind;

struct TType {
  kernel::Type btf;
  debuginfo::Type dwarf;
  bool from_dwarf = false;
  // DWARF of kernel code (kernel_dwarf.h): its objects are in kernel memory.
  bool kernel = false;

  static TType of(kernel::Type t) {
    TType out;
    out.btf = t;
    return out;
  }
  static TType of(debuginfo::Type t, bool kernel = false) {
    TType out;
    out.dwarf = t;
    out.from_dwarf = true;
    out.kernel = kernel;
    return out;
  }
  bool is_void() const { return from_dwarf ? dwarf.is_void : btf.id == 0; }
  // Objects of this type are read from user memory (DWARF of a process).
  bool user() const { return from_dwarf && !kernel; }
};

struct TMember {
  std::string name;  // empty for an anonymous struct/union member
  TType type;
  uint32_t bit_offset = 0;     // from the start of the struct searched
  uint32_t bitfield_size = 0;  // 0: not a bit field
};

namespace types {

TType strip(TType t);           // through typedefs and qualifiers
TypeKind kind(TType t);         // of strip(t)
uint32_t size(TType t);         // bytes; 0 for void, functions, unknown sizes
bool is_signed(TType t);        // integers and enums
bool is_char(TType t);          // a character type (BTF: any 1-byte integer)
TType pointee(TType t);         // pointer (or reference): what it points at
TType element(TType t);         // array: the element type
std::vector<TMember> members(TType t);  // in order, anonymous ones as they are
// A member by name, through anonymous members (and C++ base classes).
std::optional<TMember> member(TType t, const std::string& name);
std::string name(TType t);      // as stap spells it in messages and -L

}  // namespace types

}  // namespace stap::lower
