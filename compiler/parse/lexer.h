// Pass 1a: text -> tokens.
//
// Handles comments (#, //, /* */), numbers in every base (decimal, 0x hex,
// 0 octal, 0b binary), string escapes (\n \t \" \\ \ooo \xhh ...), all
// operators (longest match first: "<<<", ">>>", "%(", "%{" ...), $/@
// identifiers ($var, $$vars, $1, @1, $#, @#, @define, @cast ...), and
// embedded code %{ ... %} as one token.
//
// Choices made to match stap 4.8 (checked against it):
//  - '$' is a name character anywhere: "$var$", "$var$$", "$$vars$",
//    "$$parms$$" and "x$y" are each ONE identifier token; the parser reads
//    a trailing "$"/"$$" off the name as the pretty-print suffix.  "$1",
//    "$#", "@1", "@#" are identifiers for the preprocessor to substitute.
//  - "@name" is an identifier token whose text keeps the '@' (stap calls
//    it an operator in messages: describe() does too); a lone '@' is op.
//  - A number is a digit followed by every letter and digit after it, so
//    "0x1g" and "12abc" are single number tokens for the parser to reject
//    ("number invalid or out of range").  "1.5" is 1 . 5.
//  - Strings are decoded: \n \t \r \a \b \f \v, \ooo, \xhh; any other
//    escaped character stands for itself ("\q" is "q", "\?" is "?", and a
//    backslash-newline keeps the newline).  A raw newline in a string is an
//    error.
//  - Any other printable ASCII character is a one-character op ('`', '\'
//    reach the parser as "operator '`'"); other bytes are junk tokens.
//  - An unterminated string or %{ is reported here ("at: junk ''") and
//    leaves an empty junk token; an unterminated /* comment is accepted
//    silently, as stap does.
//  - Lines and columns are 1-based; columns count bytes (a tab is one).
#pragma once

#include <vector>

#include "base/diagnostics.h"
#include "base/source.h"
#include "parse/token.h"

namespace stap {

// Always ends with one end_of_input token.
std::vector<Token> lex(const SourceManager& sources, FileId file, Diagnostics& diags);

}  // namespace stap
