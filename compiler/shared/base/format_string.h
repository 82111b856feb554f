// printf-style formats as stap reads them (printf, sprintf): literal text
// and conversions %[flag][width][.precision][l]conv.
//
// The rules follow stap 4.8's own reading, checked with ostap:
//  - conversions: b c d i o u x X s p m M; "%%" is a literal '%';
//  - at most ONE flag of "-+ #0" ("%-5d", "%05d" and "%-05d" = flag '-',
//    width 05 are fine, "%-+d" is not);
//  - width and precision are digits or '*' (taken from an argument, a long,
//    before the value); '.' alone means precision 0;
//  - at most one 'l' modifier, accepted and ignored (values are 64-bit);
//  - a format ending inside a conversion is "trailing incomplete print
//    format conversion" when a flag, width or precision was given, and is
//    silently dropped otherwise ("%l", "%." at the end); a lone '%' at the
//    end, or any other character where the conversion belongs, is
//    "invalid or missing conversion specifier".
//
// No dependency but the standard library: the parser checks formats in
// pass 1 (stap reports bad ones as parse errors) and later passes type and
// run them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stap {

// One piece of a format: literal text, or a conversion.
struct PrintfPiece {
  static constexpr int kNone = -1;      // no width / precision given
  static constexpr int kFromArg = -2;   // '*': taken from an argument

  enum class Kind : unsigned char { literal, conversion } kind = Kind::literal;
  std::string text;        // literal: the text, "%%" already reduced to "%"
  char flag = 0;           // one of "-+ #0", or 0
  int width = kNone;       // digits saturate at INT_MAX
  int precision = kNone;   // '.' alone is 0
  bool long_modifier = false;
  char conversion = 0;     // b c d i o u x X s p m M

  // How many arguments the piece consumes ('*' ones come first, as longs).
  int argument_count() const;
  bool takes_string() const { return conversion == 's'; }
};

// Splits `format` into pieces (adjacent literal text merged).  On error sets
// `error` to stap's wording and returns false.
bool parse_printf_format(std::string_view format, std::vector<PrintfPiece>& pieces,
                         std::string& error);

// "0x1f": an address as stap writes one in a probe point and in messages.
std::string hex_text(uint64_t value);

}  // namespace stap
