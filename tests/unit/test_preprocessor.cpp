// Pass 1b: conditionals, macros and command-line arguments.  Expected
// results and messages were checked against stap 4.8 (ostap -p1).
#include <catch2/catch.hpp>

#include <sstream>

#include "base/diagnostics.h"
#include "parse/lexer.h"
#include "parse/preprocessor.h"

using namespace stap;

namespace {

PreprocessorEnv test_env() {
  PreprocessorEnv env;
  env.kernel_v = "6.18.44";
  env.kernel_vr = "6.18.44-fc-v509";
  env.arch = "x86_64";
  env.systemtap_v = "5.0";
  env.runtime = "bpf";
  env.kernel_config = {{"CONFIG_BPF", "y"},
                       {"CONFIG_EXT4_FS", "m"},
                       {"CONFIG_NR_CPUS", "256"},
                       {"CONFIG_HZ", "0x3e8"},
                       {"CONFIG_BASE_SMALL", "0"},
                       {"CONFIG_DEFAULT_HOSTNAME", "\"(none)\""}};
  return env;
}

// Several files preprocessed in turn against one MacroTable, as the
// driver does for .stpm files, the script and tapsets.
struct Session {
  SourceManager sources;
  Diagnostics diags{sources};
  MacroTable macros;
  PreprocessorEnv env = test_env();

  std::vector<Token> run(const std::string& text, FileOrigin origin = FileOrigin::command_line,
                         const std::string& name = "<input>") {
    FileId f = sources.add(name, text, origin);
    return preprocess(lex(sources, f, diags), env, macros, sources, diags);
  }
  // Token texts joined by spaces: strings in quotes, junk as <junk>, no EOF.
  std::string texts(const std::string& text, FileOrigin origin = FileOrigin::command_line,
                    const std::string& name = "<input>") {
    std::vector<Token> toks = run(text, origin, name);
    std::string out;
    for (const Token& t : toks) {
      if (t.kind == TokenKind::end_of_input) break;
      if (!out.empty()) out += ' ';
      if (t.kind == TokenKind::string) out += '"' + t.text + '"';
      else if (t.kind == TokenKind::junk) out += "<junk>";
      else out += t.text;
    }
    return out;
  }
  std::string rendered() {
    std::ostringstream out;
    diags.flush(out);
    return out.str();
  }
};

// Output of `text` preprocessed alone, REQUIRE-ing no diagnostics.
std::string pp(const std::string& text, std::vector<std::string> args = {}) {
  Session s;
  s.env.args = std::move(args);
  std::string out = s.texts(text);
  INFO(s.rendered());
  REQUIRE(s.diags.error_count() == 0);
  REQUIRE(s.diags.warning_count() == 0);
  return out;
}

// Which branch a condition takes: "T" or "F".
std::string cond(const std::string& c, std::vector<std::string> args = {}) {
  return pp("%( " + c + " %? T %: F %)", std::move(args));
}

// The rendered diagnostics of a text that must fail.
std::string errors(const std::string& text, std::vector<std::string> args = {}) {
  Session s;
  s.env.args = std::move(args);
  s.texts(text);
  CHECK(s.diags.error_count() > 0);
  return s.rendered();
}

}  // namespace

TEST_CASE("pp: conditional forms", "[preprocessor]") {
  CHECK(pp("a %( 1 == 1 %? b %: c %) d") == "a b d");
  CHECK(pp("a %( 1 == 2 %? b %: c %) d") == "a c d");
  CHECK(pp("a %( 1 == 1 %? b %) d") == "a b d");
  CHECK(pp("a %( 1 == 2 %? b %) d") == "a d");
  CHECK(pp("%( 1 == 1 %? %: x %)") == "");
  // Inside an expression and around whole probes.
  CHECK(pp("x = 1 + %( arch == \"x86_64\" %? 2 %: 3 %) * 4") == "x = 1 + 2 * 4");
  CHECK(pp("%( arch == \"s390\" %? probe a { } %: probe b { } %) probe c { }") ==
        "probe b { } probe c { }");
  // Nested, in taken and untaken branches.
  CHECK(pp("%( 1 == 1 %? a %( 2 == 2 %? b %: c %) d %: e %( 3 == 3 %? f %) g %) h") ==
        "a b d h");
  CHECK(pp("%( 1 == 2 %? a %( 2 == 2 %? b %: c %) d %: e %( 3 == 4 %? f %: i %) g %) h") ==
        "e i g h");
  CHECK(pp("%(1==1%?%(2==2%?%(3==3%?deep%)%)%)") == "deep");
}

TEST_CASE("pp: && binds tighter than ||", "[preprocessor]") {
  CHECK(cond("1 == 1 && 2 == 2") == "T");
  CHECK(cond("1 == 1 && 2 == 3") == "F");
  CHECK(cond("1 == 2 || 2 == 2") == "T");
  CHECK(cond("1 == 2 || 2 == 3") == "F");
  CHECK(cond("1 == 1 || 2 == 3 && 1 == 2") == "T");
  CHECK(cond("1 == 2 && 2 == 2 || 1 == 1") == "T");
  CHECK(cond("1 == 2 || 1 == 1 && 1 == 2 || 5 == 6") == "F");
  CHECK(cond("1 == 1 && 2 == 2 && 3 == 3 || 4 == 5") == "T");
}

TEST_CASE("pp: untaken branches are skipped uninterpreted", "[preprocessor]") {
  // Junk, unknown @words, missing arguments, an @define and unbalanced
  // brackets are fine where they are skipped.
  CHECK(pp("%( 1 == 2 %? \xc3 @nosuch $7 @9 ) ] %: ok %)") == "ok");
  CHECK(pp("%( 1 == 1 %? ok %: \x01 $3 %)") == "ok");
  CHECK(pp("%( 1 == 2 %? @define m %( 1 %) %) @m") == "@m");
  // A macro use in a skipped branch is not expanded: no error for it.
  CHECK(pp("@define two(a,b) %( @a @b %) %( 1 == 2 %? @two %: k %)") == "k");
}

TEST_CASE("pp: kernel and systemtap versions", "[preprocessor]") {
  CHECK(cond("kernel_v >= \"2.6\"") == "T");
  CHECK(cond("kernel_v > \"6.18.9\"") == "T");   // numeric components
  CHECK(cond("kernel_v < \"6.18.100\"") == "T");
  CHECK(cond("kernel_v < \"6.9\"") == "F");
  CHECK(cond("kernel_v == \"6.18.44\"") == "T");
  CHECK(cond("kernel_v != \"6.18.44\"") == "F");
  CHECK(cond("kernel_v <= \"6.18.44\"") == "T");
  CHECK(cond("kernel_v == \"6.18\"") == "F");
  CHECK(cond("kernel_v == \"6.*\"") == "T");
  CHECK(cond("kernel_v == \"6.1*\"") == "T");
  CHECK(cond("kernel_v != \"5.*\"") == "T");
  CHECK(cond("kernel_v == \"6.1?.44\"") == "T");
  CHECK(cond("kernel_vr == \"*fc*\"") == "T");
  CHECK(cond("kernel_vr == \"6.18.44\"") == "F");
  CHECK(cond("kernel_vr > \"6.18.44\"") == "T");
  CHECK(cond("systemtap_v >= \"4.0\"") == "T");
  CHECK(cond("systemtap_v < \"5.0\"") == "F");
  CHECK(cond("systemtap_v == \"5.*\"") == "T");
}

TEST_CASE("compare_versions is strverscmp", "[preprocessor]") {
  CHECK(compare_versions("6.10", "6.9") == 1);
  CHECK(compare_versions("6.9", "6.10") == -1);
  CHECK(compare_versions("2.6.32", "2.6.32") == 0);
  CHECK(compare_versions("2.6.32", "2.6") == 1);
  CHECK(compare_versions("4.8", "4.10") == -1);
  CHECK(compare_versions("6.18.44-fc", "6.18.44") == 1);
}

TEST_CASE("pp: arch, runtime, privilege, guru_mode", "[preprocessor]") {
  CHECK(cond("arch == \"x86_64\"") == "T");
  CHECK(cond("arch == \"x86*\"") == "T");
  CHECK(cond("arch != \"i?86\"") == "T");
  CHECK(cond("arch == \"[xy]86_64\"") == "T");
  CHECK(cond("arch == \"arm64\"") == "F");
  CHECK(cond("runtime == \"bpf\"") == "T");
  CHECK(cond("runtime == \"kernel\"") == "F");
  CHECK(cond("runtime != \"dyninst\"") == "T");
  CHECK(cond("systemtap_privilege == \"stapdev\"") == "T");
  CHECK(cond("systemtap_privilege != \"stapusr\"") == "T");
  CHECK(cond("guru_mode == 0") == "T");
  CHECK(cond("guru_mode != 0") == "F");
}

TEST_CASE("pp: CONFIG tests", "[preprocessor]") {
  CHECK(cond("CONFIG_BPF == \"y\"") == "T");
  CHECK(cond("CONFIG_BPF == \"m\"") == "F");
  CHECK(cond("CONFIG_BPF == \"?\"") == "T");  // a glob, as in stap
  CHECK(cond("CONFIG_EXT4_FS == \"m\"") == "T");
  CHECK(cond("CONFIG_EXT4_FS == \"[ym]\"") == "T");
  CHECK(cond("CONFIG_KPROBES == \"y\"") == "F");  // unset is ""
  CHECK(cond("CONFIG_KPROBES == \"\"") == "T");
  CHECK(cond("CONFIG_KPROBES != \"y\"") == "T");
  CHECK(cond("CONFIG_KPROBES == \"n\"") == "F");
  CHECK(cond("CONFIG_NR_CPUS > 4") == "T");
  CHECK(cond("CONFIG_NR_CPUS == 256") == "T");
  CHECK(cond("CONFIG_NR_CPUS == \"256\"") == "T");
  CHECK(cond("CONFIG_NR_CPUS == \"64\"") == "F");
  CHECK(cond("CONFIG_HZ == 1000") == "T");         // strtoll base 0
  CHECK(cond("CONFIG_NOT_SET > 3") == "F");        // unset reads as 0
  CHECK(cond("CONFIG_NOT_SET == 0") == "T");
  CHECK(cond("CONFIG_DEFAULT_HOSTNAME == \"(none)\"") == "F");  // stored with quotes
  CHECK(cond("CONFIG_DEFAULT_HOSTNAME == \"\\\"(none)\\\"\"") == "T");
  CHECK(cond("CONFIG_NR_CPUS > CONFIG_BASE_SMALL") == "T");  // both numbers
  CHECK(cond("CONFIG_BPF == CONFIG_BPF") == "T");
  CHECK(cond("CONFIG_BPF < CONFIG_EXT4_FS") == "F");  // strings: "y" < "m" is false
}

TEST_CASE("pp: literal, $# and @# tests", "[preprocessor]") {
  CHECK(cond("1 < 2") == "T");
  CHECK(cond("0x10 == 16") == "T");
  CHECK(cond("\"a\" < \"b\"") == "T");
  CHECK(cond("\"abc\" == \"a*\"") == "F");  // no globs between literals
  CHECK(cond("$# == 0") == "T");
  CHECK(cond("$# == 2", {"a", "b"}) == "T");
  CHECK(cond("$# > 1", {"a"}) == "F");
  CHECK(cond("@# == \"2\"", {"a", "b"}) == "T");
  CHECK(cond("$1 == 5", {"5"}) == "T");
  CHECK(cond("@1 == \"x y\"", {"x y"}) == "T");
}

TEST_CASE("pp: condition errors", "[preprocessor]") {
  CHECK(errors("x = %( (1 == 1) %? 1 %: 2 %)") ==
        "parse error: expected 'arch', 'kernel_v', 'kernel_vr', 'systemtap_v',\n"
        "             'runtime', 'systemtap_privilege', 'CONFIG_...', or\n"
        "             comparison between strings or integers\n"
        "         at: operator '(' at <input>:1:8\n"
        "     source: x = %( (1 == 1) %? 1 %: 2 %)\n"
        "                    ^\n\n"
        "parse error: incomplete conditional - missing '%('\n"
        "         at: operator '%?' at <input>:1:17\n"
        "     source: x = %( (1 == 1) %? 1 %: 2 %)\n"
        "                             ^\n\n"
        "parse error: incomplete conditional - missing '%('\n"
        "         at: operator '%:' at <input>:1:22\n"
        "     source: x = %( (1 == 1) %? 1 %: 2 %)\n"
        "                                  ^\n\n"
        "parse error: incomplete conditional - missing '%('\n"
        "         at: operator '%)' at <input>:1:27\n"
        "     source: x = %( (1 == 1) %? 1 %: 2 %)\n"
        "                                       ^\n\n");
  CHECK(errors("x = 1 %( 1 == 1 %? + 2") ==
        "parse error: incomplete conditional at end of file\n"
        "         at: operator '%(' at <input>:1:7\n"
        "     source: x = 1 %( 1 == 1 %? + 2\n"
        "                   ^\n\n");

  struct Case {
    const char* text;
    const char* message;  // first line of the first error
    const char* at;       // its "at:" line
  };
  const Case cases[] = {
      {"%( @# == 2 %? a %)", "expected string literal as right value", "number '2' at <input>:1:10"},
      {"%( 2 == \"2\" %? a %)", "expected number literal as right value",
       "string '2' at <input>:1:9"},
      {"%( kernel_v < \"6.*\" %? a %)", "wildcard not allowed with order comparison operators",
       "operator '<' at <input>:1:13"},
      {"%( kernel_v <> \"6\" %? a %)", "expected string literal", "operator '>' at <input>:1:14"},
      {"%( kernel_v + \"6\" %? a %)", "expected comparison operator",
       "operator '+' at <input>:1:13"},
      {"%( arch >= \"x\" %? a %)", "expected '==' or '!='", "operator '>=' at <input>:1:9"},
      {"%( runtime == 1 %? a %)", "expected string literal", "number '1' at <input>:1:15"},
      {"%( CONFIG_B*F == \"y\" %? a %)",
       "expected string, number literal or other CONFIG_... as right side operand",
       "identifier 'F' at <input>:1:13"},
      {"%( CONFIG_BPF < 3 %? a %)", "Config option value not a number",
       "identifier 'CONFIG_BPF' at <input>:1:4"},
      {"%( CONFIG_BPF > \"y\" %? a %)", "expected '==' or '!='", "operator '>' at <input>:1:15"},
      {"%( guru_mode == 2 %? a %)", "expected 0 or 1", "operator '==' at <input>:1:14"},
      {"%( 1 == 1 a %)", "expected '%?' marker for conditional", "operator '%(' at <input>:1:1"},
      {"%( 1 == %)", "expected 'arch', 'kernel_v', 'kernel_vr', 'systemtap_v',",
       "number '1' at <input>:1:4"},
      {"x %( 1 ==", "incomplete condition after '%('", "operator '%(' at <input>:1:3"},
      {"a %? b", "incomplete conditional - missing '%('", "operator '%?' at <input>:1:3"},
      {"a %: b", "incomplete conditional - missing '%('", "operator '%:' at <input>:1:3"},
      {"a %) b", "incomplete conditional - missing '%('", "operator '%)' at <input>:1:3"},
      {"%( 1 == 1 %? a %: b %: c %)", "invalid conditional - duplicate '%:'",
       "operator '%:' at <input>:1:21"},
      {"%( $3 == 1 %? a %)", "command line argument out of range [1-0]", "junk '' at <input>:1:4"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.text);
    std::string out = errors(c.text);
    CHECK(out.substr(0, out.find('\n')) == std::string("parse error: ") + c.message);
    CHECK(out.find(std::string("         at: ") + c.at + "\n") != std::string::npos);
  }
}

TEST_CASE("pp: an error leaves a junk token and processing goes on", "[preprocessor]") {
  Session s;
  CHECK(s.texts("a %( 1 == 1 a %) b %( 1 == 1 %? c %)") == "a <junk> <junk> b c");
  CHECK(s.diags.error_count() == 2);  // the bad condition, then the stray %)
}

TEST_CASE("pp: macros without and with parameters", "[preprocessor]") {
  CHECK(pp("@define one %( 1 %) x = @one + @one") == "x = 1 + 1");
  CHECK(pp("@define empty %( %) a @empty b") == "a b");
  CHECK(pp("@define add(a, b) %( (@a + @b) %) x = @add(1, 2)") == "x = ( 1 + 2 )");
  CHECK(pp("@define f(a) %( [@a] %) @f(g(1, 2)) @f(a[1, 2])") ==
        "[ g ( 1 , 2 ) ] [ a [ 1 , 2 ] ]");
  CHECK(pp("@define f(a) %( @a @a %) @f()") == "");
  // A macro without parameters leaves a following "(...)" alone.
  CHECK(pp("@define fn %( foo %) @fn(1)") == "foo ( 1 )");
  // Conditionals in a body are evaluated where the macro is used.
  CHECK(pp("@define m %( %( arch == \"x86_64\" %? x86 %: other %) %) @m") == "x86");
  // A macro may produce a conditional's pieces.
  CHECK(pp("@define yes %( 1 == 1 %) %( @yes %? t %: f %)") == "t");
  // Unknown @words are left for the parser.
  CHECK(pp("@cast(p, \"t\")->x @var(\"a\") @entry($x)") ==
        "@cast ( p , \"t\" ) -> x @var ( \"a\" ) @entry ( $x )");
}

TEST_CASE("pp: nested macros and parameter scopes", "[preprocessor]") {
  // A body may use a macro defined after it, before the use.
  CHECK(pp("@define outer(a) %( @a + @inner %) @define inner %( 3 %) @outer(1)") ==
        "1 + 3");
  // Arguments are expanded in the caller's scope: @a inside the argument
  // of @g means the @a of @f.
  CHECK(pp("@define g(a) %( <@a> %) @define f(a) %( @g(@a @a) %) @f(x)") == "< x x >");
  CHECK(pp("@define g(b) %( @b %) @define f(a) %( @g(@a) %) @f(@f(y))") == "y");
  // A macro's own parameter shadows a macro of the same name.
  CHECK(pp("@define p %( macro %) @define f(p) %( @p %) @f(param) @p") == "param macro");
  // A used macro is used before definition: left as is, as stap does.
  CHECK(pp("@later @define later %( 1 %) @later") == "@later 1");
}

TEST_CASE("pp: macro expansion chain in diagnostics", "[preprocessor]") {
  Session s;
  std::vector<Token> toks = s.run("@define foo(a) %( @a + ` %)\nprobe begin { x = @foo(1) }");
  REQUIRE(s.diags.error_count() == 0);
  auto it = std::find_if(toks.begin(), toks.end(), [](const Token& t) { return t.is_op("`"); });
  REQUIRE(it != toks.end());
  s.diags.parse_error(it->loc, "expected literal string or number", describe(*it));
  CHECK(s.rendered() ==
        "parse error: expected literal string or number\n"
        "        saw: operator '`' at <input>:1:24\n"
        "     source: @define foo(a) %( @a + ` %)\n"
        "                                    ^\n"
        "\tin expansion of macro: operator '@foo' at <input>:2:19\n"
        "     source: probe begin { x = @foo(1) }\n"
        "                               ^\n\n");

  // The argument's token chains through the parameter use, then the macro.
  Session n;
  toks = n.run("@define foo(a) %( @a %)\nx = @foo(`)");
  it = std::find_if(toks.begin(), toks.end(), [](const Token& t) { return t.is_op("`"); });
  REQUIRE(it != toks.end());
  CHECK(it->loc.line == 2);
  CHECK(it->loc.column == 10);
  REQUIRE(it->loc.expansion != 0);
  const auto& first = n.sources.expansion(it->loc.expansion);
  CHECK(first.what == "\tin expansion of macro: operator '@a'");
  CHECK(first.where.line == 1);
  CHECK(first.where.column == 19);
  REQUIRE(first.where.expansion != 0);
  const auto& second = n.sources.expansion(first.where.expansion);
  CHECK(second.what == "\tin expansion of macro: operator '@foo'");
  CHECK(second.where.line == 2);
  CHECK(second.where.column == 5);
  CHECK(second.where.expansion == 0);
}

TEST_CASE("pp: macro definition errors", "[preprocessor]") {
  CHECK(errors("@define foo(a) %( @a + 3 %)\n@define foo(a) %( @a + 3 %)").rfind(
            "parse error: attempt to redefine macro '@foo' in the same file\n"
            "         at: identifier 'foo' at <input>:2:9\n"
            "     source: @define foo(a) %( @a + 3 %)\n"
            "                     ^\n\n"
            "parse error: macro '@foo' first defined here\n"
            "         at: identifier 'foo' at <input>:1:9\n"
            "     source: @define foo(a) %( @a + 3 %)\n"
            "                     ^\n\n",
            0) == 0);
  // The rest of the definition is then read as ordinary text, as in stap.
  CHECK(errors("@define define %( 1 %)") ==
        "parse error: attempt to redefine '@define'\n"
        "         at: identifier 'define' at <input>:1:9\n"
        "     source: @define define %( 1 %)\n"
        "                     ^\n\n"
        "parse error: incomplete condition after '%('\n"
        "         at: operator '%(' at <input>:1:16\n"
        "     source: @define define %( 1 %)\n"
        "                            ^\n\n");
  struct Case {
    const char* text;
    const char* message;
    const char* at;
  };
  const Case cases[] = {
      {"@define 3 %( %)", "expected identifier", "number '3' at <input>:1:9"},
      {"@define f(a b) %( %)", "expected ',' or ')'", "identifier 'b' at <input>:1:13"},
      {"@define f(a) x", "expected '%('", "identifier 'x' at <input>:1:14"},
      {"@define f x", "expected '%(' or '('", "identifier 'x' at <input>:1:11"},
      {"@define f %( 1 %( 2 %)", "incomplete macro definition - missing '%)'",
       "identifier 'f' at <input>:1:9"},
      {"@define f %( @define g %( %) %) @f", "'@define' forbidden inside macro body",
       "identifier '@define' at <input>:1:14"},
      {"@define f(a,b) %( @a %) x = @f(1)", "too few parameters for macro '@f' (expected 2)",
       "operator ')' at <input>:1:33"},
      {"@define f(a) %( @a %) x = @f(1, 2)", "too many parameters for macro '@f' (expected 1)",
       "operator ',' at <input>:1:31"},
      {"@define f(a,b) %( @a %) x = @f }",
       "expected '(' in invocation of macro '@f' taking 2 parameters",
       "operator '}' at <input>:1:32"},
      {"@define f(a) %( @a %) x = @f;",
       "expected '(' in invocation of macro '@f' taking 1 parameter",
       "operator ';' at <input>:1:29"},
      {"@define f(a) %( @a %) x = @f(1", "could not find end of macro invocation",
       "identifier '@f' at <input>:1:27"},
      {"@define f %( @f %) x = @f", "macro '@f' nested more than 200 deep: a macro cannot use itself",
       "identifier '@f' at <input>:1:24"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.text);
    std::string out = errors(c.text);
    // describe() calls a @word an operator, as stap does.
    std::string at = c.at;
    if (at.rfind("identifier '@", 0) == 0) at = "operator '@" + at.substr(13);
    CHECK(out.substr(0, out.find('\n')) == std::string("parse error: ") + c.message);
    CHECK(out.find("         at: " + at + "\n") != std::string::npos);
  }
}

TEST_CASE("pp: a definition whose header fails still defines the macro", "[preprocessor]") {
  // With the parameters read so far and an empty body, as in stap: its
  // uses expand to nothing, or fail on the argument count.
  {
    Session s;
    CHECK(s.texts("@define m x y = @m + 1") == "<junk> y = + 1");  // x taken by the header
    CHECK(s.diags.error_count() == 1);
  }
  {
    Session s;
    s.texts("@define m(a, 1) %( 5 %)\n@m(1, 2)");
    CHECK(s.rendered().find("too many parameters for macro '@m' (expected 1)") !=
          std::string::npos);
  }
}

TEST_CASE("pp: stap's words for a bad macro name and the end of the input", "[preprocessor]") {
  CHECK(errors("@define @cast(p) %( 1 %)").find("expected identifier\n"
                                               "         at: operator '@cast' at <input>:1:9") !=
        std::string::npos);
  CHECK(errors("@define m(@x) %( 1 %)").find("expected identifier\n"
                                            "         at: operator '@x' at <input>:1:11") !=
        std::string::npos);
  CHECK(errors("@define add(a, b") ==
        "parse error: expected ',' or ')'\n"
        "        saw: <input> EOF\n\n");
}

TEST_CASE("pp: a recursive macro is stopped once", "[preprocessor]") {
  // Each level uses the macro twice: resuming the outer levels after the
  // error would take 2^200 steps.
  Session s;
  CHECK(s.texts("@define f %( @f @f %) a @f b") == "a <junk> b");
  CHECK(s.diags.error_count() == 1);
  CHECK(s.rendered() ==
        "parse error: macro '@f' nested more than 200 deep: a macro cannot use itself\n"
        "         at: operator '@f' at <input>:1:25\n"
        "     source: @define f %( @f @f %) a @f b\n"
        "                                     ^\n\n");
}

TEST_CASE("pp: an error in a macro body is said once, at its first use", "[preprocessor]") {
  // The same fault reached through another use, or through every level of
  // a macro using itself, differs only in its expansion chain.
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  Session twice;
  twice.texts("@define bad %( %( y %) %)\n@bad @bad");
  CHECK(count(twice.rendered(), "at: identifier 'y' at <input>:1:19") == 1);
  Session recursive;
  recursive.texts("@define r %( %( y %) @r %)\n@r");
  std::string text = recursive.rendered();
  CHECK(count(text, "at: identifier 'y' at <input>:1:17") == 1);
  CHECK(count(text, "nested more than 200 deep") == 1);
}

TEST_CASE("pp: macro expansion has a size limit", "[preprocessor]") {
  // Each macro uses the one before twice: @m30 would be 2^30 copies.
  // (@m30 alone takes the limit's tokens; the second use fails at once.)
  std::string text = "@define m0 %( x %)\n";
  for (int i = 1; i <= 30; ++i)
    text += "@define m" + std::to_string(i) + " %( @m" + std::to_string(i - 1) + " @m" +
            std::to_string(i - 1) + " %)\n";
  Session s;
  std::string out = s.texts(text + "a @m30 b @m30 c");
  CHECK(out == "a <junk> b <junk> c");  // what came before the limit is dropped too
  CHECK(s.diags.error_count() == 2);
  CHECK(s.rendered().find("parse error: macro expansion too large: the macros used here give "
                          "more than 4000000 tokens in this file\n"
                          "         at: operator '@m30' at <input>:32:3\n") == 0);
  // Below the limit the whole expansion comes out.
  Session fine;
  std::vector<Token> tokens = fine.run(text + "@m16");
  CHECK(fine.diags.error_count() == 0);
  CHECK(tokens.size() == (1u << 16) + 1);  // and end_of_input
}

TEST_CASE("pp: a macro named like an @operator gets a warning", "[preprocessor]") {
  Session s;
  CHECK(s.texts("@define cast %( 1 %) x = @cast") == "x = 1");
  CHECK(s.diags.error_count() == 0);
  CHECK(s.rendered() ==
        "WARNING: macro redefines built-in operator '@cast': identifier 'cast' at <input>:1:9\n"
        " source: @define cast %( 1 %) x = @cast\n"
        "                 ^\n");
}

TEST_CASE("pp: library macros are visible in later files, local ones not",
          "[preprocessor]") {
  Session s;
  CHECK(s.texts("@define lib(a) %( lib<@a> %) @define helper %( h %)", FileOrigin::macro_library,
                "/t/lib.stpm") == "");
  CHECK(s.diags.error_count() == 0);
  REQUIRE(s.macros.find_library("lib") != nullptr);
  CHECK(s.macros.find_library("lib")->from_library);
  CHECK(s.macros.locals().empty());

  CHECK(s.texts("@define mine %( m %) @lib(1) @mine", FileOrigin::user_script, "a.stp") ==
        "lib < 1 > m");
  CHECK(s.texts("@lib(2) @mine", FileOrigin::tapset, "b.stp") == "lib < 2 > @mine");
  // A script's macro shadows a library one.
  CHECK(s.texts("@define lib(a) %( local %) @lib(3)", FileOrigin::user_script, "c.stp") ==
        "local");
  // Inside a library macro only library macros are seen.
  CHECK(s.texts("@define helper %( mine %) @helper @lib(@helper)", FileOrigin::user_script,
                "d.stp") == "mine lib < mine >");
  CHECK(s.diags.error_count() == 0);
}

TEST_CASE("pp: library macro files", "[preprocessor]") {
  Session s;
  s.texts("@define a %( 1 %) x", FileOrigin::macro_library, "/t/bad.stpm");
  CHECK(s.rendered() ==
        "parse error: unexpected token in library macro file '/t/bad.stpm'\n"
        "         at: identifier 'x' at /t/bad.stpm:1:19\n"
        "     source: @define a %( 1 %) x\n"
        "                               ^\n\n");
  CHECK(s.macros.find("a") == nullptr);  // nothing taken from a bad file

  s.texts("@define b %( 1 %)", FileOrigin::macro_library, "/t/one.stpm");
  s.texts("@define c %( 2 %) @define b %( 3 %)", FileOrigin::macro_library, "/t/two.stpm");
  std::string out = s.rendered();
  CHECK(out.find("parse error: duplicate definition of library macro '@b'\n"
                 "         at: identifier 'b' at /t/two.stpm:1:27\n") != std::string::npos);
  CHECK(out.find("parse error: macro '@b' first defined here\n"
                 "         at: identifier 'b' at /t/one.stpm:1:9\n") != std::string::npos);
  CHECK(s.macros.find("c") == nullptr);
  REQUIRE(s.macros.find("b") != nullptr);
  CHECK(s.macros.find("b")->body.at(0).text == "1");
}

TEST_CASE("pp: command-line arguments", "[preprocessor]") {
  CHECK(pp("x = $1", {"42"}) == "x = 42");
  CHECK(pp("x = $1", {"foo"}) == "x = foo");
  CHECK(pp("x = $1 + $2", {"3 * 4", "foo"}) == "x = 3 * 4 + foo");
  CHECK(pp("x = @1", {"3 * 4"}) == "x = \"3 * 4\"");
  CHECK(pp("x = @1 . @2", {"a\"b", ""}) == "x = \"a\"b\" . \"\"");
  CHECK(pp("x = $1", {"\"str\""}) == "x = \"str\"");
  CHECK(pp("x = $# + @#", {"a", "b"}) == "x = 2 + \"2\"");
  CHECK(pp("x = $#") == "x = 0");
  CHECK(pp("probe $1 { }", {"begin"}) == "probe begin { }");
  // $1 in a macro body, a macro use in an argument.
  CHECK(pp("@define m %( $1 %) @m", {"7"}) == "7");
  CHECK(pp("@define m %( 5 %) x = $1", {"@m"}) == "x = 5");

  Session s;
  s.env.args = {"a ` b"};
  std::vector<Token> toks = s.run("x = $1");
  REQUIRE(toks.size() == 6);
  for (size_t i = 2; i < 5; ++i) {  // every token of $1 sits at the $1
    CHECK(toks[i].loc.column == 5);
    CHECK(toks[i].loc.expansion == 0);
  }
  CHECK(toks[3].is_op("`"));
  CHECK(toks[2].kind == TokenKind::identifier);
  Session str;
  str.env.args = {"hi"};
  toks = str.run("x = @1");
  CHECK(toks[2].kind == TokenKind::string);
  CHECK(toks[2].loc.column == 5);
}

TEST_CASE("pp: bad command-line arguments", "[preprocessor]") {
  CHECK(errors("probe begin { x = $1 }") ==
        "parse error: command line argument out of range [1-0]\n"
        "         at: junk '' at <input>:1:19\n"
        "     source: probe begin { x = $1 }\n"
        "                               ^\n\n");
  CHECK(errors("x = @2", {"a"}).rfind(
            "parse error: command line argument out of range [1-1]\n"
            "         at: junk '' at <input>:1:5\n", 0) == 0);
  CHECK(errors("x = $0", {"a"}).rfind(
            "parse error: command line argument out of range [1-1]\n", 0) == 0);
  CHECK(errors("x = $1", {"\"abc"}).rfind(
            "parse error: Could not find matching closing quote\n"
            "         at: junk '' at <input>:1:5\n", 0) == 0);
  CHECK(errors("x = $1", {"$2"}).rfind(
            "parse error: invalid nested substitution of command line arguments\n", 0) == 0);
  // The bad token leaves junk in the stream.
  Session s;
  CHECK(s.texts("a $4 b") == "a <junk> b");
  CHECK(s.diags.error_count() == 1);
  // A missing argument in a macro body is an error only where it is used.
  CHECK(pp("@define m %( $3 %) ok") == "ok");
  CHECK(errors("@define m %( $3 %)\nx = @m").find(
            "\tin expansion of macro: operator '@m' at <input>:2:5\n") != std::string::npos);
}

TEST_CASE("pp: a bad argument in a condition is blamed where stap looks", "[preprocessor]") {
  auto first_at = [](const std::string& text) {
    std::string out = errors(text);
    size_t at = out.find("at: ");
    return out.substr(at + 4, out.find('\n', at) - at - 4);
  };
  // The left side first; it must be a known name or a literal ...
  CHECK(first_at("%( ( $1 == 5 %? a %)") == "operator '(' at <input>:1:4");
  CHECK(first_at("%( x == $1 %? a %)") == "identifier 'x' at <input>:1:4");
  // ... then the operator ...
  CHECK(first_at("%( 5 $1 3 %? a %)") == "junk '' at <input>:1:6");
  // ... then a known name's right side; a literal's is not looked at.
  CHECK(first_at("%( arch == $1 %? a %)") == "junk '' at <input>:1:12");
  CHECK(first_at("%( 5 == $1 %? a %)") == "number '5' at <input>:1:4");
}
