// DwarfFile's line-table queries: statement probes (func@file.c:LINE),
// the end of a function's prologue, and pc -> file:line.
#include <algorithm>

#include "debuginfo/dwarf_file.h"

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

std::vector<std::pair<SourceLine, uint64_t>> DwarfFile::function_lines(const DwarfFunction& fn) const {
  Dwarf_Die cu = fn.cu, fn_die = fn.die;
  Dwarf_Lines* lines = nullptr;
  size_t count = 0;
  std::vector<std::pair<SourceLine, uint64_t>> out;
  if (dwarf_getsrclines(&cu, &lines, &count) != 0) return out;
  Row previous;
  bool have_previous = false;
  for (size_t i = 0; i < count; ++i) {
    Row row;
    if (!read_row(lines, i, row)) continue;
    bool starts = row.is_stmt && !row.end_sequence && row.file &&
                  (!have_previous || previous.line != row.line || previous.file != row.file);
    if (starts && dwarf_haspc(&fn_die, row.addr) == 1) {
      auto same = [&](const auto& e) { return e.first.line == row.line && e.first.file == row.file; };
      auto known = std::find_if(out.begin(), out.end(), same);
      if (known == out.end()) out.push_back({SourceLine{row.file, row.line}, row.addr});
      else known->second = std::min(known->second, row.addr);
    }
    previous = row;
    have_previous = !row.end_sequence;
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.first.file != b.first.file ? a.first.file < b.first.file : a.first.line < b.first.line;
  });
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

}  // namespace stap::debuginfo
