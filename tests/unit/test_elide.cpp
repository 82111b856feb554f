// Elision of unused code as stap does it without -u, with its warnings,
// and the written-but-unread globals shown at exit.
#include <catch2/catch.hpp>

#include "elaborate_fixture.h"

using stap::test::ElaborateFixture;

namespace {

// The warning lines alone, without their source lines.
std::vector<std::string> warnings(const stap::Diagnostics& diags) {
  std::vector<std::string> out;
  for (const stap::Diagnostic& d : diags.all())
    if (d.severity == stap::Severity::warning) out.push_back(d.message + ": " + d.token);
  return out;
}

}  // namespace

TEST_CASE("assignments to unread locals go, then what is left if it does nothing") {
  ElaborateFixture f;
  REQUIRE(f.run("probe begin { x = 1; y = 2; 1 + 2; print(y); w = 3 }"));
  CHECK(warnings(f.diags) == std::vector<std::string>{
                                 "Eliding assignment to 'x': operator '='",
                                 "Eliding assignment to 'w': operator '='",
                                 "Eliding side-effect-free expression : identifier 'x'",
                                 "Eliding side-effect-free expression : number '1'",
                                 "Eliding side-effect-free expression : identifier 'w'",
                             });
  REQUIRE(f.program.probes.size() == 1);
  auto& locals = f.program.probes[0].decl->locals;
  REQUIRE(locals.size() == 1);
  CHECK(locals[0]->name == "y");
  CHECK(f.program.probes[0].decl->body->statements.size() == 2);
}

TEST_CASE("type conflicts are reported even in code that would be elided") {
  // Unlike stap, which elides first and then fails with "no probes found".
  ElaborateFixture f;
  CHECK_FALSE(f.run("probe begin { x = 1; x = \"s\" }"));
  CHECK(f.messages().starts_with("semantic error: type mismatch (string)"));
  CHECK(f.messages().find("type was first inferred here (long)") != std::string::npos);
  CHECK(f.messages().find("no probes found") == std::string::npos);
  CHECK(warnings(f.diags).empty());
  ElaborateFixture u(true);
  CHECK_FALSE(u.run("probe begin { x = 1; x = \"s\" }"));
  CHECK(u.messages().starts_with("semantic error: type mismatch (string)"));
  CHECK(warnings(u.diags).empty());
}

TEST_CASE("untyped code that is elided needs no type") {
  ElaborateFixture f;
  CHECK(f.run("probe begin { a = b; print(1) }"));
  CHECK(f.messages().find("unresolved type") == std::string::npos);
  ElaborateFixture u(true);
  CHECK_FALSE(u.run("probe begin { a = b; print(1) }"));
  CHECK(u.messages().find("unresolved type") != std::string::npos);
}

TEST_CASE("an assignment inside an expression becomes its value") {
  ElaborateFixture f;
  REQUIRE(f.run("probe begin { print(x = 1) }"));
  CHECK(warnings(f.diags) == std::vector<std::string>{"Eliding assignment to 'x': operator '='"});
  CHECK(f.program.probes[0].decl->locals.empty());
}

TEST_CASE("updates keep a local's assignments; printing and globals are side effects") {
  ElaborateFixture f;
  REQUIRE(f.run("global g; probe begin { y = 1; y += 2; g = 3; print(1) }"));
  CHECK(warnings(f.diags).empty());
}

TEST_CASE("calls to pure functions go; a function left empty is reported") {
  ElaborateFixture f;
  REQUIRE(f.run("function f(a) { x = a } function g() { return 1 }\n"
                "probe begin { f(1); g(); print(1) }"));
  CHECK(warnings(f.diags) == std::vector<std::string>{
                                 "Eliding assignment to 'x': operator '='",
                                 "Eliding side-effect-free expression : identifier 'f'",
                                 "Eliding side-effect-free expression : identifier 'g'",
                                 "Eliding side-effect-free expression : identifier 'x'",
                                 "side-effect-free function 'f': identifier 'f'",
                             });
  CHECK(f.program.functions.empty());
}

TEST_CASE("empty statements and loops go silently") {
  ElaborateFixture f;
  REQUIRE(f.run("probe begin { if (1) {} else { } ; for (;;) {}; print(1) }"));
  CHECK(warnings(f.diags).empty());
  CHECK(f.program.probes[0].decl->body->statements.size() == 1);
}

TEST_CASE("variables read but never assigned are reported with similar names") {
  ElaborateFixture f;
  CHECK_FALSE(f.run("probe begin { a = 1; print(b); c = 1; print(c) }"));
  CHECK(warnings(f.diags).at(0) ==
        "never-assigned local variable 'b' (similar: a, c): identifier 'b'");
  ElaborateFixture g;
  CHECK_FALSE(g.run("global g; probe begin { print(g) }"));
  CHECK(warnings(g.diags).at(0) == "never-assigned global variable 'g' (similar: g): identifier 'g'");
}

TEST_CASE("written-only globals get an end probe that prints them") {
  ElaborateFixture f;
  REQUIRE(f.run("global n, s, st, a; probe begin { n = 1; s = \"x\"; st <<< 1; a[\"k\", 2] = 3 }"));
  REQUIRE(f.program.probes.size() == 5);
  for (size_t i = 1; i < 5; ++i) CHECK(f.program.probes[i].point->to_string() == "end");
  std::string body = f.printed(1);
  CHECK(body.find("foreach (__val = [__idx0, __idx1] in a-) printf(") != std::string::npos);
  CHECK(body.find("%#s") != std::string::npos);
  CHECK(body.find("@count(st)") != std::string::npos);
  ElaborateFixture off;
  off.options.global_var_display = false;
  REQUIRE(off.run("global n; probe begin { n = 1 }"));
  CHECK(off.program.probes.size() == 1);
}

TEST_CASE("globals that are read, or updated only, are shown or not as stap does") {
  ElaborateFixture read;
  REQUIRE(read.run("global g; probe begin { g = 1 } probe end { print(g) }"));
  CHECK(read.program.probes.size() == 2);
  ElaborateFixture updated;
  REQUIRE(updated.run("global c; probe begin { c++ }"));
  CHECK(updated.program.probes.size() == 2);
}

TEST_CASE("statements elided inside a tapset are not warned about") {
  ElaborateFixture f;
  f.load({stap::test::test_tapset_dir()});
  // The alias assigns `name`, which nothing reads.
  REQUIRE(f.run("probe syscall.open { print(1); x = 2 }"));
  CHECK(warnings(f.diags) == std::vector<std::string>{
                                 "Eliding assignment to 'x': operator '='",
                                 "Eliding side-effect-free expression : identifier 'x'",
                             });
  CHECK(f.local(0, "name") == nullptr);
}
