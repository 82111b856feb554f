// DwarfFile's line-table queries: statement probes (func@file.c:LINE),
// the end of a function's prologue, and pc -> file:line; and stap's
// statement lines (dwarf_lines.h).
#include "debuginfo/dwarf_lines.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace stap::debuginfo {

namespace {

struct Row {
  uint64_t addr = 0;
  int line = 0;
  const char* file = nullptr;
  bool is_stmt = false, end_sequence = false, prologue_end = false;
};

bool read_row(Dwarf_Lines* lines, size_t i, Row& row) {
  Dwarf_Line* line = dwarf_onesrcline(lines, i);
  Dwarf_Addr addr = 0;
  if (!line || dwarf_lineaddr(line, &addr) != 0) return false;
  row.addr = addr;
  dwarf_lineno(line, &row.line);
  row.file = dwarf_linesrc(line, nullptr, nullptr);
  dwarf_linebeginstatement(line, &row.is_stmt);
  dwarf_lineendsequence(line, &row.end_sequence);
  dwarf_lineprologueend(line, &row.prologue_end);
  return true;
}

}  // namespace

uint64_t DwarfFile::prologue_end(const DwarfFunction& fn) const {
  Dwarf_Die cu = fn.cu;
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  if (dwarf_getsrclines(&cu, &lines, &count) != 0) return fn.entry_pc;
  uint64_t second = 0;
  for (size_t i = 0; i < count; ++i) {
    Row row;
    if (!read_row(lines, i, row) || row.end_sequence) continue;
    if (row.addr <= fn.entry_pc || row.addr >= fn.high_pc) continue;
    if (row.prologue_end) return row.addr;
    if (!second || row.addr < second) second = row.addr;
  }
  return second ? second : fn.entry_pc;
}

std::vector<uint64_t> DwarfFile::line_addresses(const DwarfFunction* fn, const std::string& file,
                                                int line) const {
  std::vector<Dwarf_Die> cus;
  if (fn) {
    cus.push_back(fn->cu);
  } else {
    Dwarf_Off offset = 0, next = 0;
    size_t header_size = 0;
    while (dwarf_nextcu(dwarf_, offset, &next, &header_size, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dwarf_, offset + header_size, &cu)) cus.push_back(cu);
      offset = next;
    }
  }
  std::vector<uint64_t> out;
  Dwarf_Die fn_die = fn ? fn->die : Dwarf_Die{};
  for (auto& cu : cus) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_getsrclines(&cu, &lines, &count) != 0) continue;
    Row previous;
    bool have_previous = false;
    for (size_t i = 0; i < count; ++i) {
      Row row;
      if (!read_row(lines, i, row)) continue;
      bool starts = row.line == line && row.is_stmt && !row.end_sequence &&
                    (!have_previous || previous.line != line || previous.file != row.file);
      if (starts && row.file && file_matches(file, row.file) &&
          (!fn || dwarf_haspc(&fn_die, row.addr) == 1))
        out.push_back(row.addr);
      previous = row;
      have_previous = !row.end_sequence;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<SourceLine> DwarfFile::line_at(uint64_t pc) const {
  Dwarf_Die cu;
  if (!dwarf_addrdie(dwarf_, pc, &cu)) return std::nullopt;
  Dwarf_Line* line = dwarf_getsrc_die(&cu, pc);
  if (!line) return std::nullopt;
  SourceLine out;
  const char* file = dwarf_linesrc(line, nullptr, nullptr);
  out.file = file ? file : "";
  dwarf_lineno(line, &out.line);
  return out;
}

// ------------------------------------------------ stap's statement lines

std::optional<LineSpec> parse_line_spec(const std::string& text) {
  LineSpec out;
  if (text == "*") return out;
  // A whole decimal number, else nullopt (stap's lex_cast).
  auto number = [](const std::string& s) -> std::optional<int> {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::atoi(s.c_str());
  };
  std::string body = text;
  out.kind = LineSpec::absolute;
  if (!body.empty() && body[0] == '+') {
    out.kind = LineSpec::relative;
    body.erase(0, 1);
  }
  if (body.find_first_of(",-") == std::string::npos) {
    auto n = number(body);
    if (!n) return std::nullopt;
    out.lines.push_back(*n);
    return out;
  }
  out.kind = LineSpec::enumerated;
  size_t at = 0;
  while (at <= body.size()) {
    size_t comma = std::min(body.find(',', at), body.size());
    std::string part = body.substr(at, comma - at);
    size_t dash = part.find('-');
    auto low = number(part.substr(0, dash));
    auto high = dash == std::string::npos ? low : number(part.substr(dash + 1));
    if (!low || !high) return std::nullopt;
    for (int line = *low; line <= *high; ++line) out.lines.push_back(line);
    at = comma + 1;
  }
  std::sort(out.lines.begin(), out.lines.end());
  return out;
}

std::vector<std::string> cu_source_files(const Dwarf_Die& cu, const std::string& pattern) {
  Dwarf_Die die = cu;
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  std::set<std::string> out;  // stap walks them sorted
  if (dwarf_getsrcfiles(&die, &files, &count) != 0) return {};
  for (size_t i = 0; i < count; ++i) {
    const char* name = dwarf_filesrc(files, i, nullptr, nullptr);
    if (name && std::string(name) != "???" && file_matches(pattern, name)) out.insert(name);
  }
  return {out.begin(), out.end()};
}

namespace {

// srcfile's rows of the unit, sorted by (line, address): every row,
// statement or not, as stap's per-file line cache holds them.
std::vector<StatementLine> file_rows(Dwarf_Die cu, const std::string& srcfile) {
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  std::vector<StatementLine> out;
  if (dwarf_getsrclines(&cu, &lines, &count) != 0) return out;
  for (size_t i = 0; i < count; ++i) {
    Dwarf_Line* line = dwarf_onesrcline(lines, i);
    const char* src = line ? dwarf_linesrc(line, nullptr, nullptr) : nullptr;
    Dwarf_Addr addr = 0;
    StatementLine row;
    if (!src || srcfile != src || dwarf_lineaddr(line, &addr) != 0) continue;
    dwarf_lineno(line, &row.line);
    row.addr = addr;
    out.push_back(row);
  }
  std::sort(out.begin(), out.end(), [](const StatementLine& a, const StatementLine& b) {
    return a.line != b.line ? a.line < b.line : a.addr < b.addr;
  });
  return out;
}

bool holds(const DwarfFunction& fn, uint64_t addr) {
  Dwarf_Die die = fn.die;
  return dwarf_haspc(&die, addr) == 1;
}

using Rows = std::vector<StatementLine>;

std::pair<Rows::const_iterator, Rows::const_iterator> rows_of(const Rows& rows, int line) {
  return std::equal_range(rows.begin(), rows.end(), StatementLine{line, 0},
                          [](const StatementLine& a, const StatementLine& b) { return a.line < b.line; });
}

// The lowest address of `line` inside fn.
std::optional<uint64_t> line_in(const Rows& rows, int line, const DwarfFunction& fn) {
  auto [first, last] = rows_of(rows, line);
  for (auto it = first; it != last; ++it)
    if (holds(fn, it->addr)) return it->addr;
  return std::nullopt;
}

// The line a function's walk starts from: the row at its entry pc (the
// last row at that address, as dwarf_getsrc_die finds it), else the
// unit's first row inside it (an inlined copy), in any file.
std::optional<int> first_line(Dwarf_Die cu, const DwarfFunction& fn) {
  Dwarf_Line* line = dwarf_getsrc_die(&cu, fn.entry_pc);
  Dwarf_Addr addr = 0;
  int number = 0;
  if (line && dwarf_lineaddr(line, &addr) == 0 && addr == fn.entry_pc &&
      dwarf_lineno(line, &number) == 0)
    return number;
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  if (dwarf_getsrclines(&cu, &lines, &count) != 0) return std::nullopt;
  for (size_t i = 0; i < count; ++i) {
    line = dwarf_onesrcline(lines, i);
    if (line && dwarf_lineaddr(line, &addr) == 0 && holds(fn, addr) &&
        dwarf_lineno(line, &number) == 0)
      return number;
  }
  return std::nullopt;
}

// "*": the function's lines from its entry's, up to the first line
// present in the file with no row inside it.
void walk_function(Dwarf_Die cu, const Rows& rows, const DwarfFunction& fn,
                   std::vector<StatementLine>& out) {
  std::optional<int> line = first_line(cu, fn);
  while (line) {
    auto [first, last] = rows_of(rows, *line);
    auto inside = std::find_if(first, last, [&](const StatementLine& r) { return holds(fn, r.addr); });
    if (inside == last) break;
    out.push_back(*inside);
    line = last == rows.end() ? std::nullopt : std::optional<int>(last->line);
  }
}

}  // namespace

std::vector<StatementLine> statement_lines(const Dwarf_Die& cu, const std::string& srcfile,
                                           const std::vector<const DwarfFunction*>& fns,
                                           const LineSpec& spec) {
  Rows rows = file_rows(cu, srcfile);
  std::vector<StatementLine> found;
  auto add_line = [&](int line) {
    for (const DwarfFunction* fn : fns)
      if (auto addr = line_in(rows, line, *fn)) found.push_back({line, *addr});
  };
  if (spec.kind == LineSpec::wildcard) {
    for (const DwarfFunction* fn : fns) walk_function(cu, rows, *fn, found);
  } else if (spec.kind == LineSpec::enumerated) {
    std::set<int> done;
    for (int line : spec.lines)
      if (!done.count(line)) {
        size_t before = found.size();
        add_line(line);
        if (found.size() != before) done.insert(line);
      }
  } else {
    // "+N" counts from each function's declaration line.
    for (const DwarfFunction* fn : fns) {
      int line = spec.lines.at(0) + (spec.kind == LineSpec::relative ? fn->decl_line : 0);
      if (auto addr = line_in(rows, line, *fn)) found.push_back({line, *addr});
    }
  }
  // One probe per address: the first line found there.
  std::set<uint64_t> seen;
  std::vector<StatementLine> out;
  for (const StatementLine& l : found)
    if (seen.insert(l.addr).second) out.push_back(l);
  return out;
}

std::pair<int, int> nearest_lines(const Dwarf_Die& cu, const std::string& srcfile,
                                  const std::vector<const DwarfFunction*>& fns, int line) {
  Rows rows = file_rows(cu, srcfile);
  auto has_code = [&](int n) {
    return std::any_of(fns.begin(), fns.end(), [&](const DwarfFunction* fn) {
      return line_in(rows, n, *fn).has_value();
    });
  };
  std::pair<int, int> out{-1, -1};
  for (int i = 1; i < 6; ++i) {
    if (out.first == -1 && has_code(line - i)) out.first = line - i;
    if (out.second == -1 && has_code(line + i)) out.second = line + i;
  }
  return out;
}

}  // namespace stap::debuginfo
