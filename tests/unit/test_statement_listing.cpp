// Statement points as SystemTap 4.8 lists them (stap -L
// 'process("P").statement("*@sample.c:*")' and single lines, lists and
// ranges), and probefunc() of inlined copies.  The expected lines are
// stap 4.8's output on the test programs (tests/data/debuginfo), built
// by this GCC: the first line of each function from its entry, no line
// past a gap, one line per address, and at each line the variables whose
// location covers it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "debuginfo/process_listing.h"
#include "debuginfo_fixture.h"

using namespace stap::debuginfo;
using stap::test::debuginfo_bin;
using stap::test::debuginfo_source;

namespace {

// "-L" of a statement point of `bin`, each line without the process
// prefix and the source directory: "sample_sum@:41 $r:struct record*".
std::vector<std::string> listed(const std::string& bin, const std::string& spec, bool vars,
                                std::string& why) {
  auto pattern = parse_process_pattern("process(\"" + debuginfo_bin(bin) + "\").statement(\"" +
                                       spec + "\")");
  REQUIRE(pattern);
  std::vector<std::string> out;
  const std::string source = debuginfo_source("sample.c");
  for (std::string line : list_process_points(*pattern, vars, why)) {
    size_t at = line.find(".statement(\"");
    REQUIRE(at != std::string::npos);
    line = line.substr(at + 12);
    if (size_t s = line.find(source); s != std::string::npos) line.erase(s, source.size());
    if (size_t q = line.find("\")"); q != std::string::npos) line.erase(q, 2);
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> listed(const std::string& bin, const std::string& spec, bool vars = false) {
  std::string why;
  auto out = listed(bin, spec, vars, why);
  INFO(why);
  return out;
}

}  // namespace

TEST_CASE("statement listing: every line of -O0 code, as stap 4.8 lists it", "[statement]") {
  std::vector<std::string> expected = {
      "main@:79 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:80 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:81 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:82 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:84 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:85 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:86 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:87 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:88 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:89 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:90 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:91 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:92 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:93 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:94 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:95 $argc:int $argv:char** $r:struct record* $sum:int",
      "print_layout@:65 $r:struct record",
      "print_layout@:66 $r:struct record",
      "print_layout@:67 $r:struct record",
      "print_layout@:71 $r:struct record",
      "print_layout@:72 $r:struct record",
      "print_layout@:73 $r:struct record",
      "print_layout@:74 $r:struct record",
      "print_layout@:75 $i:size_t $r:struct record",
      "print_layout@:76 $r:struct record",
      "print_layout@:77 $r:struct record",
      "sample_marks@:57 $a:long int $b:int $s:char const*",
      "sample_marks@:58 $a:long int $b:int $s:char const*",
      "sample_marks@:59 $a:long int $b:int $s:char const*",
      "sample_marks@:60 $a:long int $b:int $s:char const*",
      "sample_scale@:53 $value:double $factor:unsigned char",
      "sample_scale@:54 $value:double $factor:unsigned char",
      "sample_scale@:55 $value:double $factor:unsigned char",
      "sample_sum@:41 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:43 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:44 $i:int $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:45 $weight:int $i:int $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:46 $weight:int $i:int $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:48 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:49 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:50 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:51 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
  };
  CHECK(listed("sample_c_O0", "*@sample.c:*", true) == expected);
}

TEST_CASE("statement listing: -O2 code: gaps, shared addresses, inlined copies", "[statement]") {
  // Lines 42, 43 and 46 share an address with an earlier line; print_layout
  // is inlined into main, whose walk from its entry line (79) never
  // reaches the copy's lines: they come from the copy's walk and are
  // listed under both.  $r of main is not listed before line 86, where
  // its location begins.
  std::vector<std::string> expected = {
      "main@:66 $argc:int $argv:char**",
      "main@:67 $argc:int $argv:char**",
      "main@:70 $argc:int $argv:char**",
      "main@:71 $argc:int $argv:char**",
      "main@:72 $argc:int $argv:char**",
      "main@:75 $argc:int $argv:char**",
      "main@:76 $argc:int $argv:char**",
      "main@:77 $argc:int $argv:char**",
      "main@:79 $argc:int $argv:char**",
      "main@:81 $argc:int $argv:char**",
      "main@:84 $argc:int $argv:char**",
      "main@:85 $argc:int $argv:char**",
      "main@:86 $argc:int $argv:char** $r:struct record*",
      "main@:87 $argc:int $argv:char** $r:struct record*",
      "main@:89 $argc:int $argv:char** $r:struct record*",
      "main@:90 $argc:int $argv:char** $r:struct record*",
      "main@:91 $argc:int $argv:char** $r:struct record*",
      "main@:92 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:93 $argc:int $argv:char** $r:struct record* $sum:int",
      "main@:94 $argc:int $argv:char**",
      "print_layout@:66 $r:struct record",
      "print_layout@:67 $r:struct record",
      "print_layout@:70 $r:struct record",
      "print_layout@:71 $r:struct record",
      "print_layout@:72 $r:struct record",
      "print_layout@:75 $i:size_t $r:struct record",
      "print_layout@:76 $r:struct record",
      "print_layout@:77 $r:struct record",
      "print_layout@:81 $r:struct record",
      "sample_marks@:58 $a:long int $b:int $s:char const*",
      "sample_marks@:59 $a:long int $b:int $s:char const*",
      "sample_marks@:60 $a:long int $b:int $s:char const*",
      "sample_scale@:54 $factor:unsigned char $value:double",
      "sample_scale@:55 $factor:unsigned char $value:double",
      "sample_sum@:41 $r:struct record* $scale:int $label:char const* $calls:int",
      "sample_sum@:44 $i:int $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:45 $i:int $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:48 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:49 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:50 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
      "sample_sum@:51 $r:struct record* $scale:int $label:char const* $calls:int $total:int",
  };
  CHECK(listed("sample_c_O2", "*@sample.c:*", true) == expected);
}

TEST_CASE("statement listing: single lines, lists, ranges, relative lines", "[statement]") {
  using V = std::vector<std::string>;
  CHECK(listed("sample_c_O2", "sample_sum@sample.c:41-46") ==
        V{"sample_sum@:41", "sample_sum@:44", "sample_sum@:45"});
  CHECK(listed("sample_c_O2", "sample_sum@sample.c:42,45") == V{"sample_sum@:42", "sample_sum@:45"});
  // A single line is found even where a range would give its address to
  // an earlier line.
  CHECK(listed("sample_c_O2", "sample_sum@sample.c:42") == V{"sample_sum@:42"});
  CHECK(listed("sample_c_O2", "sample_sum@sample.c+3") == V{"sample_sum@:44"});
  CHECK(listed("sample_c_O2", "print_layout@sample.c:75", true) == V{"print_layout@:75 $i:size_t $r:struct record"});
  // No line: the function's entry, named by its declaration line.
  CHECK(listed("sample_c_O2", "sample_sum") == V{"sample_sum@:41"});
  CHECK(listed("sample_c_O2", "sample_sum@sample.c") == V{"sample_sum@:41"});
  std::string why;
  CHECK(listed("sample_c_O2", "sample_sum@sample.c:36", false, why).empty());
  CHECK(why == "no line records for " + debuginfo_source("sample.c") +
                   ":36 [man error::dwarf] (try :41)");
  CHECK(listed("sample_c_O2", "sample_sum@sample.c:20", false, why).empty());
  CHECK(why == "no line records for " + debuginfo_source("sample.c") + ":20 [man error::dwarf]");
  CHECK(listed("sample_c_O2", "sample_sum@sample.c:4x", false, why).empty());
  CHECK(why == "malformed specification 'sample_sum@sample.c:4x'");
}

TEST_CASE("probefunc() of an inlined copy is its caller's symbol, as stap's usymname(uaddr())",
          "[statement]") {
  std::string why;
  auto resolve = [&](const std::string& kind, const std::string& spec) {
    auto pattern = parse_process_pattern("process(\"" + debuginfo_bin("sample_c_O2") + "\")." + kind +
                                         "(\"" + spec + "\")");
    REQUIRE(pattern);
    ResolvedPoint r;
    REQUIRE(resolve_process_point(*pattern, r, why));
    return r;
  };
  ResolvedPoint fn = resolve("function", "print_layout");
  REQUIRE_FALSE(fn.sites.empty());
  for (const auto& s : fn.sites) {
    CHECK(s.point.ends_with("function(\"print_layout@" + debuginfo_source("sample.c") + ":65\")"));
    CHECK(s.function == "main");
  }
  ResolvedPoint lines = resolve("statement", "*@sample.c:75");
  REQUIRE(lines.sites.size() == 2);  // main's line and the copy's
  for (const auto& s : lines.sites) CHECK(s.function == "main");
  // Out-of-line functions keep their own name.
  ResolvedPoint sum = resolve("function", "sample_sum");
  REQUIRE(sum.sites.size() == 1);
  CHECK(sum.sites[0].function == "sample_sum");
}
