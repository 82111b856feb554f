// The parser's errors and its recovery after them: wording, places and
// what is said at all, checked against stap 4.8 (ostap -v -p1), including
// the order in which lexer, preprocessor and parser errors are said.
// The trees it builds are tested in test_parser.cpp.
#include <catch2/catch.hpp>

#include "parse_fixture.h"

using namespace stap;
using test::expr_of;
using test::one_error;
using test::Parsed;

// As in stap, an error skips the rest of its declaration: one error per
// probe, function or global at most.
TEST_CASE("parser: several errors in one run", "[parser]") {
  Parsed p("probe begin { x = ; y = 1 +; z = 3 }\n"
           "probe end { if }\n"
           "global q = z\n"
           "function g() { return ) }\n"
           "probe timer.s(1) { ok = 1 }\n");
  CHECK(p.diags.error_count() == 4);
  std::string out = p.errors();
  CHECK(out.find("operator ';' at <input>:1:19") != std::string::npos);
  CHECK(out.find("operator ';' at <input>:1:28") == std::string::npos);
  CHECK(out.find("expected '('\n        saw: operator '}' at <input>:2:16") != std::string::npos);
  CHECK(out.find("identifier 'z' at <input>:3:12") != std::string::npos);
  CHECK(out.find("operator ')' at <input>:4:23") != std::string::npos);
  // What parsed whole is kept.
  REQUIRE(p.file->probes.size() == 1);
  CHECK(p.file->probes[0]->body->statements.size() == 1);
  CHECK(p.file->functions.empty());
}

TEST_CASE("parser: recovery skips to a declaration keyword or embedded code", "[parser]") {
  // The rest of the bad statement is not parsed again ("i++)" would be a
  // second error).
  CHECK(one_error("probe begin { for (i = 0 i < 3; i++) println(i) }")
            .find("expected ';'\n        saw: identifier 'i' at <input>:1:26") !=
        std::string::npos);
  Parsed p("probe begin { x = } %{ c %} probe end { }");
  CHECK(p.diags.error_count() == 2);
  CHECK(p.errors().find("embedded-code at <input>:1:21") != std::string::npos);
  CHECK(p.file->probes.size() == 1);
}

TEST_CASE("parser: @const and @kregister need guru mode", "[parser]") {
  // stap resumes right after the operator, at the top level, so the '('
  // is a second error.
  Parsed p("probe begin { a = @const(\"X\"); b = 1 }");
  CHECK(p.diags.error_count() == 2);
  CHECK(p.errors() ==
        "parse error: using @const operator not permitted; need stap -g\n"
        "        saw: operator '@const' at <input>:1:19\n"
        "     source: probe begin { a = @const(\"X\"); b = 1 }\n"
        "                               ^\n\n"
        "parse error: expected 'probe', 'global', 'private', 'function', or '%{'\n"
        "        saw: operator '(' at <input>:1:25\n"
        "     source: probe begin { a = @const(\"X\"); b = 1 }\n"
        "                                     ^\n\n");
  Parsed k("probe begin { a = @kregister(0) }");
  CHECK(k.errors().find("using @kregister operator not permitted; need stap -g") !=
        std::string::npos);
  // stap 4.8 lets @uregister go without -g.
  Parsed u("probe begin { a = @uregister(0) }");
  CHECK(u.diags.error_count() == 0);
  // With -g: @const takes a string literal, the registers a number.
  Parsed g1("probe begin { a = @const(1) }", false, "<input>", true);
  CHECK(g1.errors().find("expected string\n        saw: number '1'") != std::string::npos);
  Parsed g2("probe begin { a = @kregister(\"a\") }", false, "<input>", true);
  CHECK(g2.errors().find("expected number\n        saw: string 'a'") != std::string::npos);
  Parsed g3("probe begin { a = @uregister(1 + 1) }", false, "<input>", true);
  CHECK(g3.errors().find("expected ')'\n        saw: operator '+'") != std::string::npos);
}

TEST_CASE("parser: one error per place", "[parser]") {
  CHECK(one_error("probe begin {") ==
        "parse error: expected statement\n"
        "        saw: <input> EOF\n\n");
  CHECK(one_error("probe begin { foo(1,\n}\n").find("operator '}' at <input>:2:1") !=
        std::string::npos);
  // A body left open is an error at the next declaration, which is then
  // parsed on its own.
  Parsed p("probe begin { x = 1\nprobe end { y = }");
  CHECK(p.diags.error_count() == 2);
  CHECK(p.errors().find("expected statement\n        saw: keyword at <input>:2:1") !=
        std::string::npos);
  CHECK(p.file->probes.empty());
}

TEST_CASE("parser: junk already reported by the lexer is not reported again", "[parser]") {
  Parsed p("probe begin { x = \"unterminated\n }");
  CHECK(p.diags.error_count() == 1);
  CHECK(p.errors().find("Could not find matching closing quote") != std::string::npos);
}

TEST_CASE("parser: deep nesting is an error, not a crash", "[parser]") {
  for (const char* open : {"(", "{", "- ", "!", "if (1) ", "x = ", "a ? b : "}) {
    std::string text = "probe begin { ";
    for (int i = 0; i < 5000; ++i) text += open;
    text += "1";
    Parsed p(text);
    INFO(open);
    CHECK(p.diags.error_count() >= 1);
    CHECK(p.errors().find("too many nested levels (the limit is 1000)") != std::string::npos);
  }
  // 500 levels are fine.
  std::string ok = "probe begin { x = ";
  for (int i = 0; i < 500; ++i) ok += "(";
  ok += "1";
  for (int i = 0; i < 500; ++i) ok += ")";
  CHECK(Parsed(ok + " }").diags.error_count() == 0);
}

TEST_CASE("parser: a long operator chain nests like parentheses", "[parser]") {
  // 1 + 1 + ... is parsed in a loop but is a tree one level deeper per
  // operator, which later passes walk recursively: 100,000 of them
  // crashed -p2 with a stack overflow.
  for (const char* op : {"+", ".", "&&", "<<", "*"}) {
    std::string text = "probe begin { x = 1";
    for (int i = 0; i < 100000; ++i) text += std::string(op) + "1";
    Parsed p(text + " }");
    INFO(op);
    CHECK(p.diags.error_count() == 1);
    CHECK(p.errors().find("too many nested levels (the limit is 1000)") != std::string::npos);
  }
  std::string ok = "probe begin { x = 1";
  for (int i = 0; i < 900; ++i) ok += "+1";
  CHECK(Parsed(ok + " }").diags.error_count() == 0);
}

TEST_CASE("parser: no crash and no hang on truncated scripts", "[parser]") {
  const std::string script =
      "global a[10], s = \"x\"\n"
      "probe syscall.{open,close}?, begin(-1) if (s == \"x\") {\n"
      "  foreach ([k, v-] in a[*, 1] limit 3) { delete a[k, v]; continue }\n"
      "  try { x = $p->f[1]->g$ + @cast(p, \"t\")->h } catch (e) { println(e) }\n"
      "  printf(\"%d\\n\", @hist_log(st)[2] ? [1, 2] in a : -9223372036854775808)\n"
      "}\n"
      "function f:long (x:long) { return x <<< 1 .= \"a\" }\n"
      "probe a.b = c.d { } probe e += f { }\n";
  Parsed full(script);
  CHECK(full.diags.error_count() == 0);
  for (size_t n = 0; n < script.size(); ++n) {
    Parsed p(script.substr(0, n));  // must simply return
    Parsed q(script.substr(n));
  }
}

namespace {

// The "at" or "saw" location of each error, in the order said.
std::vector<std::string> error_places(Parsed& p) {
  std::vector<std::string> out;
  for (const Diagnostic& d : p.diags.all())
    out.push_back(std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column));
  return out;
}

}  // namespace

// stap's lexer and preprocessor run lazily under its parser, so their
// errors and the parser's come in the order of the token stream.
TEST_CASE("parser: pass-1 errors are said in stream order", "[parser]") {
  using V = std::vector<std::string>;
  {
    Parsed p("probe begin { x = }\n@define unclosed %( 1 + 2\n", true);
    CHECK(error_places(p) == V{"1:19", "2:9"});
  }
  {
    // Found at the end of the file, said after the errors before it.
    Parsed p("probe begin { x = }\n%( 1 == 1 %? probe end { y = }\n", true);
    CHECK(error_places(p) == V{"1:19", "2:30", "2:1"});
  }
  {
    Parsed p("probe begin { x = }\nprobe end { y = \"abc\n", true);
    CHECK(error_places(p) == V{"1:19", "2:17"});
  }
  {
    // A lexer error in an untaken branch is not said (stap's parser never
    // sees its junk token); the open conditional is.
    Parsed p("probe begin { x = 1 }\n%( 1 == 0 %? probe end { y = \"abc \n", true);
    CHECK(error_places(p) == V{"2:1"});
    CHECK(p.errors().find("closing quote") == std::string::npos);
  }
  {
    // Nor in an unclosed macro body.
    Parsed p("probe begin { x = 1 }\n@define m %( %{ abc \n", true);
    CHECK(error_places(p) == V{"2:9"});
  }
  {
    // Nor one the parser skips after an error: stap's parser reports a
    // junk token's error when it tries to parse it.
    Parsed p("probe begin { x = } \"unterminated\n", true);
    CHECK(error_places(p) == V{"1:19"});
  }
  {
    // The same for $N beyond the arguments.
    Parsed p("probe begin { x = ; y = $1 } probe end { z = $2 }", true);
    CHECK(error_places(p) == V{"1:19", "1:46"});
    CHECK(p.errors().find("command line argument out of range [1-0]") != std::string::npos);
  }
}

TEST_CASE("parser: recovery starts after a consumed token, at an unread one", "[parser]") {
  // "expected literal string or number" consumes the 'probe': the rest,
  // up to EOF, is skipped.
  Parsed a("probe begin { x = probe } probe end { y = }");
  CHECK(a.diags.error_count() == 2);
  Parsed b("probe begin { x = (1 probe end { y = }");
  CHECK(b.diags.error_count() == 1);
  // "expected statement" only looks at it: the next probe is parsed.
  Parsed c("probe begin { x = 1 probe end { y = }");
  CHECK(c.diags.error_count() == 2);
  Parsed d("probe begin probe end { y = }");
  CHECK(d.diags.error_count() == 2);
}

TEST_CASE("parser: bracketed keys", "[parser]") {
  CHECK(test::p1_expr("[a < b, c . d] in e") == "[(a) < (b), (c) . (d)] in e");
  // One key without "in" is the key itself.
  CHECK(test::p1_expr("[1] || 2") == "(1) || (2)");
  CHECK(one_error("probe begin { x = [1, 2] }")
            .find("unexpected comma-separated expression list\n"
                  "        saw: operator '}' at <input>:1:26") != std::string::npos);
  CHECK(one_error("probe begin { x = [a & b] in c }")
            .find("expected ',' or ']'\n        saw: operator '&'") != std::string::npos);
  CHECK(one_error("probe begin { foreach ([a b] in x) {} }")
            .find("expected ',' or ']'\n        saw: identifier 'b'") != std::string::npos);
  // "[1] + 1" is "1", then a statement "+1".
  Parsed p("probe begin { x = [1] + 1 }");
  CHECK(p.diags.error_count() == 0);
  CHECK(p.file->probes[0]->body->statements.size() == 2);
}

TEST_CASE("parser: ++ and -- take a primary or a negative number", "[parser]") {
  CHECK(test::p1_expr("++ -1") == "++(-(1))");
  CHECK(one_error("probe begin { x = -- -b }")
            .find("expected literal string or number\n        saw: identifier 'b'") !=
        std::string::npos);
}

TEST_CASE("parser: markers inside brace lists", "[parser]") {
  {
    Parsed p("probe a.{b?, c!, d if (x)} {}");
    REQUIRE(p.diags.error_count() == 0);
    const auto& pts = p.file->probes[0]->points;
    REQUIRE(pts.size() == 3);
    CHECK((pts[0]->optional && !pts[0]->sufficient));
    CHECK(pts[1]->sufficient);
    CHECK((!pts[2]->optional && pts[2]->condition));
    // (stap prints no space after a condition's comma.)
    CHECK(test::p1("probe {a?, b} if (y) {}") == "probe a? if (y),b if (y){\n}");
  }
  CHECK(one_error("probe {a?, b}.c {}") ==
        "parse error: '?', '!' or condition must only be specified in suffix\n"
        "         at: identifier 'a' at <input>:1:8\n"
        "     source: probe {a?, b}.c {}\n"
        "                    ^\n\n");
  CHECK(one_error("probe a.{b?,c}! {}")
            .find("'?' or '!' respecified\n        saw: operator '!' at <input>:1:15") !=
        std::string::npos);
  CHECK(one_error("probe {a if (x), b} if (y) {}")
            .find("condition respecified\n        saw: operator ')' at <input>:1:26") !=
        std::string::npos);
  CHECK(one_error("probe a?! {}").find("expected one of ', { } = +='") != std::string::npos);
  // A point is located at its first component, not at a '{'.
  CHECK(one_error("probe {a}? = b {}").find("at: identifier 'a' at <input>:1:8") !=
        std::string::npos);
  CHECK(one_error("probe begin } {}").find("expected probe point specifier") !=
        std::string::npos);
}

// What the driver needs to say stap's "Input file ... is empty after
// preprocessing." in place of the parse-error count.
TEST_CASE("parser: whether the parser saw any input", "[parser]") {
  auto saw = [](const std::string& text) { return Parsed(text, true).file->parser_saw_input; };
  CHECK_FALSE(saw(""));
  CHECK_FALSE(saw("%( 1 == 0 %? probe begin {} %)"));
  // The condition error takes "1 %) probe"; the parser only skips the rest.
  CHECK_FALSE(saw("%( 1 %) probe begin {}"));
  CHECK_FALSE(saw("@define m(a) %( @a %) @m"));
  CHECK(saw("%( 1 %) } global x"));
  CHECK(saw("}"));
  CHECK(saw("\"unterminated"));
  CHECK(saw("probe begin { %( x == 1 %? %) }"));
  CHECK(saw("global x"));
}

// The input ending where a token is needed, as stap 4.8 words it.
TEST_CASE("parser: errors at the end of the input", "[parser]") {
  struct Case {
    const char* text;
    const char* first_two_lines;
  };
  const Case cases[] = {
      // Mostly "unexpected end-of-file" ...
      {"global", "unexpected end-of-file\n        saw: <input> EOF"},
      {"probe begin,", "unexpected end-of-file\n        saw: <input> EOF"},
      {"probe begin { f(1", "unexpected end-of-file\n        saw: <input> EOF"},
      {"probe begin { x = @cast(p", "unexpected end-of-file\n        saw: <input> EOF"},
      {"function f:", "unexpected end-of-file\n        saw: <input> EOF"},
      // ... "expected value" where an expression starts ...
      {"probe begin { x =", "expected value\n        saw: <input> EOF"},
      {"probe begin { delete", "expected value\n        saw: <input> EOF"},
      {"probe begin { ++", "expected value\n        saw: <input> EOF"},
      // ... the checks that only look keep their words ...
      {"probe begin { if (1)", "expected statement\n        saw: <input> EOF"},
      {"probe a", "expected one of ', { } = +='\n        saw: <input> EOF"},
      {"probe a if", "expected '('\n        saw: <input> EOF"},
      {"probe a.{b", "expected one of ', { } = +='\n        saw: <input> EOF"},
      // ... and after some keywords and operators the token before is blamed.
      {"probe", "unexpected end-of-file\n        saw: keyword at <input>:1:1"},
      {"function f", "unexpected end-of-file\n        saw: identifier 'f' at <input>:1:10"},
      {"function f(a", "unexpected end-of-file\n        saw: identifier 'a' at <input>:1:12"},
      {"probe begin { while", "unexpected end-of-file\n        saw: keyword at <input>:1:15"},
      {"probe begin { try", "unexpected end-of-file\n        saw: keyword at <input>:1:15"},
      {"probe begin { x = $a->",
       "unexpected end-of-file\n        saw: operator '->' at <input>:1:21"},
      {"probe begin { x = @count",
       "unexpected end-of-file\n        saw: operator '@count' at <input>:1:19"},
      {"probe begin { x = 1 in", "unexpected end-of-file\n        saw: keyword at <input>:1:21"},
      {"probe begin { x = a =~",
       "unexpected end-of-file\n        saw: operator '=~' at <input>:1:21"},
      {"probe begin { print",
       "unexpected end-of-file\n        saw: identifier 'print' at <input>:1:15"},
      {"global x =", "unexpected end-of-file\n        saw: operator '=' at <input>:1:10"},
      {"probe a.b(1", "unexpected end-of-file\n        saw: number '1' at <input>:1:11"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Parsed p(c.text);
    std::string out = p.errors();
    CHECK(out.rfind(std::string("parse error: ") + c.first_two_lines + "\n", 0) == 0);
  }
}

TEST_CASE("parser: a '-' in a literal is read before the number", "[parser]") {
  CHECK(one_error("probe begin(-! 10) {}").find("saw: operator '!' at <input>:1:14") !=
        std::string::npos);
  CHECK(one_error("global x = -\"a\"").find("saw: string 'a' at <input>:1:13") !=
        std::string::npos);
}

TEST_CASE("parser: a whole histogram only in print and foreach", "[parser]") {
  CHECK(Parsed("probe begin { print(@hist_log(s)); println(@hist_linear(s, 0, 9, 3)) }")
            .diags.error_count() == 0);
  CHECK(Parsed("probe begin { foreach (b in @hist_log(s)) {} x = @hist_log(s)[1] }")
            .diags.error_count() == 0);
  CHECK(one_error("probe begin { x = @hist_log(s) }") ==
        "parse error: base histogram operator where expression expected\n"
        "         at: operator '@hist_log' at <input>:1:19\n"
        "     source: probe begin { x = @hist_log(s) }\n"
        "                               ^\n\n");
  CHECK(one_error("probe begin { print(-@hist_log(s)) }").find("base histogram operator") !=
        std::string::npos);
  CHECK(one_error("probe begin { print(@hist_log(a[f(@hist_log(b))])) }")
            .find("operator '@hist_log' at <input>:1:35") != std::string::npos);
  // Printed alone; a bucket is a complete first value.
  CHECK(one_error("probe begin { print(@hist_log(s), 1) }").find("expected ')'\n") !=
        std::string::npos);
  CHECK(one_error("probe begin { print(@hist_log(s)[1] + 1) }")
            .find("expected one of ', )'\n        saw: operator '+'") != std::string::npos);
}

TEST_CASE("parser: small forms checked against stap", "[parser]") {
  // A pretty-print mark after a target variable, spaces or not.
  CHECK(test::p1_expr("$a $") == "$a->$");
  CHECK(test::p1_expr("$a\n$$") == "$a->$$");
  CHECK(one_error("probe begin { foreach (k in s @-) {} }")
            .find("expected statistical operation\n        saw: operator '@'") !=
        std::string::npos);
  // The first duplicate parameter ends the function.
  CHECK(one_error("function f(a, a) a { }").find("duplicate parameter names") !=
        std::string::npos);
  // A foreach key list looks at, and does not take, what ends it badly.
  Parsed p("probe begin { foreach ([k1+global k2-] in a) println(k1) }");
  CHECK(p.diags.error_count() == 2);
}

// stap indexes any value ("1[2]", "f()[1]", "a[1][2]"): an autocast,
// typed (or refused) in pass 2.
TEST_CASE("parser: '[' after a value that is no array", "[parser]") {
  CHECK(Parsed("probe begin { x = f()[1] }").diags.error_count() == 0);
  CHECK(Parsed("probe begin { x = a[1][2] }").diags.error_count() == 0);
  CHECK(one_error("probe begin { x = f()[1 }").find("expected ']'") != std::string::npos);
  CHECK(Parsed("probe begin { x = $a->b[1]->c; y = @hist_log(s)[1] }").diags.error_count() == 0);
}
