// Matching a process("P").function(PATTERN) against symbol names, with
// stap's rules carried over to the symbol table:
// - a pattern is an fnmatch glob (*, ?, [...]);
// - "_Z..." patterns match mangled names;
// - a C++ symbol is also matched through its demangled name without the
//   parameter list: "ns::C::f" and "ns::*" match ns::C::f(int), and a
//   pattern without "::" matches the unqualified name ("f"), as stap's
//   DWARF matching compares DW_AT_name and treats scopes separately.
#pragma once

#include <string>
#include <vector>

#include "debuginfo/elf_file.h"

namespace stap::debuginfo {

bool has_wildcard(const std::string& pattern);

// "ns::C<int>::f(int) const" -> "ns::C<int>::f"; a name without a
// parameter list is returned as is.
std::string without_parameters(const std::string& demangled);
// "ns::C<int>::f" -> "f" (the part after the last top-level "::").
std::string unqualified(const std::string& qualified);

bool symbol_matches(const ElfSymbol& sym, const std::string& pattern);

// The function symbols of `file` matching `pattern`, in address order.
std::vector<const ElfSymbol*> match_symbols(const ElfFile& file, const std::string& pattern);

}  // namespace stap::debuginfo
