// Tokens of the stap language, as produced by the lexer and rewritten by
// the preprocessor (conditionals, @define macros, $1/@1 arguments).
#pragma once

#include <string>

#include "base/source.h"

namespace stap {

enum class TokenKind {
  identifier,     // foo, $foo, $$vars, @foo (an @-operator or macro use)
  keyword,        // probe global function if else for foreach in limit
                  // return delete while break continue next try catch
                  // private long string
  number,         // text as written: 42, 0x2a, 052, 0b101
  string,         // text is the decoded value, without quotes
  op,             // every operator and punctuation mark, incl. %( %? %: %)
  embedded_code,  // %{ ... %}; text is the code between the markers
  // A byte no token can start with (non-ASCII, control), text is that
  // byte; or, with empty text, the place of an error the lexer or the
  // preprocessor has already reported (unterminated string, missing
  // argument): the parser then recovers without a second message.
  junk,
  end_of_input,
};

struct Token {
  TokenKind kind = TokenKind::end_of_input;
  std::string text;
  SourceLoc loc;
  // A comment lies between this token and the one before it (stap before
  // 2.0 glues no string literals across one).
  bool after_comment = false;
  // The comment just before it is exactly `/* guru */`, stap's tag; the
  // parser honours it at the start of a tapset function's script body.
  bool after_guru_tag = false;

  bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool is_op(std::string_view t) const { return is(TokenKind::op, t); }
  bool is_keyword(std::string_view t) const { return is(TokenKind::keyword, t); }
};

// How stap names a token in a diagnostic: "identifier 'x'", "operator '}'",
// "operator '@cast'" (an @name is an operator to stap), "string 'a\n'"
// (escapes shown as written), "number '42'", "keyword" (stap does not name
// it), "embedded-code", "junk '\xc3'", and "EOF" for end_of_input (stap
// says "<file> EOF" with no location: the parser adds the file name).
std::string describe(const Token& t);

bool is_keyword(std::string_view word);

// A string value with its special characters escaped as a script would
// write them (\n, \", \\, \ooo for other control bytes); no quotes.
std::string escape_string(std::string_view value);

}  // namespace stap
