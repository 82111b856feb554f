// -p2 output, compared with what stap 4.8 prints for the same scripts.
#include <catch2/catch.hpp>

#include <sstream>

#include "elaborate_fixture.h"
#include "parse/printer.h"

using stap::test::ElaborateFixture;

TEST_CASE("-p2 shows array key types and the display probe's locals") {
  ElaborateFixture f;
  REQUIRE(f.run("global a; probe begin { a[\"x\",1] = 2 }"));
  CHECK(f.printed() ==
        "# globals\n"
        "a:long [string, long]\n"
        "# probes\n"
        "begin /* <- begin */\n"
        "end /* <- end */\n"
        "  # locals\n"
        "  __idx0:string\n"
        "  __idx1:long\n"
        "  __val:long\n");
}

TEST_CASE("-p2 lists functions sorted as stap's table, builtins among them") {
  ElaborateFixture f;
  REQUIRE(f.run("global s, x, st, arr\n"
                "function f(a, b:string) { return a + strlen(b) }\n"
                "function g:string (n) { return sprintf(\"%d\", n) }\n"
                "probe begin { x = 5; s = \"abc\"; st <<< 3; arr[1] = \"q\"; y = f(1, \"x\"); "
                "println(g(y)) }\n"
                "probe timer.s(1), end { printf(\"%d\\n\", x) }\n"));
  CHECK(f.printed() ==
        "# globals\n"
        "x:long\n"
        "s:string\n"
        "st:stats\n"
        "arr:string [long]\n"
        "# functions\n"
        "f:long (a:long, b:string)\n"
        "g:string (n:long)\n"
        "strlen:long (s:string)\n"
        "# probes\n"
        "begin /* <- begin */\n"
        "  # locals\n"
        "  y:long\n"
        "timer.s(1) /* <- timer.s(1),end */\n"
        "end /* <- timer.s(1),end */\n"
        "end /* <- end */\n"
        "end /* <- end */\n"
        "end /* <- end */\n"
        "  # locals\n"
        "  __idx0:long\n"
        "  __val:string\n");
}

TEST_CASE("-p2 orders overloads and odd names by stap's internal names") {
  ElaborateFixture f;
  REQUIRE(f.run("global g1; function zed() { return 1 } function abc() { return 2 }\n"
                "function Bx() { return 3 } function _q() { return 4 } function abc(a) { return a }\n"
                "probe begin { g1 = zed() + abc() + Bx() + _q() + abc(5) + pid(); print(g1) }"));
  CHECK(f.printed() ==
        "# globals\n"
        "g1:long\n"
        "# functions\n"
        "Bx:long ()\n"
        "_q:long ()\n"
        "abc:long ()\n"
        "abc:long (a:long)\n"
        "pid:long ()\n"
        "zed:long ()\n"
        "# probes\n"
        "begin /* <- begin */\n");
}

TEST_CASE("-p2 shows global sizes, wrapping and function locals") {
  ElaborateFixture f(true);
  REQUIRE(f.run("global b%[10], c[5]\nfunction f(a) { x = a; print(x) }\n"
                "probe begin { b[1] = 1; c[1] = 1; f(2) }"));
  std::string p = f.printed();
  CHECK(p.starts_with("# globals\nb%[10]:long [long]\nc[5]:long [long]\n"
                      "# functions\nf:unknown (a:long)\n  # locals\n  x:long\n"));
}

TEST_CASE("-p2 -v adds bodies in stap's shape") {
  ElaborateFixture f;
  REQUIRE(f.run("global n; probe begin { n = 1 } probe end { print(2); print(3) }"));
  // However the -p1 printer writes a newline inside a string literal.
  stap::ast::StringLit lit;
  lit.value = "\n";
  std::ostringstream quoted;
  stap::print_expr(lit, quoted);
  std::string newline = quoted.str().substr(1, quoted.str().size() - 2);
  CHECK(f.printed(1) ==
        "# globals\n"
        "n:long\n"
        "# probes\n"
        "begin /* <- begin */\n"
        "{ (n) = (1) }\n"
        "end /* <- end */\n"
        "{ {\nprint(2);\nprint(3);\n} }\n"
        "end /* <- end */\n"
        "{ {\nprintf(\"n=%d" + newline + "\", n);\n} }\n");
}

TEST_CASE("-p2 -v with -u keeps bodies as written, blocks and all") {
  ElaborateFixture f(true);
  REQUIRE(f.run("global n; probe begin { n = 1 } probe end { { print(2) } }"));
  std::string p = f.printed(1);
  CHECK(p.find("begin /* <- begin */\n{ {\n(n) = (1);\n} }\n") != std::string::npos);
  CHECK(p.find("end /* <- end */\n{ {\n{\nprint(2);\n};\n} }\n") != std::string::npos);
  ElaborateFixture o;
  REQUIRE(o.run("probe end { { print(2) } print(3) }"));
  // The optimiser splices the inner block into the body.
  CHECK(o.printed(1).find("{ {\nprint(2);\nprint(3);\n} }\n") != std::string::npos);
}
