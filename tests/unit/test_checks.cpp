// Pass 2's rules that are not about types (elaborate/checks.h): lvalues,
// loops, foreach modification, @entry, histograms, wrapping, guru writes.
#include <catch2/catch.hpp>

#include "elaborate_fixture.h"

using stap::test::ElaborateFixture;

namespace {

// The first error of a script that must fail, as "message: token at loc".
std::string first_error(const std::string& script, bool guru = false) {
  ElaborateFixture f(true);
  f.options.guru = guru;
  CHECK_FALSE(f.run(script));
  for (const stap::Diagnostic& d : f.diags.all())
    if (d.severity == stap::Severity::error)
      return d.message + ": " + d.token + " at " + stap::format_loc(f.sources, d.loc);
  return "";
}

bool passes(const std::string& script, bool guru = false) {
  ElaborateFixture f(true);
  f.options.guru = guru;
  bool ok = f.run(script);
  INFO(f.messages());
  return ok;
}

}  // namespace

TEST_CASE("only variables, elements and target variables can be assigned") {
  ElaborateFixture f;
  CHECK_FALSE(f.run("probe begin { 1 = x }"));
  // stap's order: the elision warning, then the error pointing at both.
  CHECK(f.messages().ends_with(
      "semantic error: Expecting lvalue for assignment: operator '=' at <input>:1:17\n"
      "        source: probe begin { 1 = x }\n"
      "                                ^\n"
      "number '1' at <input>:1:15\n"
      "        source: probe begin { 1 = x }\n"
      "                              ^\n\n"));
  CHECK(f.messages().starts_with("WARNING: never-assigned local variable 'x'"));
  CHECK(first_error("probe begin { 5++ }") ==
        "Expecting lvalue for assignment: operator '++' at <input>:1:16");
  CHECK(first_error("global s; probe begin { s <<< 1; @hist_log(s)[2] += 1 }") ==
        "Expecting lvalue for assignment: operator '+=' at <input>:1:50");
  CHECK(passes("global a; probe begin { x = 1; a[x] += 2; x++; print(x, a[1]) }"));
}

TEST_CASE("break and continue belong in loops") {
  CHECK(first_error("probe begin { println(1); break }") ==
        "cannot 'break' outside loop: keyword at <input>:1:27");
  CHECK(first_error("function f() { continue } probe begin { f() }") ==
        "cannot 'continue' outside loop: keyword at <input>:1:16");
  CHECK(passes("global a; probe begin { a[1] = 1; for (i = 0; i < 3; i++) { if (i) break; continue }"
               " while (1) break; foreach (k in a) { if (k) continue; break } }"));
}

TEST_CASE("an array cannot change inside a foreach over it") {
  CHECK(first_error("global a; probe begin { a[1] = 1; foreach (k in a) { a[k] <<< 1 } }") ==
        "variable 'a' modified during 'foreach' iteration: identifier 'a' at <input>:1:54");
  CHECK(first_error("global a; probe begin { a[1] = 1; foreach (k in a) delete a[k] }") ==
        "variable 'a' modified during 'foreach' iteration: identifier 'a' at <input>:1:59");
  // Through a function, however deep.
  CHECK(first_error("global a; function g() { a[2]++ } function f() { g() }\n"
                    "probe begin { a[1] = 1; foreach (k in a) f() }") ==
        "function call modifies var 'a' during 'foreach' iteration: identifier 'f' at <input>:2:42");
  // The outer loop's array, from an inner loop.
  CHECK(first_error("global a, b; probe begin { a[1] = 1; foreach (k in a) { b[k] = 1;"
                    " foreach (j in b) a[j] = 2 } }") ==
        "variable 'a' modified during 'foreach' iteration: identifier 'a' at <input>:1:84");
  // Emptying the whole array, other arrays, and after the loop are fine.
  CHECK(passes("global a, b; function f() { b[1] = 1 }\n"
               "probe begin { a[1] = 1; foreach (k in a) { delete a; b[k] = 1; f() } a[2] = 2 }"));
}

TEST_CASE("@entry only in function .return probes") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("probe timer.s(1) { println(@entry(1)); println(@entry(2)) }"));
  CHECK(f.messages() ==
        "semantic error: while processing probe timer.s(1)\n\n"
        "semantic error: internal error: @entry is only valid in .return probes: "
        "operator '@entry' at <input>:1:28\n"
        "        source: probe timer.s(1) { println(@entry(1)); println(@entry(2)) }\n"
        "                                           ^\n\n");
  CHECK(first_error("function f() { return @entry(1) } probe begin { println(f()) }") ==
        "while processing function f:  at <unknown location>");
  CHECK(first_error("probe kernel.function(\"vfs_read\") { println(@entry($x)) }").starts_with(
      "while processing probe kernel.function(\"vfs_read\")"));
  CHECK(passes("probe kernel.function(\"vfs_read\").return { println(@entry($x)) }"));
  // Probes sharing the text are told once; an alias names what it matched.
  ElaborateFixture shared(true);
  CHECK_FALSE(shared.run("probe begin, end { println(@entry(1)) }"));
  CHECK(shared.diags.error_count() == 2);
  ElaborateFixture alias(true);
  alias.load({stap::test::test_tapset_dir()});
  CHECK_FALSE(alias.run("probe syscall.clo* { println(@entry(1)) }"));
  CHECK(alias.messages().starts_with(
      "semantic error: while processing probe syscall.close from: syscall.clo*\n"));
  CHECK(passes("probe process(\"/lib/x86_64-linux-gnu/libc.so.6\").function(\"malloc\").return "
               "{ println(@entry($x)) }"));
}

TEST_CASE("one histogram shape per statistic, and a positive linear step") {
  CHECK(first_error("global s; probe begin { s <<< 1; print(@hist_log(s)) }\n"
                    "probe end { print(@hist_linear(s, 0, 100, 10)) }") ==
        "multiple histogram types declared on '__global_s': operator '@hist_linear' at <input>:2:19");
  CHECK(first_error("global s; probe begin { s[1] <<< 1; print(@hist_linear(s[1], 0, 100, 10));"
                    " print(@hist_linear(s[2], 0, 100, 5)) }") ==
        "multiple histogram types declared on '__global_s': operator '@hist_linear' at <input>:1:82");
  CHECK(first_error("global s; probe begin { s <<< 1; print(@hist_linear(s, 0, 10, 0)) }") ==
        "@hist_linear step must be greater than 0: number '0' at <input>:1:63");
  CHECK(passes("global s; probe begin { s <<< 1; print(@hist_linear(s, 0, 10, 2));"
               " print(@hist_linear(s, 0, 10, 2)); foreach (b in @hist_linear(s, 0, 10, 2)) print(b) }"));
}

TEST_CASE("wrapping is for arrays") {
  CHECK(first_error("global w%\nprobe begin { w = 1; println(w) }") ==
        "wrapping not supported for scalars: identifier 'w' at <input>:1:8");
  CHECK(passes("global w%; probe begin { w[1] = 1; println(w[1]) }"));
}

TEST_CASE("writing a target variable needs guru mode") {
  CHECK(first_error("probe kernel.function(\"vfs_read\") { $count = 0 }") ==
        "write to target variable not permitted; need stap -g: identifier '$count' at <input>:1:37");
  CHECK(first_error("probe kernel.function(\"vfs_read\") { $count++ }").starts_with(
      "write to target variable not permitted"));
  CHECK(passes("probe kernel.function(\"vfs_read\") { $count = 0 }", /*guru=*/true));
  // Where there are no target variables, that is the error instead.
  CHECK(first_error("probe begin { $count = 0 }") ==
        "unresolved target-symbol expression: identifier '$count' at <input>:1:15");
}
