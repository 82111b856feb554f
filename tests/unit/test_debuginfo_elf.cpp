// The debuginfo library's ELF side, cross-checked against nm, readelf and
// objdump run on the same binaries.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "debuginfo/binary_path.h"
#include "debuginfo/symbol_match.h"
#include "debuginfo_fixture.h"

using namespace stap::debuginfo;
using stap::test::debuginfo_bin;
using stap::test::lines_of;
using stap::test::run_command;

namespace {

// nm's defined text symbols (T/t/W/i) of `path`: name -> addresses.
std::map<std::string, std::set<uint64_t>> nm_functions(const std::string& path, bool dynamic) {
  std::map<std::string, std::set<uint64_t>> out;
  for (const auto& line : lines_of(run_command("nm " + std::string(dynamic ? "-D " : "") + path + " 2>/dev/null"))) {
    std::istringstream words(line);
    std::string addr, type, name;
    if (!(words >> addr >> type >> name) || type.size() != 1) continue;
    if (std::string("TtWi").find(type[0]) == std::string::npos) continue;
    if (auto at = name.find('@'); at != std::string::npos) name.resize(at);
    uint64_t value = std::stoull(addr, nullptr, 16);
    if (value) out[name].insert(value);
  }
  return out;
}

// readelf -sW's defined FUNC/IFUNC symbols of both tables: name -> addresses.
std::map<std::string, std::set<uint64_t>> readelf_functions(const std::string& path) {
  std::map<std::string, std::set<uint64_t>> out;
  for (const auto& line : lines_of(run_command("readelf -sW " + path))) {
    std::istringstream words(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (!(words >> num >> value >> size >> type >> bind >> vis >> ndx >> name)) continue;
    if ((type != "FUNC" && type != "IFUNC") || ndx == "UND") continue;
    if (auto at = name.find('@'); at != std::string::npos) name.resize(at);
    uint64_t address = std::stoull(value, nullptr, 16);
    if (address) out[name].insert(address);
  }
  return out;
}

struct Section {
  uint64_t addr, offset, size;
};

// readelf -SW's sections: name -> (address, file offset, size).
std::map<std::string, Section> readelf_sections(const std::string& path) {
  std::map<std::string, Section> out;
  for (auto line : lines_of(run_command("readelf -SW " + path))) {
    auto close = line.find(']');
    if (line.find('[') == std::string::npos || close == std::string::npos) continue;
    std::istringstream words(line.substr(close + 1));
    std::string name, type, addr, off, size;
    if (!(words >> name >> type >> addr >> off >> size) || type == "NOBITS") continue;
    try {
      out[name] = {std::stoull(addr, nullptr, 16), std::stoull(off, nullptr, 16),
                   std::stoull(size, nullptr, 16)};
    } catch (...) {
    }
  }
  return out;
}

}  // namespace

TEST_CASE("debuginfo: function symbols match nm's, and file offsets readelf's sections",
          "[debuginfo]") {
  for (const char* name : {"sample_c_O0", "sample_c_O2", "sample_c_nopie", "sample_cpp_O2",
                           "libdisample.so.1"}) {
    std::string path = debuginfo_bin(name), why;
    auto elf = ElfFile::open(path, why);
    INFO(name << ": " << why);
    REQUIRE(elf);
    auto expected = readelf_functions(path);
    REQUIRE(expected.count("main") + expected.count("sample_lib_twice") == 1);
    // nm agrees on the text symbols' names (it lists no symbol types).
    for (const auto& [sym, addrs] : nm_functions(path, false))
      if (sym != "_.stapsdt.base" && sym != "data_start") CHECK(expected.count(sym) == 1);
    std::map<std::string, std::set<uint64_t>> got;
    for (const auto& sym : elf->functions()) got[sym.name].insert(sym.address);
    CHECK(got == expected);

    // The bytes at a symbol's file offset are the bytes .text holds at its
    // address (readelf's section table, not the program headers).
    auto text = readelf_sections(path).at(".text");
    for (const auto& sym : elf->functions()) {
      if (sym.address < text.addr || sym.address >= text.addr + text.size) continue;
      auto offset = elf->file_offset(sym.address);
      INFO(sym.name);
      REQUIRE(offset);
      CHECK(*offset == text.offset + (sym.address - text.addr));
    }
    CHECK(elf->relocatable() == (std::string(name) != "sample_c_nopie"));
  }
}

TEST_CASE("debuginfo: a function past the file-backed segments has no file offset",
          "[debuginfo]") {
  std::string why;
  auto elf = ElfFile::open(debuginfo_bin("sample_c_O0"), why);
  REQUIRE(elf);
  uint64_t end = 0;
  for (const auto& seg : elf->segments()) end = std::max(end, seg.vaddr + seg.memsz);
  CHECK_FALSE(elf->file_offset(end + 0x1000));
  CHECK_FALSE(ElfFile::open(debuginfo_bin("build.stamp"), why));
  CHECK(why.find("not an ELF file") != std::string::npos);
}

TEST_CASE("debuginfo: .plt stubs match objdump's name@plt labels", "[debuginfo]") {
  for (const char* name : {"sample_c_O0", "sample_c_nopie", "sample_cpp_O0"}) {
    std::string path = debuginfo_bin(name), why;
    auto elf = ElfFile::open(path, why);
    REQUIRE(elf);
    std::map<std::string, uint64_t> expected;
    for (const auto& line : lines_of(run_command("objdump -d -j .plt -j .plt.sec " + path))) {
      auto at = line.find("@plt>:");
      auto open = line.find(" <");
      if (at == std::string::npos || open == std::string::npos) continue;
      expected[line.substr(open + 2, at - open - 2)] = std::stoull(line, nullptr, 16);
    }
    std::map<std::string, uint64_t> got;
    for (const auto& entry : elf->plt_entries()) got[entry.name] = entry.address;
    INFO(name);
    CHECK(expected.count("printf") + expected.count("puts") >= 1);
    CHECK(got == expected);
  }
}

TEST_CASE("debuginfo: MiniDebugInfo gives back the static functions strip removed",
          "[debuginfo]") {
  std::string why;
  auto full = ElfFile::open(debuginfo_bin("sample_c_O2"), why);
  auto mini = ElfFile::open(debuginfo_bin("sample_c_mini"), why);
  REQUIRE(full);
  REQUIRE(mini);
  CHECK(mini->minidebug_note() == "");
  CHECK_FALSE(mini->has_section(".symtab"));
  // A static function (gcc names the -O2 copy "sample_scale.constprop.0"):
  // not in .dynsym, only in the MiniDebugInfo's .symtab.
  auto scale = match_symbols(*mini, "sample_scale*");
  REQUIRE(scale.size() == 1);
  CHECK(scale[0]->source == ElfSymbol::minidebug);
  CHECK(scale[0]->address == match_symbols(*full, "sample_scale*").at(0)->address);
  CHECK(mini->functions().size() == full->functions().size());
  CHECK(nm_functions(debuginfo_bin("sample_c_mini"), false).empty());
}

TEST_CASE("debuginfo: C++ symbols match by mangled, qualified and plain names", "[debuginfo]") {
  std::string why;
  auto elf = ElfFile::open(debuginfo_bin("sample_cpp_O0"), why);
  REQUIRE(elf);
  auto names = [&](const std::string& pattern) {
    std::set<std::string> out;
    for (const auto* sym : match_symbols(*elf, pattern)) out.insert(sym->demangled);
    return out;
  };
  CHECK(names("outer::inner::Widget::grow") == std::set<std::string>{"outer::inner::Widget::grow(int)"});
  CHECK(names("grow") == std::set<std::string>{"outer::inner::Widget::grow(int)"});
  CHECK(names("_ZN5outer5inner6Widget4growEi") == std::set<std::string>{"outer::inner::Widget::grow(int)"});
  CHECK(names("outer::twice") == std::set<std::string>{"outer::twice(int)", "outer::twice(double)"});
  CHECK(names("outer::inner::*") ==
        std::set<std::string>{"outer::inner::Widget::grow(int)", "outer::inner::Widget::Widget(int)",
                              "outer::inner::Widget::count(outer::inner::Widget const*, long)"});
  CHECK(names("biggest<int>") == std::set<std::string>{"int outer::biggest<int>(int, int)"});
  CHECK(names("inner::twice").empty());
  CHECK(without_parameters("ns::C<int>::operator()(int) const") == "ns::C<int>::operator()");
  CHECK(unqualified("a::b<c::d>::f") == "f");
}

TEST_CASE("debuginfo: programs in $PATH and libraries by soname and DT_NEEDED", "[debuginfo]") {
  std::string why;
  CHECK(find_executable("ls", why, "/nonexistent:/usr/bin") == "/usr/bin/ls");
  CHECK(find_executable("no-such-program-here", why, "/usr/bin").empty());
  CHECK(why.find("$PATH") != std::string::npos);
  std::string libc = std::filesystem::canonical("/lib/x86_64-linux-gnu/libc.so.6").string();
  CHECK(find_library("libc.so.6", "", why) == libc);
  CHECK(find_library("libc", debuginfo_bin("sample_c_O0"), why) == libc);
  // libdisample.so.1 is only in the program's DT_RUNPATH ($ORIGIN).
  CHECK(find_library("libdisample", debuginfo_bin("sample_c_O0"), why) ==
        debuginfo_bin("libdisample.so.1"));
  CHECK(find_library("libdisample", "", why).empty());
  CHECK(why.find("libdisample") != std::string::npos);
  auto lib = ElfFile::open(debuginfo_bin("libdisample.so.1"), why);
  REQUIRE(lib);
  CHECK(lib->soname() == "libdisample.so.1");
}

TEST_CASE("debuginfo: libc's malloc by symbol, as nm -D sees it", "[debuginfo]") {
  std::string path = "/lib/x86_64-linux-gnu/libc.so.6", why;
  auto libc = ElfFile::open(path, why);
  REQUIRE(libc);
  auto expected = nm_functions(path, true).at("malloc");
  auto found = libc->functions_named("malloc");
  REQUIRE(found.size() == 1);
  CHECK(expected.count(found[0]->address) == 1);
  CHECK(libc->file_offset(found[0]->address));
  CHECK(libc->build_id().size() == 40);
  // An alias at the same address (glibc's __libc_malloc) when .symtab or
  // .dynsym has one; otherwise just the one name.
  for (const auto* sym : match_symbols(*libc, "*malloc"))
    CHECK(sym->name.ends_with("malloc"));
}
