// The debuginfo library's DWARF side: functions, variables and their
// types as stap -L spells them, struct layout checked against what the
// compiler printed (sample_c_O0 --layout), line addresses checked with
// addr2line, separate debuginfo found by .gnu_debuglink and build-id.
#include <catch2/catch.hpp>

#include <filesystem>
#include <algorithm>
#include <map>
#include <set>

#include "debuginfo/debug_file.h"
#include "debuginfo_fixture.h"

using namespace stap::debuginfo;
using stap::test::debuginfo_bin;
using stap::test::lines_of;
using stap::test::marker_line;
using stap::test::open_binary;
using stap::test::run_command;

namespace {

std::string listing(const DwarfFile& dwarf, const DwarfFunction& fn, std::optional<uint64_t> pc) {
  std::string out;
  for (const auto& v : dwarf.parameters(fn)) out += " $" + v.name + ":" + type_name(v.type);
  for (const auto& v : dwarf.locals(fn, pc)) out += " $" + v.name + ":" + type_name(v.type);
  return out;
}

const DwarfFunction& only(const DwarfFile& dwarf, const std::string& spec) {
  auto found = dwarf.match_functions(spec);
  INFO(spec);
  REQUIRE(found.size() == 1);
  return *found[0];
}

}  // namespace

TEST_CASE("debuginfo: parameters, locals and types of C functions", "[debuginfo]") {
  auto bin = open_binary(debuginfo_bin("sample_c_O0"));
  INFO(bin.why);
  REQUIRE(bin.dwarf);
  const auto& dwarf = *bin.dwarf;
  const auto& sum = only(dwarf, "sample_sum");
  CHECK(sum.decl_file.ends_with("tests/data/debuginfo/sample.c"));
  CHECK(sum.external);
  CHECK(listing(dwarf, sum, std::nullopt) ==
        " $r:struct record* $scale:int $label:char const* $calls:int $total:int $i:int $weight:int");
  // At entry only the function body's locals are in scope, as stap -L shows.
  CHECK(listing(dwarf, sum, sum.entry_pc) ==
        " $r:struct record* $scale:int $label:char const* $calls:int $total:int");
  CHECK(type_name(dwarf.return_type(sum)) == "int");
  const auto& scale = only(dwarf, "sample_scale");
  CHECK_FALSE(scale.external);
  CHECK(listing(dwarf, scale, std::nullopt) == " $value:double $factor:unsigned char");
  CHECK(type_name(dwarf.return_type(scale)) == "double");
  CHECK(listing(dwarf, only(dwarf, "sample_marks"), std::nullopt) ==
        " $a:long int $b:int $s:char const*");
  CHECK(type_name(dwarf.return_type(only(dwarf, "sample_marks"))) == "void");
  CHECK(listing(dwarf, only(dwarf, "main"), std::nullopt) ==
        " $argc:int $argv:char** $r:struct record* $sum:int");
  CHECK(dwarf.match_functions("sample_*@sample.c").size() == 3);
  CHECK(dwarf.match_functions("sample_*@other.c").empty());
  CHECK(dwarf.match_functions("sample_sum@*/debuginfo/sample.c:40").size() == 1);
}

TEST_CASE("debuginfo: types: sizes, signedness, targets and arrays", "[debuginfo]") {
  auto bin = open_binary(debuginfo_bin("sample_c_O2"));
  REQUIRE(bin.dwarf);
  const auto& sum = only(*bin.dwarf, "sample_sum");
  auto params = bin.dwarf->parameters(sum);
  REQUIRE(params.size() == 3);
  Type record_ptr = params[0].type;
  CHECK(type_kind(record_ptr) == TypeKind::pointer);
  CHECK(type_size(record_ptr) == 8);
  Type record = target_type(record_ptr);
  CHECK(type_kind(record) == TypeKind::struct_);
  CHECK(type_name(record) == "struct record");
  CHECK(type_signed(params[1].type));
  CHECK(type_size(params[1].type) == 4);
  CHECK(type_name(target_type(params[2].type)) == "char const");
  CHECK(type_kind(target_type(params[2].type)) == TypeKind::base);
  std::string why;
  auto name = find_member(record_ptr, "name", why);
  REQUIRE(name);
  CHECK(type_kind(name->type) == TypeKind::array);
  CHECK(array_count(name->type) == std::optional<uint64_t>(16));
  CHECK(type_name(target_type(name->type)) == "char");
  CHECK(type_name(name->type) == "char[]");
  CHECK_FALSE(find_member(record_ptr, "nope", why));
  CHECK(why == "'struct record' has no member 'nope'");
  CHECK_FALSE(find_member(params[1].type, "x", why));
  CHECK(why == "'int' is not a struct, union or class");
}

TEST_CASE("debuginfo: struct members agree with the compiler's layout", "[debuginfo]") {
  auto bin = open_binary(debuginfo_bin("sample_c_O0"));
  REQUIRE(bin.dwarf);
  Type record_ptr = bin.dwarf->parameters(only(*bin.dwarf, "sample_sum"))[0].type;
  std::map<std::string, uint64_t> layout;
  std::vector<unsigned> bytes;
  for (const auto& line : lines_of(run_command(debuginfo_bin("sample_c_O0") + " --layout"))) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "bytes")
      for (std::string b; words >> b;) bytes.push_back(std::stoul(b, nullptr, 16));
    else
      words >> layout[key];
  }
  REQUIRE(layout.size() == 6);
  CHECK(type_size(target_type(record_ptr)) == layout["sizeof"]);
  std::string why;
  for (const char* field : {"id", "name", "where", "next", "as_int"}) {
    auto m = find_member(record_ptr, field, why);  // as_int: through the anonymous union
    INFO(field << ": " << why);
    REQUIRE(m);
    CHECK(m->offset == layout[field]);
    CHECK(m->bit_size == 0);
  }
  // The bit fields decode the record the program filled with flags=5, level=17.
  REQUIRE(bytes.size() == layout["sizeof"]);
  for (auto [field, value] : {std::pair{"flags", 5u}, std::pair{"level", 17u}}) {
    auto m = find_member(record_ptr, field, why);
    REQUIRE(m);
    REQUIRE(m->bit_size > 0);
    uint64_t unit = 0;
    for (uint32_t i = 0; i < m->storage_size; ++i) unit |= uint64_t(bytes.at(m->offset + i)) << (8 * i);
    CHECK(((unit >> m->bit_offset) & ((1u << m->bit_size) - 1)) == value);
  }
  auto where = find_member(record_ptr, "where", why);
  REQUIRE(where);
  auto y = find_member(where->type, "y", why);
  REQUIRE(y);
  CHECK(y->offset == 8);
}

TEST_CASE("debuginfo: C++ functions by scope, with this and references", "[debuginfo]") {
  auto bin = open_binary(debuginfo_bin("sample_cpp_O0"));
  REQUIRE(bin.dwarf);
  const auto& dwarf = *bin.dwarf;
  const auto& grow = only(dwarf, "outer::inner::Widget::grow");
  CHECK(grow.name == "grow");
  CHECK(grow.qualified == "outer::inner::Widget::grow");
  CHECK(grow.linkage_name == "_ZN5outer5inner6Widget4growEi");
  CHECK(listing(dwarf, grow, std::nullopt) == " $this:struct Widget* const $by:int");
  CHECK(&only(dwarf, "Widget::grow") == &grow);
  CHECK(&only(dwarf, "_ZN5outer5inner6Widget4growEi") == &grow);
  CHECK(&only(dwarf, "inner::*::grow") == &grow);
  CHECK(dwarf.match_functions("other::grow").empty());
  CHECK(listing(dwarf, only(dwarf, "count"), std::nullopt) == " $w:struct Widget const* $n:long int");
  CHECK(dwarf.match_functions("outer::twice").size() == 2);
  CHECK(only(dwarf, "biggest<int>").qualified == "outer::biggest<int>");
  CHECK(only(dwarf, "hidden").qualified == "hidden");  // the anonymous namespace has no name
}

// readelf's decoded line table: the (line, address) rows of `file` that
// begin a statement ("x" in the Stmt column); in `starts`, those whose
// previous row is of another line (where a statement probe goes).
std::set<std::pair<int, uint64_t>> readelf_statements(const std::string& path, const std::string& file,
                                                      std::set<std::pair<int, uint64_t>>& starts) {
  std::set<std::pair<int, uint64_t>> out;
  int previous = 0;
  for (const auto& line : lines_of(run_command("readelf --debug-dump=decodedline " + path))) {
    std::istringstream words(line);
    std::string name, number, addr, last;
    if (!(words >> name >> number >> addr) || name != file || !addr.starts_with("0x") ||
        number.find_first_not_of("0123456789") != std::string::npos)
      continue;
    for (std::string w; words >> w;) last = w;
    int n = std::stoi(number);
    std::pair<int, uint64_t> row{n, std::stoull(addr, nullptr, 16)};
    if (last == "x") out.insert(row);
    if (last == "x" && n != previous) starts.insert(row);
    previous = n;
  }
  return out;
}

TEST_CASE("debuginfo: statement lines map to addresses readelf and addr2line agree with",
          "[debuginfo]") {
  for (const char* name : {"sample_c_O0", "sample_c_O2"}) {
    std::string path = debuginfo_bin(name);
    auto bin = open_binary(path);
    REQUIRE(bin.dwarf);
    const auto& sum = only(*bin.dwarf, "sample_sum");
    std::set<std::pair<int, uint64_t>> starts;
    auto statements = readelf_statements(path, "sample.c", starts);
    REQUIRE_FALSE(statements.empty());
    for (const char* marker : {"sum_body", "sum_loop"}) {
      int line = marker_line("sample.c", marker);
      REQUIRE(line > 0);
      auto addrs = bin.dwarf->line_addresses(&sum, "sample.c", line);
      INFO(name << " line " << line);
      REQUIRE_FALSE(addrs.empty());
      for (uint64_t addr : addrs) {
        CHECK(addr >= sum.low_pc);
        CHECK(addr < sum.high_pc);
        CHECK(statements.count({line, addr}) == 1);
        if (std::string(name) != "sample_c_O0") continue;
        // At -O0 each address holds one line: addr2line and line_at say it.
        char hex[32];
        snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(addr));
        std::string where = run_command("addr2line -e " + path + " " + hex);
        CHECK(where.find("sample.c:" + std::to_string(line)) != std::string::npos);
        auto back = bin.dwarf->line_at(addr);
        REQUIRE(back);
        CHECK(back->line == line);
      }
      // Every statement row of the line inside the function is found (the
      // first of a run of rows for the same line).
      for (const auto& [l, addr] : starts)
        if (l == line && addr >= sum.low_pc && addr < sum.high_pc)
          CHECK(std::find(addrs.begin(), addrs.end(), addr) != addrs.end());
      CHECK(bin.dwarf->line_addresses(nullptr, "*/sample.c", line) == addrs);
    }
    CHECK(bin.dwarf->line_addresses(&sum, "other.c", marker_line("sample.c", "sum_body")).empty());
  }
}

TEST_CASE("debuginfo: separate debuginfo by .gnu_debuglink and by build-id", "[debuginfo]") {
  auto linked = open_binary(debuginfo_bin("sample_c_debuglink"));
  INFO(linked.why);
  REQUIRE(linked.dwarf);
  CHECK(linked.dwarf->debug_path() == debuginfo_bin("sample_c_debuglink.debug"));
  CHECK(linked.dwarf->match_functions("sample_sum").size() == 1);

  std::string root = debuginfo_bin("debugroot");
  auto by_id = open_binary(debuginfo_bin("sample_c_buildid"), root);
  INFO(by_id.why);
  REQUIRE(by_id.dwarf);
  const auto& id = by_id.elf->build_id();
  CHECK(by_id.dwarf->debug_path() ==
        root + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
  const auto& sum = only(*by_id.dwarf, "sample_sum");
  CHECK(by_id.elf->functions_named("sample_sum").at(0)->address == sum.entry_pc);

  auto none = open_binary(debuginfo_bin("sample_c_nodebug"), root + "/missing");
  REQUIRE(none.elf);
  CHECK_FALSE(none.dwarf);
  CHECK(none.why.find("no debuginfo for " + debuginfo_bin("sample_c_nodebug")) == 0);
  CHECK(none.why.find(".build-id/" + id.substr(0, 2)) != std::string::npos);
  CHECK(none.why.find("rebuild it with -g") != std::string::npos);
  CHECK_FALSE(none.elf->functions_named("sample_sum").empty());  // symbols still work
}

TEST_CASE("debuginfo: libc's debuginfo is libc6-dbg's, found by build-id", "[debuginfo]") {
  std::string why;
  auto libc = ElfFile::open("/lib/x86_64-linux-gnu/libc.so.6", why);
  REQUIRE(libc);
  CHECK(debuginfo_package(libc->path()) == "libc6-dbg");
  std::string looked;
  bool installed = !find_debug_file(*libc, looked).empty();
  auto dwarf = DwarfFile::open(*libc, why);
  if (!installed) {
    CHECK_FALSE(dwarf);
    CHECK(why.find("install libc6-dbg") != std::string::npos);
    WARN("libc6-dbg is not installed: libc's variables are not checked");
    return;
  }
  REQUIRE(dwarf);
  // malloc is an alias of __libc_malloc: the DWARF function is found by
  // the symbol's address.
  uint64_t malloc_addr = libc->functions_named("malloc").at(0)->address;
  const DwarfFunction* fn = dwarf->function_at(malloc_addr);
  REQUIRE(fn);
  CHECK(fn->entry_pc == malloc_addr);
  CHECK(fn->name == "__libc_malloc");
  CHECK(fn->decl_file == "./malloc/malloc.c");
  auto params = dwarf->parameters(*fn);
  REQUIRE(params.size() == 1);
  CHECK(params[0].name == "bytes");
  CHECK(type_name(params[0].type) == "size_t");
  std::string where;
  auto loc = dwarf->location(*fn, params[0], fn->entry_pc, where);
  INFO(where);
  REQUIRE(loc);
  CHECK(describe(*loc) == "register: rdi");
}

TEST_CASE("debuginfo: the calls a function makes, from its DWARF call sites", "[debuginfo]") {
  // -O2: GCC records main's calls, each returning inside main; the ones
  // into this file are resolved to their functions, the library's are not.
  auto bin = open_binary(debuginfo_bin("sample_c_O2"));
  REQUIRE(bin.dwarf);
  const DwarfFunction& main_fn = only(*bin.dwarf, "main");
  std::map<std::string, const DwarfCall*> calls;
  std::vector<DwarfCall> all = bin.dwarf->calls(main_fn);
  for (const DwarfCall& c : all) calls.emplace(c.callee, &c);
  for (const char* name : {"sample_sum", "sample_marks", "sample_scale", "sample_lib_twice"}) {
    INFO(name);
    REQUIRE(calls.count(name));
    CHECK(calls[name]->return_pc != 0);
    CHECK(bin.dwarf->function_at(calls[name]->return_pc) == &main_fn);
  }
  CHECK(bin.dwarf->called(*calls["sample_sum"]) == &only(*bin.dwarf, "sample_sum"));
  CHECK(bin.dwarf->called(*calls["sample_lib_twice"]) == nullptr);  // in libdisample.so.1
  // -O0: no call sites at all.
  auto o0 = open_binary(debuginfo_bin("sample_c_O0"));
  REQUIRE(o0.dwarf);
  CHECK(o0.dwarf->calls(only(*o0.dwarf, "main")).empty());
}
