// Where .statement("F@FILE:LINE") probes go, found in the line table the
// way SystemTap 4.8 finds them (dwflpp's iterate_over_srcfile_lines), so
// that -l/-L list the same lines and the same addresses:
//   - only rows of the one source file, sorted by (line, address);
//   - "*": from the line of each function's entry, every line that has a
//     row inside the function, in order, until the first line without one
//     (lines before the entry's, and after a gap, are not listed);
//   - "N", "+N", lists and ranges: each line's lowest address inside each
//     function;
//   - an address already taken by an earlier line is not probed again
//     (optimized code puts several lines at one address: the first wins).
// The rest (which functions hold each address) is process_points.cpp's.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "debuginfo/dwarf_file.h"

namespace stap::debuginfo {

// The LINE part of a statement spec as stap reads it: "*", "N", "+N"
// (N lines after each function's declaration line) or a list of numbers
// and ranges ("12-14,20", enumerated, sorted).
struct LineSpec {
  enum Kind { wildcard, absolute, relative, enumerated } kind = wildcard;
  std::vector<int> lines;
};
// nullopt when malformed (stap: "malformed specification").
std::optional<LineSpec> parse_line_spec(const std::string& text);

struct StatementLine {
  int line = 0;
  uint64_t addr = 0;
};

// The source files named in cu's line table that match the glob
// `pattern` (file_matches), each once, as the table spells them.
std::vector<std::string> cu_source_files(const Dwarf_Die& cu, const std::string& pattern);

// The probed lines of `srcfile` (as cu_source_files spells it) for the
// functions `fns` of cu declared in it (out-of-line ones first, then
// inlined copies: the order decides which line takes a shared address).
std::vector<StatementLine> statement_lines(const Dwarf_Die& cu, const std::string& srcfile,
                                           const std::vector<const DwarfFunction*>& fns,
                                           const LineSpec& spec);

// For stap's "no line records for FILE:N (try :A or :B)": the nearest
// lines within 5 below and above `line` where one of fns has a row
// (-1 for none).
std::pair<int, int> nearest_lines(const Dwarf_Die& cu, const std::string& srcfile,
                                  const std::vector<const DwarfFunction*>& fns, int line);

}  // namespace stap::debuginfo
