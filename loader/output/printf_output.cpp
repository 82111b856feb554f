#include "loader/output/printf_output.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace stap {

namespace {

// The output buffer of one call.  stap writes into a buffer of fixed size
// and silently drops what does not fit; widths and precisions are clamped
// to the space left (see resolve_count), which changes what is visible
// near the end of the buffer, so the space left is tracked exactly.
class Output {
 public:
  explicit Output(size_t capacity) : capacity_(capacity) {}

  void put(char c) {
    if (text_.size() < capacity_) text_ += c;
  }
  void put(std::string_view s) {
    for (char c : s) put(c);
  }
  void repeat(char c, long count) {
    for (long i = 0; i < count; ++i) put(c);
  }
  long remaining() const { return static_cast<long>(capacity_ - text_.size()); }
  std::string& text() { return text_; }

 private:
  size_t capacity_;
  std::string text_;
};

// The one flag stap allows per conversion, as the runtime reads it.
struct Flags {
  bool left = false;      // '-'
  bool plus = false;      // '+': signed conversions only
  bool space = false;     // ' ': signed conversions only
  bool special = false;   // '#'
  bool zero_pad = false;  // '0'
};

Flags flags_of(char flag) {
  Flags f;
  f.left = flag == '-';
  f.plus = flag == '+';
  f.space = flag == ' ';
  f.special = flag == '#';
  f.zero_pad = flag == '0';
  return f;
}

// A width or precision as stap's generated code computes it: -1 when not
// given, else the value (a '*' argument converted to int, which keeps its
// low 32 bits) clamped to [0, space left].  A negative '*' width is thus 0,
// not a left-justified field as in C.
int resolve_count(int given, int64_t from_arg, long remaining) {
  if (given == PrintfPiece::kNone) return -1;
  long value = given == PrintfPiece::kFromArg ? static_cast<int32_t>(from_arg) : given;
  return static_cast<int>(std::clamp(value, 0L, std::max(remaining, 0L)));
}

std::string digits_of(uint64_t value, int base, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string reversed;
  do {
    reversed += digits[value % base];
    value /= base;
  } while (value != 0);  // zero is "0" whatever the precision
  return std::string(reversed.rbegin(), reversed.rend());
}

// d i u o x X p: runtime/vsprintf.c number().  The field is
// [spaces][sign or 0x/0 prefix][zeros from '0' flag][zeros up to the
// precision][digits][spaces if '-'].
void put_number(Output& out, uint64_t value, bool is_signed, int base, bool upper,
                int width, int precision, Flags f) {
  bool zero_pad = f.zero_pad && !f.left;
  std::string prefix;
  if (is_signed && static_cast<int64_t>(value) < 0) {
    prefix = "-";
    value = 0 - value;  // INT64_MIN's magnitude fits in uint64_t
  } else if (is_signed && f.plus) {
    prefix = "+";
  } else if (is_signed && f.space) {
    prefix = " ";
  }
  if (f.special && base == 16) prefix += upper ? "0X" : "0x";
  if (f.special && base == 8) prefix += "0";
  std::string digits = digits_of(value, base, upper);
  long body = std::max<long>(static_cast<long>(digits.size()), precision);
  long pad = width - static_cast<long>(prefix.size()) - body;
  if (!zero_pad && !f.left) out.repeat(' ', pad);
  out.put(prefix);
  if (zero_pad) out.repeat('0', pad);
  out.repeat('0', body - static_cast<long>(digits.size()));
  out.put(digits);
  if (f.left) out.repeat(' ', pad);
}

// What "%#c" shows: a printable ASCII character itself, else a C escape
// or three octal digits (runtime/vsprintf.c _stp_vsprint_char).
std::string escaped_char(unsigned char c) {
  switch (c) {
    case '\a': return "\\a";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\v': return "\\v";
    case '\'': return "\\'";
    case '\\': return "\\\\";
    default: break;
  }
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  std::string octal = "\\";
  octal += static_cast<char>('0' + ((c >> 6) & 3));
  octal += static_cast<char>('0' + ((c >> 3) & 7));
  octal += static_cast<char>('0' + (c & 7));
  return octal;
}

// %c: the low byte of the value (a NUL byte too), padded with spaces.
// Only '-' and '#' change anything.
void put_char(Output& out, int64_t value, int width, Flags f) {
  auto c = static_cast<unsigned char>(value);
  std::string shown = f.special ? escaped_char(c) : std::string(1, static_cast<char>(c));
  long pad = width - static_cast<long>(shown.size());
  if (!f.left) out.repeat(' ', pad);
  out.put(shown);
  if (f.left) out.repeat(' ', pad);
}

// %s %m %M: runtime/vsprintf.c _stp_vsprint_memory.  %s shows the string
// up to the precision (at most the print buffer); %m the precision's bytes
// (1 when none), %M the same bytes as two hex digits each.  The '0' flag
// adds one NUL byte after the field.
void put_memory(Output& out, char conversion, std::string_view data, int width,
                int precision, Flags f) {
  size_t len;
  if (conversion == 's') {
    size_t limit = precision < 0 ? kPrintBufferSize
                                 : std::min<size_t>(precision, kPrintBufferSize);
    len = std::min(limit, data.size());
    len = std::min(len, data.substr(0, len).find('\0'));  // strnlen
  } else {
    len = static_cast<size_t>(memory_dump_length(precision < 0 ? PrintfPiece::kNone
                                                               : precision));
    if (data.size() < len)
      throw std::invalid_argument("printf: %" + std::string(1, conversion) + " needs " +
                                  std::to_string(len) + " bytes of memory, got " +
                                  std::to_string(data.size()));
  }
  long shown = static_cast<long>(conversion == 'M' ? 2 * len : len);
  if (!f.left) out.repeat(' ', width - shown);
  if (conversion == 'M') {
    static const char hex[] = "0123456789abcdef";
    // stap writes a byte's two digits only while both fit.
    for (size_t i = 0; i < len && out.remaining() >= 2; ++i) {
      auto byte = static_cast<unsigned char>(data[i]);
      out.put(hex[byte >> 4]);
      out.put(hex[byte & 0xf]);
    }
  } else {
    out.put(data.substr(0, len));
  }
  if (f.left) out.repeat(' ', width - shown);
  if (f.zero_pad) out.put('\0');
}

int binary_size(int n) { return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1; }

// %b: runtime/vsprintf.c _stp_vsprint_binary.  The value's low `size`
// bytes in host order, size being the precision if 1/2/4/8, else the
// width if 1/2/4/8, else 8; a width beyond the size pads with NUL bytes
// (before the value, or after it with '-').  A value that does not fit in
// the space left is not written at all.
void put_binary(Output& out, int64_t value, int width, int precision, Flags f) {
  int size = binary_size(precision);
  if (width == -1) {
    if (size == -1) size = 8;
    width = size;
  } else if (size == -1) {
    size = binary_size(width);
    if (size == -1) size = 8;
  }
  long pad = width - size;
  if (!f.left) out.repeat('\0', pad);
  if (out.remaining() >= size) {
    // The value converted to the chosen size, then its bytes as stored.
    char bytes[8];
    auto b1 = static_cast<uint8_t>(value);
    auto b2 = static_cast<uint16_t>(value);
    auto b4 = static_cast<uint32_t>(value);
    switch (size) {
      case 1: std::memcpy(bytes, &b1, 1); break;
      case 2: std::memcpy(bytes, &b2, 2); break;
      case 4: std::memcpy(bytes, &b4, 4); break;
      default: std::memcpy(bytes, &value, 8); break;
    }
    out.put(std::string_view(bytes, static_cast<size_t>(size)));
  }
  if (f.left) out.repeat('\0', pad);
}

// Hands out the arguments in order, checking their kinds.
class Arguments {
 public:
  explicit Arguments(const std::vector<PrintfValue>& args) : args_(args) {}

  const PrintfValue& next(bool want_string) {
    if (next_ >= args_.size())
      throw std::invalid_argument("printf: too few arguments for the format");
    const PrintfValue& v = args_[next_++];
    if (v.is_string != want_string)
      throw std::invalid_argument(want_string ? "printf: a number where %s wants a string"
                                              : "printf: a string where a number belongs");
    return v;
  }
  int64_t next_count(int given) {
    return given == PrintfPiece::kFromArg ? next(false).number : 0;
  }

 private:
  const std::vector<PrintfValue>& args_;
  size_t next_ = 0;
};

void put_conversion(Output& out, const PrintfPiece& p, Arguments& args) {
  long remaining = out.remaining();
  int64_t width_arg = args.next_count(p.width);
  int64_t precision_arg = args.next_count(p.precision);
  int width = resolve_count(p.width, width_arg, remaining);
  int precision = resolve_count(p.precision, precision_arg, remaining);
  Flags f = flags_of(p.flag);
  const PrintfValue& v = args.next(p.conversion == 's');
  auto n = static_cast<uint64_t>(v.number);
  switch (p.conversion) {
    case 'd':
    case 'i': put_number(out, n, true, 10, false, width, precision, f); break;
    case 'u': put_number(out, n, false, 10, false, width, precision, f); break;
    case 'o': put_number(out, n, false, 8, false, width, precision, f); break;
    case 'x': put_number(out, n, false, 16, false, width, precision, f); break;
    case 'X': put_number(out, n, false, 16, true, width, precision, f); break;
    case 'p':  // since stap 1.3, %p is %#x
      f.special = true;
      put_number(out, n, false, 16, false, width, precision, f);
      break;
    case 'c': put_char(out, v.number, width, f); break;
    case 'b': put_binary(out, v.number, width, precision, f); break;
    case 's':
    case 'm':
    case 'M': put_memory(out, p.conversion, v.text, width, precision, f); break;
    default:
      throw std::invalid_argument(std::string("printf: unknown conversion %") + p.conversion);
  }
}

std::string format_into(const std::vector<PrintfPiece>& pieces,
                        const std::vector<PrintfValue>& args, size_t capacity) {
  Output out(capacity);
  Arguments next(args);
  for (const PrintfPiece& p : pieces) {
    if (p.kind == PrintfPiece::Kind::literal)
      out.put(p.text);
    else
      put_conversion(out, p, next);
  }
  return std::move(out.text());
}

}  // namespace

int64_t memory_dump_length(int64_t precision) { return precision > 0 ? precision : 1; }

std::string format_printf(const std::vector<PrintfPiece>& pieces,
                          const std::vector<PrintfValue>& args, size_t capacity) {
  return format_into(pieces, args, capacity);
}

std::string format_sprintf(const std::vector<PrintfPiece>& pieces,
                           const std::vector<PrintfValue>& args, size_t maxstringlen) {
  if (maxstringlen == 0) return {};
  std::string s = format_into(pieces, args, maxstringlen);
  // stap NUL-terminates in place: a full buffer loses its last byte.
  if (s.size() == maxstringlen) s.pop_back();
  return s.substr(0, s.find('\0'));
}

}  // namespace stap
