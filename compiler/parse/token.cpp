#include "parse/token.h"

#include <array>
#include <cstdio>

namespace stap {

std::string escape_string(std::string_view value) {
  std::string out;
  for (unsigned char c : value) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

namespace {

// Junk bytes are shown as "\xc3", as stap does.
std::string escape_junk(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::identifier:
      // stap lexes @cast, @foo ... as operators.
      if (!t.text.empty() && t.text[0] == '@') return "operator '" + t.text + "'";
      return "identifier '" + t.text + "'";
    case TokenKind::keyword: return "keyword";
    case TokenKind::number: return "number '" + t.text + "'";
    case TokenKind::string: return "string '" + escape_string(t.text) + "'";
    case TokenKind::op: return "operator '" + t.text + "'";
    case TokenKind::embedded_code: return "embedded-code";
    case TokenKind::junk: return "junk '" + escape_junk(t.text) + "'";
    case TokenKind::end_of_input: return "EOF";
  }
  return "token";
}

bool is_keyword(std::string_view word) {
  static constexpr std::array<std::string_view, 20> keywords = {
      "probe", "global",   "function", "if",     "else",  "for",    "foreach",
      "in",    "limit",    "return",   "delete", "while", "break",  "continue",
      "next",  "try",      "catch",    "private", "long", "string"};
  for (std::string_view k : keywords)
    if (k == word) return true;
  return false;
}

}  // namespace stap
