// text_str(), text_strn() and string_quoted(): a string made printable
// with C-style escapes, as stap 4.8's runtime does it (_stp_text_str in
// its runtime/stp_string.c was read for the rules):
//  - printable ASCII stays, except '"' and '\\' which are escaped;
//  - \a \b \f \n \r \t \v \" \\ are two-character escapes, any other
//    byte is \ooo (three octal digits);
//  - a well-formed UTF-8 sequence (2-4 bytes, no surrogate, not overlong,
//    at most U+10FFFF) becomes \uXXXX or \UXXXXXXXX (upper-case hex);
//  - at most `inlen` input bytes and `outlen` output bytes (0 or too big
//    means MAXSTRINGLEN-1); an escape that does not fit ends the text;
//  - quoted: in double quotes, and when input was left over the text ends
//    in `"...` (dropping a partly kept escape rather than cutting it);
//  - buffer (the *_buffer_quoted readers): a NUL is data, shown as "\0"
//    but counted as four characters, as stap counts it.
#include "loader/interp/interpreter_impl.h"

namespace stap::interp {

namespace {

struct Decoded {
  uint32_t c;
  size_t n;  // bytes used
};

Decoded decode_utf8(const std::string& in, size_t at, size_t size) {
  auto byte = [&](size_t i) -> uint8_t { return i < in.size() ? static_cast<uint8_t>(in[i]) : 0; };
  uint8_t b = byte(at);
  Decoded verbatim{b, 1};
  size_t n;
  uint32_t c;
  if ((b & 0xE0) == 0xC0 && size >= 2) {
    n = 2, c = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0 && size >= 3) {
    n = 3, c = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0 && size >= 4) {
    n = 4, c = b & 0x07;
  } else {
    return verbatim;
  }
  for (size_t i = 1; i < n; ++i) {
    uint8_t b2 = byte(at + i);
    if ((b2 & 0xC0) != 0x80) return verbatim;
    c = (c << 6) | (b2 & 0x3F);
  }
  if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) return verbatim;
  if (c < 0x80 || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000)) return verbatim;
  return Decoded{c, n};
}

std::string escape_of(uint32_t c, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  std::string e = "\\";
  if (n > 1) {
    int digits = c <= 0xFFFF ? 4 : 8;
    e += c <= 0xFFFF ? 'u' : 'U';
    for (int i = digits - 1; i >= 0; --i) e += hex[(c >> (i * 4)) & 0xF];
    return e;
  }
  switch (c) {
    case '\a': return e + 'a';
    case '\b': return e + 'b';
    case '\f': return e + 'f';
    case '\n': return e + 'n';
    case '\r': return e + 'r';
    case '\t': return e + 't';
    case '\v': return e + 'v';
    case '"': return e + '"';
    case '\\': return e + '\\';
    default:
      e += static_cast<char>('0' + ((c >> 6) & 3));
      e += static_cast<char>('0' + ((c >> 3) & 7));
      e += static_cast<char>('0' + (c & 7));
      return e;
  }
}

}  // namespace

std::string text_str(const std::string& in, size_t inlen, size_t outlen, bool quoted,
                     size_t maxstringlen, bool buffer) {
  const size_t max = maxstringlen - 1;
  if (inlen == 0 || inlen > max) inlen = max;
  if (outlen == 0 || outlen > max) outlen = max;
  int64_t room = static_cast<int64_t>(outlen);
  std::string out;
  if (quoted) {
    room = std::max<int64_t>(room, 5) - 2;
    out += '"';
  }
  size_t at = 0, left = inlen;
  size_t esc = std::string::npos, esc_len = 0;  // first escape a cut could split
  uint32_t c = 0;
  while (left > 0) {
    Decoded d = decode_utf8(in, at, left);
    c = d.c;
    if ((c == 0 && !buffer) || room <= 0) break;
    at += d.n;
    left -= d.n;
    bool plain = d.n == 1 && c < 0x80 && std::isprint(static_cast<int>(c)) && c != '"' && c != '\\';
    std::string piece = plain ? std::string(1, static_cast<char>(c)) : c == 0 ? "\\0" : escape_of(c, d.n);
    auto num = static_cast<int64_t>(c == 0 ? 4 : piece.size());
    if (!plain && esc == std::string::npos && room - 3 < num) esc = out.size(), esc_len = size_t(num);
    if (room < num) break;
    out += piece;
    room -= num;
  }
  if (quoted) {
    if (c != 0 && left > 0) {
      size_t trunc = static_cast<size_t>(std::max<int64_t>(0, static_cast<int64_t>(out.size()) - 3 + room));
      if (esc != std::string::npos && esc < trunc && trunc < esc + esc_len) trunc = esc;
      out.resize(std::min(trunc, out.size()));
      out += "\"...";
    } else {
      out += '"';
    }
  }
  return out;
}

}  // namespace stap::interp
