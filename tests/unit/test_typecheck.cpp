// Type inference: locals, globals, arrays, parameters and returns,
// statistics, the printf family, and stap's wording of conflicts.
#include <catch2/catch.hpp>

#include "elaborate/builtins.h"
#include "elaborate_fixture.h"

using stap::ast::Type;
using stap::test::ElaborateFixture;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("types flow through locals, globals, arrays, parameters and returns") {
  ElaborateFixture f(true);
  REQUIRE(f.run("global g, a\n"
                "function h(n, s) { return s . sprintf(\"%d\", n) }\n"
                "probe begin { x = 1; y = x; g = h(y, \"v\"); a[g, y] = x; println(a[g, 2]) }"));
  CHECK(f.local(0, "y")->type == Type::long_);
  CHECK(f.global("g")->type == Type::string);
  auto* a = f.global("a");
  CHECK(a->type == Type::long_);
  CHECK(a->index_types == std::vector<Type>{Type::string, Type::long_});
  auto* h = f.function("h", 2);
  CHECK(h->return_type == Type::string);
  CHECK(h->params[0].type == Type::long_);
  CHECK(h->params[1].type == Type::string);
}

TEST_CASE("inference reaches a fixed point across probes and functions") {
  ElaborateFixture f(true);
  // b's type is only known once the end probe and f have been seen.
  REQUIRE(f.run("global a, b\nfunction f(v) { b = v }\n"
                "probe begin { a = b } probe end { f(\"s\"); print(a) }"));
  CHECK(f.global("a")->type == Type::string);
  CHECK(f.global("b")->type == Type::string);
}

TEST_CASE("a conflict is reported where it happens and where the type came from") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("probe begin { x = 1; x = \"s\" }"));
  CHECK(f.messages() ==
        "semantic error: type mismatch (string): identifier 'x' at <input>:1:22\n"
        "        source: probe begin { x = 1; x = \"s\" }\n"
        "                                     ^\n\n"
        "semantic error: type was first inferred here (long): identifier 'x' at <input>:1:15\n"
        "        source: probe begin { x = 1; x = \"s\" }\n"
        "                              ^\n\n");
}

TEST_CASE("the operand stap blames depends on which side is a literal") {
  ElaborateFixture a(true);
  CHECK_FALSE(a.run("probe begin { x = \"a\" ; y = 1; print(x == y) }"));
  CHECK(a.messages().starts_with("semantic error: type mismatch (string): identifier 'y'"));
  ElaborateFixture b(true);
  CHECK_FALSE(b.run("probe begin { x = \"a\" ; print(x < 1) }"));
  CHECK(b.messages().starts_with("semantic error: type mismatch (long): identifier 'x'"));
  CHECK_FALSE(contains(b.messages(), "number '1'"));
}

TEST_CASE("array index conflicts name the index") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("global a; probe begin { a[1] = 1; a[\"x\"] = 2 }"));
  CHECK(contains(f.messages(),
                 "semantic error: index 0 type mismatch (string): string 'x' at <input>:1:37"));
  CHECK(contains(f.messages(), "semantic error: type of index 0 was first inferred here (long): "
                               "number '1' at <input>:1:27"));
}

TEST_CASE("function returns and parameters conflict in stap's words") {
  ElaborateFixture r(true);
  CHECK_FALSE(r.run("function f() { if (1) return 1; return \"s\" } probe begin { print(f()) }"));
  CHECK(r.messages().starts_with("semantic error: type mismatch (string): string 's' at <input>:1:40"));
  ElaborateFixture p(true);
  CHECK_FALSE(p.run("function f(a) { return a . \"x\" } probe begin { print(f(1)) }"));
  CHECK(p.messages().starts_with(
      "semantic error: index 0 type mismatch (string): identifier 'a' at <input>:1:24"));
  // Declared types: stap names the two types the other way round.
  ElaborateFixture d(true);
  CHECK_FALSE(d.run("function f:string () { return 1 } probe begin { print(f()) }"));
  CHECK(d.messages().starts_with(
      "semantic error: type mismatch: expected long but found string: number '1'"));
  ElaborateFixture b(true);
  CHECK_FALSE(b.run("probe begin { println(strlen(1)) }"));
  CHECK(b.messages().starts_with(
      "semantic error: type mismatch: expected long but found string: number '1' at <input>:1:30"));
}

TEST_CASE("statistics: <<< makes one, @count needs one, a value cannot be one") {
  ElaborateFixture ok(true);
  REQUIRE(ok.run("global s, a; probe begin { s <<< 1; a[\"k\"] <<< 2; print(@count(s) + @avg(a[\"k\"])) }"));
  CHECK(ok.global("s")->type == Type::stats);
  CHECK(ok.global("a")->type == Type::stats);
  ElaborateFixture bad(true);
  CHECK_FALSE(bad.run("global c; probe begin { c <<< 1; print(@count(c) + c) }"));
  CHECK(bad.messages().starts_with("semantic error: type mismatch (long): identifier 'c' at <input>:1:52"));
  CHECK(contains(bad.messages(), "type was first inferred here (stats): identifier 'c' at <input>:1:25"));
  ElaborateFixture local(true);
  CHECK_FALSE(local.run("probe begin { print(@count(q)) }"));
  CHECK(local.messages().starts_with("semantic error: stat locals not supported, missing global "
                                     "declaration? : identifier 'q' at <input>:1:28"));
}

TEST_CASE("printf arguments are checked against the format") {
  ElaborateFixture count(true);
  CHECK_FALSE(count.run("probe begin { printf(\"%d %s\\n\", 1) }"));
  CHECK(count.messages().starts_with("semantic error: Wrong number of args to formatted print "
                                     "operator: identifier 'printf' at <input>:1:15"));
  ElaborateFixture types(true);
  CHECK_FALSE(types.run("probe begin { printf(\"%d %s\\n\", \"a\", 1) }"));
  CHECK(types.messages().starts_with(
      "semantic error: type mismatch: expected long but found string: string 'a' at <input>:1:33"));
  ElaborateFixture star(true);
  CHECK(star.run("probe begin { printf(\"%*d %-5s %#x %%\\n\", 3, 2, \"a\", 255) }"));
}

TEST_CASE("what stays untyped is an unresolved type") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("probe begin { print(y) }"));
  CHECK(f.messages().starts_with("semantic error: unresolved type : identifier 'y' at <input>:1:21"));
}

TEST_CASE("target variables are longs, their pretty forms strings") {
  ElaborateFixture f(true);
  REQUIRE(f.run("probe kernel.function(\"vfs_read\") { x = $foo; s = $$parms; t = $bar$; print(x, s, t) }"));
  CHECK(f.local(0, "x")->type == Type::long_);
  CHECK(f.local(0, "s")->type == Type::string);
  CHECK(f.local(0, "t")->type == Type::string);
}

TEST_CASE("a format's conversions give the types of the arguments after it") {
  std::vector<stap::PrintfPiece> pieces;
  std::string error;
  REQUIRE(stap::parse_printf_format("a%-5d%%b%*.*s%lx", pieces, error));
  CHECK(stap::format_arg_types(pieces) ==
        std::vector<Type>{Type::long_, Type::long_, Type::long_, Type::string, Type::long_});
}

TEST_CASE("the builtin table answers by name and arity") {
  CHECK(stap::find_builtin("strlen", 1));
  CHECK_FALSE(stap::find_builtin("strlen", 2));
  CHECK(stap::find_builtin("assert", 2));
  CHECK(stap::find_builtin("printf", 4));
  CHECK_FALSE(stap::find_builtin("printd", 1));
  CHECK(stap::find_builtin("println", 0));
  CHECK(stap::find_builtin("strlen", 1)->signature() == "strlen:long (s:string)");
  CHECK(stap::find_builtin("exit", 0)->signature() == "exit:unknown ()");
  CHECK(stap::find_builtin("usymname", 1)->context == stap::BuiltinContext::kernel);
  CHECK(stap::find_builtin("user_string", 1)->context == stap::BuiltinContext::both);
  CHECK(stap::find_builtin("kernel_string", 1)->context == stap::BuiltinContext::both);
}

TEST_CASE("a call in the wrong context blames the call and names the return it was typed by") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("function f() { return \"text\" } probe begin { println(f() + 1) }"));
  CHECK(f.messages() ==
        "semantic error: type mismatch (long): identifier 'f' at <input>:1:54\n"
        "        source: function f() { return \"text\" } probe begin { println(f() + 1) }\n"
        "                                                                     ^\n\n"
        "semantic error: type was first inferred here (string): string 'text' at <input>:1:23\n"
        "        source: function f() { return \"text\" } probe begin { println(f() + 1) }\n"
        "                                      ^\n\n");
}

TEST_CASE("a statistic local is reported once, where it first appears") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("probe begin { print(x); x <<< 1; print(@count(x)) }"));
  CHECK(f.messages() ==
        "semantic error: stat locals not supported, missing global declaration? : "
        "identifier 'x' at <input>:1:21\n"
        "        source: probe begin { print(x); x <<< 1; print(@count(x)) }\n"
        "                                    ^\n\n");
  // A local that is a long already is a plain conflict.
  ElaborateFixture l(true);
  CHECK_FALSE(l.run("probe begin { x = 1; print(@count(x)) }"));
  CHECK(l.messages().starts_with("semantic error: type mismatch (stats): identifier 'x' at <input>:1:35"));
}

TEST_CASE("the value of a foreach over statistics is invalid") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("global st; probe begin { foreach (v = k in st) println(k, @count(v)); st[1] <<< 5 }"));
  std::string m = f.messages();
  size_t invalid = m.find("semantic error: invalid type stats: identifier 'v' at <input>:1:35");
  size_t local = m.find("semantic error: stat locals not supported, missing global declaration? : "
                        "identifier 'v' at <input>:1:35");
  CHECK(invalid != std::string::npos);
  CHECK(local != std::string::npos);
  CHECK(invalid < local);
}

TEST_CASE("printing a statistic is an error, unless the print is elided") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("global s; probe begin { s <<< 1; printd(\",\", 1, s) }"));
  CHECK(f.messages().starts_with(
      "semantic error: cannot print a raw stats object: identifier 's' at <input>:1:49"));
  ElaborateFixture elided;
  CHECK(elided.run("global s; probe begin { s <<< 1; x = sprint(s) }"));
}

TEST_CASE("target variables where the probe has none are unresolved, typed or not") {
  ElaborateFixture f(true);
  CHECK_FALSE(f.run("probe timer.s(1) { $count = 1; println($x$) }"));
  CHECK(f.messages() ==
        "semantic error: unresolved target-symbol expression: identifier '$count' at <input>:1:20\n"
        "        source: probe timer.s(1) { $count = 1; println($x$) }\n"
        "                                   ^\n\n"
        "semantic error: unresolved target-symbol expression: identifier '$x$' at <input>:1:40\n"
        "        source: probe timer.s(1) { $count = 1; println($x$) }\n"
        "                                                       ^\n\n"
        "semantic error: unresolved type : identifier '$x$' at <input>:1:40\n"
        "        source: probe timer.s(1) { $count = 1; println($x$) }\n"
        "                                                       ^\n\n");
  ElaborateFixture fn(true);
  CHECK_FALSE(fn.run("function f() { return $x } probe kernel.function(\"vfs_read\") { println(f()) }"));
  CHECK(fn.messages().starts_with(
      "semantic error: unresolved target-symbol expression: identifier '$x' at <input>:1:23"));
  ElaborateFixture life(true);
  CHECK_FALSE(life.run("probe process.end { println($status) }"));
  CHECK(life.messages().starts_with(
      "semantic error: only \"process(PATH_OR_PID).syscall\" and "
      "\"process(PATH_OR_PID).syscall.return\" probes support target symbols: "
      "identifier '$status'"));
  // A body shared with a family that has none has none.
  ElaborateFixture shared(true);
  CHECK_FALSE(shared.run("probe kernel.function(\"g\"), end { println($x) }"));
  ElaborateFixture ok(true);
  CHECK(ok.run("probe kernel.trace(\"sched_switch\"), process(\"/bin/ls\").syscall { println($x) }"));
}

TEST_CASE("a target variable in elided code is not blamed") {
  ElaborateFixture f;
  CHECK_FALSE(f.run("probe begin { x = $count }"));
  CHECK(f.messages().find("target-symbol") == std::string::npos);
}
