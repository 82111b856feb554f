// stap -l / -L for user-space points, read straight from the binary:
//   process("P").function("F")[.call|.return]
//   process("P").library("L").function("F")...
//   process("P").statement("F@file.c:LINE")      (LINE: N, N-M or *)
//   process("P").mark("M"), process("P").provider("X").mark("M")
//   process("P").plt("N")
// in stap's format: the program (and library) by canonical path, a
// function with DWARF as "name@decl_file:decl_line", one without as its
// symbol name, and with -L the variables a probe there sees
// ("$r:struct record* $scale:int", marks "$arg1:long ...", returns
// "$return:TYPE" first).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "debuginfo/process_points.h"

namespace stap::debuginfo {

// Parses a probe point of the forms above; nullopt for anything else
// (including process points with numbers or components not listed).
std::optional<ProcessPattern> parse_process_pattern(const std::string& text);

// The listed points, sorted, each once; with `with_vars` followed by
// their variables.  Empty with `why` set when the binary cannot be found
// or read; empty with `why` empty when nothing matches.
// The variables a probe at site `s` sees, as -L lists them
// ("$return:int", "$x:struct foo*", marks' "$arg1:long").
std::vector<std::string> site_vars(const ResolvedPoint& r, const ProbeSite& s);

std::vector<std::string> list_process_points(const ProcessPattern& pattern, bool with_vars,
                                             std::string& why);

}  // namespace stap::debuginfo
