#include "base/format_string.h"

#include <climits>
#include <cstdio>

namespace stap {

namespace {

const char kInvalidConversion[] = "invalid or missing conversion specifier";
const char kTrailingIncomplete[] = "trailing incomplete print format conversion";

bool is_conversion(char c) {
  return std::string_view("bcdiouxXspmM").find(c) != std::string_view::npos;
}

bool is_flag(char c) { return std::string_view("-+ #0").find(c) != std::string_view::npos; }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// '*' or digits at f[i]: kFromArg, the number (saturated), or kNone.
int read_count(std::string_view f, size_t& i) {
  if (i < f.size() && f[i] == '*') {
    ++i;
    return PrintfPiece::kFromArg;
  }
  if (i >= f.size() || !is_digit(f[i])) return PrintfPiece::kNone;
  long long n = 0;
  while (i < f.size() && is_digit(f[i])) {
    n = n * 10 + (f[i++] - '0');
    if (n > INT_MAX) n = INT_MAX;
  }
  return static_cast<int>(n);
}

// Reads the conversion after the '%' at f[i - 1].  Returns false with
// `error` set; sets `dropped` for a conversion cut short by the end of the
// format with nothing given (stap ignores it).
bool read_conversion(std::string_view f, size_t& i, PrintfPiece& p, bool& dropped,
                     std::string& error) {
  if (i >= f.size()) {
    error = kInvalidConversion;
    return false;
  }
  if (is_flag(f[i])) p.flag = f[i++];
  p.width = read_count(f, i);
  bool precision_given = false;
  if (i < f.size() && f[i] == '.') {
    ++i;
    p.precision = read_count(f, i);
    precision_given = p.precision != PrintfPiece::kNone;
    if (!precision_given) p.precision = 0;
  }
  if (i < f.size() && f[i] == 'l') {
    ++i;
    p.long_modifier = true;
  }
  if (i >= f.size()) {
    bool given = p.flag != 0 || p.width != PrintfPiece::kNone || precision_given;
    if (given) error = kTrailingIncomplete;
    dropped = !given;
    return !given;
  }
  if (!is_conversion(f[i])) {
    error = kInvalidConversion;
    return false;
  }
  p.conversion = f[i++];
  return true;
}

}  // namespace

int PrintfPiece::argument_count() const {
  if (kind != Kind::conversion) return 0;
  return 1 + (width == kFromArg) + (precision == kFromArg);
}

bool parse_printf_format(std::string_view f, std::vector<PrintfPiece>& pieces,
                         std::string& error) {
  pieces.clear();
  std::string literal;
  auto flush = [&] {
    if (literal.empty()) return;
    PrintfPiece p;
    p.text = std::move(literal);
    pieces.push_back(std::move(p));
    literal.clear();
  };
  for (size_t i = 0; i < f.size();) {
    if (f[i] != '%') {
      literal += f[i++];
      continue;
    }
    ++i;
    if (i < f.size() && f[i] == '%') {
      literal += '%';
      ++i;
      continue;
    }
    PrintfPiece p;
    p.kind = PrintfPiece::Kind::conversion;
    bool dropped = false;
    if (!read_conversion(f, i, p, dropped, error)) return false;
    if (dropped) break;
    flush();
    pieces.push_back(std::move(p));
  }
  flush();
  return true;
}

std::string hex_text(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

}  // namespace stap
