// Pass 1a: the lexer.  Expected token forms, locations and messages were
// checked against stap 4.8 (ostap -p1).
#include <catch2/catch.hpp>

#include <sstream>

#include "base/diagnostics.h"
#include "parse/lexer.h"

using namespace stap;

namespace {

struct Lexed {
  SourceManager sources;
  Diagnostics diags{sources};
  std::vector<Token> tokens;

  explicit Lexed(const std::string& text) {
    FileId f = sources.add("<input>", text, FileOrigin::command_line);
    tokens = lex(sources, f, diags);
  }
  std::string rendered() {
    std::ostringstream out;
    diags.flush(out);
    return out.str();
  }
};

// "kind:text" for each token but the final end_of_input.
std::vector<std::string> kinds_and_texts(const std::string& text) {
  Lexed l(text);
  REQUIRE(l.diags.error_count() == 0);
  REQUIRE(l.tokens.back().kind == TokenKind::end_of_input);
  std::vector<std::string> out;
  for (size_t i = 0; i + 1 < l.tokens.size(); ++i) {
    const Token& t = l.tokens[i];
    const char* k = "?";
    switch (t.kind) {
      case TokenKind::identifier: k = "id"; break;
      case TokenKind::keyword: k = "kw"; break;
      case TokenKind::number: k = "num"; break;
      case TokenKind::string: k = "str"; break;
      case TokenKind::op: k = "op"; break;
      case TokenKind::embedded_code: k = "code"; break;
      case TokenKind::junk: k = "junk"; break;
      case TokenKind::end_of_input: k = "eof"; break;
    }
    out.push_back(std::string(k) + ":" + t.text);
  }
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("lexer: single tokens", "[lexer]") {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"foo", "id:foo"},         {"_x9", "id:_x9"},          {"x$y", "id:x$y"},
      {"$var", "id:$var"},       {"$var$", "id:$var$"},      {"$var$$", "id:$var$$"},
      {"$$vars", "id:$$vars"},   {"$$parms$$", "id:$$parms$$"}, {"$$locals$", "id:$$locals$"},
      {"$$return", "id:$$return"}, {"$", "id:$"},            {"$$", "id:$$"},
      {"$1", "id:$1"},           {"$12", "id:$12"},          {"$#", "id:$#"},
      {"@1", "id:@1"},           {"@#", "id:@#"},            {"@cast", "id:@cast"},
      {"@define", "id:@define"}, {"@hist_log", "id:@hist_log"}, {"@x$y", "id:@x$y"},
      {"@", "op:@"},             {"probe", "kw:probe"},      {"string", "kw:string"},
      {"long", "kw:long"},       {"limit", "kw:limit"},      {"probes", "id:probes"},
      {"42", "num:42"},          {"0x2a", "num:0x2a"},       {"0X2A", "num:0X2A"},
      {"052", "num:052"},        {"0b101", "num:0b101"},     {"0x1g", "num:0x1g"},
      {"12abc", "num:12abc"},    {"0", "num:0"},
      {"\"abc\"", "str:abc"},    {"\"\"", "str:"},
      {"<<<", "op:<<<"},         {">>>", "op:>>>"},          {">>=", "op:>>="},
      {"<<=", "op:<<="},         {">>", "op:>>"},            {"<<", "op:<<"},
      {"<=", "op:<="},           {">=", "op:>="},            {"==", "op:=="},
      {"!=", "op:!="},           {"=~", "op:=~"},            {"!~", "op:!~"},
      {"&&", "op:&&"},           {"||", "op:||"},            {"++", "op:++"},
      {"--", "op:--"},           {"+=", "op:+="},            {"-=", "op:-="},
      {"*=", "op:*="},           {"/=", "op:/="},            {"%=", "op:%="},
      {"&=", "op:&="},           {"|=", "op:|="},            {"^=", "op:^="},
      {".=", "op:.="},           {"->", "op:->"},            {"%(", "op:%("},
      {"%?", "op:%?"},           {"%:", "op:%:"},            {"%)", "op:%)"},
      {"`", "op:`"},             {"\\", "op:\\"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.in);
    CHECK(kinds_and_texts(c.in) == V{c.out});
  }
  for (const char* single : {"{", "}", "(", ")", "[", "]", ",", ";", ":", "?", ".", "+", "-",
                             "*", "/", "%", "&", "|", "^", "!", "~", "<", ">", "="}) {
    INFO("input: " << single);
    CHECK(kinds_and_texts(single) == V{std::string("op:") + single});
  }
}

TEST_CASE("lexer: sequences and longest match", "[lexer]") {
  CHECK(kinds_and_texts("a<<<1") == V{"id:a", "op:<<<", "num:1"});
  CHECK(kinds_and_texts("a<<=<<<") == V{"id:a", "op:<<=", "op:<<<"});
  CHECK(kinds_and_texts("x--->y") == V{"id:x", "op:--", "op:->", "id:y"});
  CHECK(kinds_and_texts("1.5") == V{"num:1", "op:.", "num:5"});
  CHECK(kinds_and_texts("global a%, b%[10]") ==
        V{"kw:global", "id:a", "op:%", "op:,", "id:b", "op:%", "op:[", "num:10", "op:]"});
  CHECK(kinds_and_texts("a%=b%c") == V{"id:a", "op:%=", "id:b", "op:%", "id:c"});
  CHECK(kinds_and_texts("%}") == V{"op:%", "op:}"});
  CHECK(kinds_and_texts("@@") == V{"op:@", "op:@"});
  CHECK(kinds_and_texts("$1x") == V{"id:$1", "id:x"});
  // A number stops at '_' (stap gobbles letters and digits only).
  CHECK(kinds_and_texts("1_000") == V{"num:1", "id:_000"});
  CHECK(kinds_and_texts("0x1f_ff") == V{"num:0x1f", "id:_ff"});
  CHECK(kinds_and_texts("%( $# > 1 %? a %: b %)") ==
        V{"op:%(", "id:$#", "op:>", "num:1", "op:%?", "id:a", "op:%:", "id:b", "op:%)"});
  CHECK(kinds_and_texts("$p->a[2]") ==
        V{"id:$p", "op:->", "id:a", "op:[", "num:2", "op:]"});
  CHECK(kinds_and_texts("@cast(p, \"task_struct\")->pid") ==
        V{"id:@cast", "op:(", "id:p", "op:,", "str:task_struct", "op:)", "op:->", "id:pid"});
  CHECK(kinds_and_texts("x=~\"a\"") == V{"id:x", "op:=~", "str:a"});
}

TEST_CASE("lexer: comments", "[lexer]") {
  CHECK(kinds_and_texts("a # b c\nd") == V{"id:a", "id:d"});
  CHECK(kinds_and_texts("#!/usr/bin/stap\nprobe") == V{"kw:probe"});
  CHECK(kinds_and_texts("a // b\nd") == V{"id:a", "id:d"});
  CHECK(kinds_and_texts("a /* b \n * c */ d") == V{"id:a", "id:d"});
  CHECK(kinds_and_texts("a /* b **/d") == V{"id:a", "id:d"});
  CHECK(kinds_and_texts("a/**/b") == V{"id:a", "id:b"});
  CHECK(kinds_and_texts("a /* %( \" */ b") == V{"id:a", "id:b"});
  CHECK(kinds_and_texts("a / b") == V{"id:a", "op:/", "id:b"});
  // stap accepts a block comment left open at the end of the file.
  CHECK(kinds_and_texts("a /* b") == V{"id:a"});
}

TEST_CASE("lexer: string escapes", "[lexer]") {
  struct Case {
    const char* in;
    std::string value;
  };
  const Case cases[] = {
      {R"("a\nb")", "a\nb"},       {R"("\t\r\a\b\f\v")", "\t\r\a\b\f\v"},
      {R"("\\")", "\\"},           {R"("\"")", "\""},
      {R"("\'\?")", "'?"},         {R"("\101")", "A"},
      {R"("\0")", std::string(1, '\0')}, {R"("\1012")", "A2"},
      {R"("\x41")", "A"},          {R"("\x4a1")", "J1"},
      {R"("\q\e")", "qe"},         {R"("\x")", "x"},
      {"\"a\\\nb\"", "a\nb"},      {R"("%( # // /*")", "%( # // /*"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.in);
    Lexed l(c.in);
    REQUIRE(l.diags.error_count() == 0);
    REQUIRE(l.tokens.size() == 2);
    CHECK(l.tokens[0].kind == TokenKind::string);
    CHECK(l.tokens[0].text == c.value);
  }
}

TEST_CASE("lexer: embedded code", "[lexer]") {
  CHECK(kinds_and_texts("%{ int x; %}") == V{"code: int x; "});
  CHECK(kinds_and_texts("function f() %{ /* pure */ STAP_RETURN(1); %} x") ==
        V{"kw:function", "id:f", "op:(", "op:)", "code: /* pure */ STAP_RETURN(1); ", "id:x"});
  CHECK(kinds_and_texts("%{%}") == V{"code:"});
}

TEST_CASE("lexer: locations are 1-based byte columns", "[lexer]") {
  Lexed l("probe begin {\n\tx = \"s\" }\n  /* c\n */ y");
  REQUIRE(l.diags.error_count() == 0);
  struct Want {
    const char* text;
    uint32_t line, column;
  };
  const Want want[] = {{"probe", 1, 1}, {"begin", 1, 7}, {"{", 1, 13}, {"x", 2, 2},
                       {"=", 2, 4},     {"s", 2, 6},     {"}", 2, 10}, {"y", 4, 5}};
  REQUIRE(l.tokens.size() == std::size(want) + 1);
  for (size_t i = 0; i < std::size(want); ++i) {
    INFO("token " << i);
    CHECK(l.tokens[i].text == want[i].text);
    CHECK(l.tokens[i].loc.line == want[i].line);
    CHECK(l.tokens[i].loc.column == want[i].column);
    CHECK(l.tokens[i].loc.expansion == 0);
  }
  const Token& eof = l.tokens.back();
  CHECK(eof.kind == TokenKind::end_of_input);
  CHECK(eof.loc.line == 4);
  CHECK(eof.loc.column == 6);
}

TEST_CASE("lexer: junk bytes are tokens for the parser to reject", "[lexer]") {
  Lexed l("x \xc3\xa9 \x01 y");
  CHECK(l.diags.error_count() == 0);
  REQUIRE(l.tokens.size() == 6);
  CHECK(l.tokens[1].kind == TokenKind::junk);
  CHECK(l.tokens[1].text == "\xc3");
  CHECK(describe(l.tokens[1]) == "junk '\\xc3'");
  CHECK(l.tokens[2].kind == TokenKind::junk);
  CHECK(l.tokens[2].loc.column == 4);
  CHECK(describe(l.tokens[3]) == "junk '\\x01'");
  CHECK(l.tokens[4].text == "y");
}

TEST_CASE("lexer: unterminated string", "[lexer]") {
  Lexed l("probe begin { x = \"abc }\ny = 1");
  CHECK(l.diags.error_count() == 1);
  CHECK(l.rendered() ==
        "parse error: Could not find matching closing quote\n"
        "         at: junk '' at <input>:1:19\n"
        "     source: probe begin { x = \"abc }\n"
        "                               ^\n\n");
  // The error leaves an empty junk token, then lexing goes on.
  V texts;
  for (const Token& t : l.tokens) texts.push_back(t.text);
  CHECK(texts == V{"probe", "begin", "{", "x", "=", "", "y", "=", "1", ""});
  CHECK(l.tokens[5].kind == TokenKind::junk);
  CHECK(l.tokens[6].loc.line == 2);

  Lexed at_end("\"abc");
  CHECK(at_end.diags.error_count() == 1);
  CHECK(at_end.diags.all()[0].loc.column == 1);
}

TEST_CASE("lexer: unterminated embedded code", "[lexer]") {
  Lexed l("probe begin { x = 1 } %{ abc");
  CHECK(l.rendered() ==
        "parse error: Could not find matching '%}' to close embedded function block\n"
        "         at: junk '' at <input>:1:23\n"
        "     source: probe begin { x = 1 } %{ abc\n"
        "                                   ^\n\n");
}

TEST_CASE("describe() uses stap's wording", "[lexer]") {
  auto tok = [](TokenKind k, std::string text) { return Token{k, std::move(text), {}}; };
  CHECK(describe(tok(TokenKind::identifier, "foo")) == "identifier 'foo'");
  CHECK(describe(tok(TokenKind::identifier, "$a")) == "identifier '$a'");
  CHECK(describe(tok(TokenKind::identifier, "@cast")) == "operator '@cast'");
  CHECK(describe(tok(TokenKind::keyword, "probe")) == "keyword");
  CHECK(describe(tok(TokenKind::number, "0x1F")) == "number '0x1F'");
  CHECK(describe(tok(TokenKind::string, "s")) == "string 's'");
  CHECK(describe(tok(TokenKind::string, "a\nb\"\\")) == "string 'a\\nb\\\"\\\\'");
  CHECK(describe(tok(TokenKind::op, "}")) == "operator '}'");
  CHECK(describe(tok(TokenKind::op, "<<<")) == "operator '<<<'");
  CHECK(describe(tok(TokenKind::embedded_code, " x ")) == "embedded-code");
  CHECK(describe(tok(TokenKind::junk, "")) == "junk ''");
  CHECK(describe(tok(TokenKind::end_of_input, "")) == "EOF");
}

TEST_CASE("is_keyword", "[lexer]") {
  for (const char* k : {"probe", "global", "function", "if", "else", "for", "foreach", "in",
                        "limit", "return", "delete", "while", "break", "continue", "next",
                        "try", "catch", "private", "long", "string"})
    CHECK(is_keyword(k));
  for (const char* k : {"begin", "Probe", "print", "in_", "", "$in"}) CHECK_FALSE(is_keyword(k));
}
