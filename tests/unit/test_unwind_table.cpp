// The unwind table builder (compiler/debuginfo/unwind_table.h), checked
// row by row against binutils' own reading of the same CFI
// (readelf --debug-dump=frames-interp) on libc, the -O2 test program and
// a copy of it that keeps only .debug_frame.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "../../bpf_runtime/unwind_row.h"
#include "debuginfo/elf_file.h"
#include "debuginfo/unwind_table.h"
#include "debuginfo_fixture.h"

using namespace stap::debuginfo;
using stap::test::debuginfo_bin;
using stap::test::lines_of;
using stap::test::run_command;

namespace {

struct Expected {
  uint64_t pc;
  std::string cfa, rbp, ra;  // readelf's cells: "rsp+16", "c-16"/"u"/"", "c-8"
};

// Every row readelf prints for the FDEs of `path` (CIE tables skipped; an
// FDE without rows has its CIE's initial rule at its start).
std::vector<Expected> readelf_rows(const std::string& path, const std::string& section) {
  std::vector<Expected> out;
  std::vector<std::string> columns;
  std::map<std::string, Expected> cie_rows;  // by the CIE's offset
  std::string cie;                           // the table being read is this CIE's
  bool in_section = false, in_fde = false, fde_rows = true;
  Expected fde_initial;
  auto close_fde = [&] {
    if (in_fde && !fde_rows) out.push_back(fde_initial);
  };
  for (const auto& line : lines_of(run_command("readelf -wF " + path + " 2>/dev/null"))) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (line.find("Contents of the") != std::string::npos) {
      close_fde();
      in_section = line.find(section) != std::string::npos;
      in_fde = false;
      fde_rows = true;
      continue;
    }
    if (!in_section) continue;
    if (w.size() >= 4 && (w[3] == "FDE" || w[3] == "CIE")) {
      close_fde();
      in_fde = w[3] == "FDE";
      fde_rows = false;
      cie = in_fde ? "" : w[0];
      if (auto at = line.find("cie="); in_fde && at != std::string::npos)
        fde_initial = cie_rows[line.substr(at + 4, 8)];
      if (auto at = line.find("pc="); in_fde && at != std::string::npos)
        fde_initial.pc = std::stoull(line.substr(at + 3), nullptr, 16);
      continue;
    }
    if (!w.empty() && w[0] == "LOC") {
      columns = w;
      continue;
    }
    if (w.size() != columns.size() || w.size() < 3 || w[0].size() != 16) continue;
    Expected e{std::stoull(w[0], nullptr, 16), w[1], "", ""};
    for (size_t i = 2; i < w.size(); ++i) {
      if (columns[i] == "rbp") e.rbp = w[i];
      if (columns[i] == "ra") e.ra = w[i];
    }
    if (!in_fde) {
      if (!cie_rows.count(cie)) cie_rows[cie] = e;
      continue;
    }
    out.push_back(e);
    fde_rows = true;
  }
  close_fde();
  return out;
}

// What our row should say for readelf's cells; "" when it agrees.
std::string mismatch(const Expected& e, const UnwindRow& row) {
  bool followable = e.ra == "c-8" && (e.rbp.empty() || e.rbp == "u" || e.rbp.starts_with("c-")) &&
                    (e.cfa.starts_with("rsp+") || e.cfa.starts_with("rbp+"));
  std::ostringstream why;
  why << std::hex << "pc 0x" << e.pc << " " << e.cfa << " rbp " << e.rbp << " ra " << e.ra << ": row cfa "
      << int(row.cfa) << " offset " << std::dec << row.cfa_offset << " rbp " << int(row.rbp);
  if (e.cfa == "exp") return row.cfa == STAP_CFA_PLT || row.cfa == STAP_CFA_UNKNOWN ? "" : why.str();
  if (!followable) return row.cfa == STAP_CFA_UNKNOWN ? "" : why.str();
  uint8_t kind = e.cfa.starts_with("rsp+") ? STAP_CFA_RSP : STAP_CFA_RBP;
  long offset = std::stol(e.cfa.substr(4));
  long rbp = e.rbp.starts_with("c-") ? -std::stol(e.rbp.substr(2)) / 8 : 0;
  if (row.cfa != kind || row.cfa_offset != offset || row.rbp != rbp) return why.str();
  return "";
}

// Checks every readelf row of `path`; returns how many were checked.
size_t check_against_readelf(const std::string& path, const std::string& section) {
  UnwindTable table;
  std::string why;
  REQUIRE(build_unwind_table(path, table, why));
  CHECK(table.source == section);
  auto elf = ElfFile::open(path, why);
  REQUIRE(elf);
  auto rows = readelf_rows(path, section);
  size_t checked = 0, bad = 0;
  for (const auto& e : rows) {
    auto off = elf->file_offset(e.pc);
    if (!off) continue;
    const UnwindRow* row = find_unwind_row(table, *off);
    REQUIRE(row);
    std::string wrong = mismatch(e, *row);
    if (!wrong.empty() && ++bad <= 5) FAIL_CHECK(path << ": " << wrong);
    ++checked;
  }
  CHECK(bad == 0);
  return checked;
}

}  // namespace

TEST_CASE("unwind rows agree with readelf on libc", "[unwind]") {
  std::string libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  if (!std::filesystem::exists(libc)) return;
  size_t checked = check_against_readelf(libc, ".eh_frame");
  CHECK(checked > 10000);
  // __restore_rt, the signal trampoline ('S' CIE), is a signal row; its
  // caller's registers are in the ucontext.
  UnwindTable table;
  std::string why;
  REQUIRE(build_unwind_table(libc, table, why));
  auto signal_rows = std::count_if(table.rows.begin(), table.rows.end(), [](const UnwindRow& r) {
    return r.cfa == STAP_CFA_UNKNOWN && r.arg == STAP_ROW_SIGNAL;
  });
  CHECK(signal_rows == 1);
}

TEST_CASE("unwind rows agree with readelf on an -O2 program", "[unwind]") {
  size_t checked = check_against_readelf(debuginfo_bin("sample_c_O2"), ".eh_frame");
  CHECK(checked > 10);
}

TEST_CASE("unwind table: sorted, merged, PLT stubs and gaps", "[unwind]") {
  UnwindTable table;
  std::string why;
  REQUIRE(build_unwind_table(debuginfo_bin("sample_c_O2"), table, why));
  REQUIRE(table.rows.size() > 2);
  for (size_t i = 1; i < table.rows.size(); ++i) {
    CHECK(table.rows[i - 1].start < table.rows[i].start);
    CHECK_FALSE(table.rows[i - 1].same_rule(table.rows[i]));
  }
  // The program calls its library through .plt: the stubs' CFA expression
  // is a PLT row (rsp + 8, + 8 past byte 11 of each 16-byte stub).
  auto plt = std::find_if(table.rows.begin(), table.rows.end(),
                          [](const UnwindRow& r) { return r.cfa == STAP_CFA_PLT; });
  REQUIRE(plt != table.rows.end());
  CHECK(plt->cfa_offset == 8);
  CHECK((plt->arg == 11 || plt->arg == 10));
  // _start's undefined return address: the outermost frame.
  auto elf = ElfFile::open(debuginfo_bin("sample_c_O2"), why);
  REQUIRE(elf);
  auto start = elf->functions_named("_start");
  REQUIRE(start.size() == 1);
  const UnwindRow* at_start = find_unwind_row(table, *elf->file_offset(start[0]->address));
  REQUIRE(at_start);
  CHECK(at_start->cfa == STAP_CFA_UNKNOWN);
  CHECK(at_start->arg == STAP_ROW_END);
  // Nothing before the first FDE.
  CHECK(find_unwind_row(table, table.rows[0].start - 1) == nullptr);
  // The packed word reads back field by field.
  for (const auto& r : table.rows) {
    uint64_t w = r.packed();
    REQUIRE(stap_row_start(w) == r.start);
    REQUIRE(stap_row_cfa(w) == r.cfa);
    REQUIRE(stap_row_arg(w) == r.arg);
    REQUIRE(stap_row_cfa_offset(w) == r.cfa_offset);
    REQUIRE(stap_row_rbp(w) == r.rbp);
  }
}

TEST_CASE("unwind rows from .debug_frame when .eh_frame is gone", "[unwind]") {
  // -g without unwind tables: GCC writes .debug_frame; the .eh_frame the
  // C runtime's objects bring is removed.
  auto dir = std::filesystem::temp_directory_path() / ("stap_unwind_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string src = (dir / "f.c").string(), out = (dir / "debug_frame_only").string();
  std::ofstream(src) << "__attribute__((noipa)) int f(int *p, int n) { int s = 0; "
                        "for (int i = 0; i < n; i++) s += p[i] * f(p, 0); return s; }\n"
                        "int main(int argc, char **argv) { int v[64] = {argc}; return f(v, 64); }\n";
  run_command("cc -g -O2 -fno-asynchronous-unwind-tables -fno-unwind-tables -o " + out + ".full " + src +
              " 2>&1 && objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr " + out +
              ".full " + out + " 2>&1");
  REQUIRE(std::filesystem::exists(out));
  size_t checked = check_against_readelf(out, ".debug_frame");
  CHECK(checked >= 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("unwind table refuses what it cannot read", "[unwind]") {
  UnwindTable table;
  std::string why;
  CHECK_FALSE(build_unwind_table("/nonexistent/binary", table, why));
  CHECK(why.find("/nonexistent/binary") != std::string::npos);
  CHECK_FALSE(build_unwind_table(STAP_DEBUGINFO_SOURCE_DIR "/build.sh", table, why));
  CHECK(why.find("not an ELF") != std::string::npos);
}
