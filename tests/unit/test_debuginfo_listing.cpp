// stap -l/-L of process("P") points (debuginfo/process_listing.h).  The
// expected lines are what Debian's SystemTap 4.8 prints for the same test
// programs (checked by hand with its -l/-L when these tests were written).
#include <catch2/catch.hpp>

#include <fstream>

#include "debuginfo/process_listing.h"
#include "debuginfo_fixture.h"

using namespace stap::debuginfo;
using stap::test::debuginfo_bin;
using stap::test::debuginfo_source;

namespace {

std::vector<std::string> list(const std::string& pattern, bool with_vars) {
  auto parsed = parse_process_pattern(pattern);
  INFO(pattern);
  REQUIRE(parsed);
  std::string why;
  auto out = list_process_points(*parsed, with_vars, why);
  INFO(why);
  CHECK(why.empty());
  return out;
}

// The line declaring `signature` in a test source.
int decl_line(const std::string& source, const std::string& signature) {
  std::ifstream in(debuginfo_source(source));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(signature) != std::string::npos) return n;
  return 0;
}

}  // namespace

TEST_CASE("debuginfo listing: functions with their variables", "[debuginfo]") {
  std::string exe = debuginfo_bin("sample_c_O0");
  std::string prefix = "process(\"" + exe + "\").function(\"";
  std::string at = "@" + debuginfo_source("sample.c") + ":";
  std::vector<std::string> expected{
      prefix + "sample_marks" + at + std::to_string(decl_line("sample.c", "void sample_marks(")) +
          "\") $a:long int $b:int $s:char const*",
      prefix + "sample_scale" + at + std::to_string(decl_line("sample.c", "double sample_scale(")) +
          "\") $value:double $factor:unsigned char",
      prefix + "sample_sum" + at + std::to_string(decl_line("sample.c", "int sample_sum(")) +
          "\") $r:struct record* $scale:int $label:char const* $calls:int $total:int"};
  CHECK(list("process(\"" + exe + "\").function(\"sample_*\")", true) == expected);
  for (auto& line : expected) line.resize(line.find("\") $") + 2);
  CHECK(list("process(\"" + exe + "\").function(\"sample_*\")", false) == expected);
  // .call keeps the suffix; a program found in $PATH by name.
  auto call = list("process(\"" + exe + "\").function(\"sample_sum\").call", false);
  REQUIRE(call.size() == 1);
  CHECK(call[0] == expected[2] + ".call");
  auto ls = list("process(\"ls\").function(\"_obstack_begin\")", false);
  CHECK(ls == std::vector<std::string>{"process(\"/usr/bin/ls\").function(\"_obstack_begin\")"});
}

TEST_CASE("debuginfo listing: statements, marks, plt, libraries, symbols only", "[debuginfo]") {
  std::string exe = debuginfo_bin("sample_c_O0");
  std::string proc = "process(\"" + exe + "\")";
  int loop = stap::test::marker_line("sample.c", "sum_loop");
  auto statement = list(proc + ".statement(\"sample_sum@sample.c:" + std::to_string(loop) + "\")", true);
  CHECK(statement == std::vector<std::string>{
                         proc + ".statement(\"sample_sum@" + debuginfo_source("sample.c") + ":" +
                         std::to_string(loop) +
                         "\") $weight:int $i:int $r:struct record* $scale:int $label:char const* "
                         "$calls:int $total:int"});
  CHECK(list(proc + ".provider(\"sample\").mark(\"*\")", true) ==
        std::vector<std::string>{proc + ".provider(\"sample\").mark(\"counted\") $arg1:long",
                                 proc + ".provider(\"sample\").mark(\"summed\") $arg1:long $arg2:long",
                                 proc + ".provider(\"sample\").mark(\"three\") $arg1:long $arg2:long $arg3:long"});
  CHECK(list(proc + ".mark(\"t*\")", false) == std::vector<std::string>{proc + ".mark(\"three\")"});
  CHECK(list(proc + ".plt(\"str*\")", false) ==
        std::vector<std::string>{proc + ".plt(\"strcmp\")", proc + ".plt(\"strlen\")"});
  std::string lib = debuginfo_bin("libdisample.so.1");
  CHECK(list(proc + ".library(\"libdisample*\").function(\"sample*\")", false) ==
        std::vector<std::string>{proc + ".library(\"" + lib + "\").function(\"sample_lib_twice@" +
                                 debuginfo_source("sample_lib.c") + ":" +
                                 std::to_string(decl_line("sample_lib.c", "long sample_lib_twice(")) +
                                 "\")"});
  std::string mini = debuginfo_bin("sample_c_mini");
  CHECK(list("process(\"" + mini + "\").function(\"sample_*\")", true) ==
        std::vector<std::string>{"process(\"" + mini + "\").function(\"sample_marks\")",
                                 "process(\"" + mini + "\").function(\"sample_scale.constprop.0\")",
                                 "process(\"" + mini + "\").function(\"sample_sum\")"});
}

TEST_CASE("debuginfo listing: C++ functions and inlined copies", "[debuginfo]") {
  std::string exe = debuginfo_bin("sample_cpp_O2");
  std::string prefix = "process(\"" + exe + "\").function(\"";
  std::string at = "@" + debuginfo_source("sample_cpp.cpp") + ":";
  // The constructor exists only inlined into main at -O2.
  CHECK(list("process(\"" + exe + "\").function(\"Widget\")", true) ==
        std::vector<std::string>{prefix + "Widget" + at +
                                 std::to_string(decl_line("sample_cpp.cpp", "explicit Widget(")) +
                                 "\") $s:int $this:struct Widget* const"});
  CHECK(list("process(\"" + exe + "\").function(\"outer::inner::Widget::grow\")", false) ==
        std::vector<std::string>{prefix + "grow" + at +
                                 std::to_string(decl_line("sample_cpp.cpp", "int Widget::grow(")) + "\")"});
}

TEST_CASE("debuginfo listing: which patterns are process points", "[debuginfo]") {
  auto p = parse_process_pattern("process(\"/bin/x.y\").library(\"libc.so.6\").function(\"f@a.c:3\").return");
  REQUIRE(p);
  CHECK(p->process == "/bin/x.y");
  CHECK(p->library == "libc.so.6");
  CHECK(p->kind == "function");
  CHECK(p->spec == "f@a.c:3");
  CHECK(p->suffix == ".return");
  CHECK_FALSE(parse_process_pattern("kernel.function(\"f\")"));
  CHECK_FALSE(parse_process_pattern("process(\"x\").begin"));
  CHECK_FALSE(parse_process_pattern("process(123).function(\"f\")"));
  CHECK_FALSE(parse_process_pattern("process(\"x\").provider(\"p\").function(\"f\")"));
  CHECK_FALSE(parse_process_pattern("process(\"x\").mark(\"m\").return"));
  std::string why;
  auto none = list_process_points(*parse_process_pattern("process(\"no-such-program\").function(\"*\")"),
                                  false, why);
  CHECK(none.empty());
  CHECK(why.find("no-such-program") != std::string::npos);
}
