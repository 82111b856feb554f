#include "parse/lexer.h"

namespace stap {

namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_ident_start(c) || is_digit(c); }
bool is_letter_or_digit(char c) { return is_digit(c) || (c != '_' && is_ident_start(c)); }
// stap lets '$' appear anywhere in a name: x$y, $var$$, $$parms$.
bool is_ident_char(char c) { return is_alnum(c) || c == '$'; }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_octal(char c) { return c >= '0' && c <= '7'; }
int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Longest first: the first entry that matches wins.
constexpr std::string_view kOps[] = {
    "<<<", ">>>", "<<=", ">>=",
    "<<", ">>", "<=", ">=", "==", "!=", "=~", "!~", "&&", "||", "++", "--", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", ".=", "->", "%(", "%?", "%:", "%)"};

class Lexer {
 public:
  Lexer(const SourceManager& sources, FileId file, Diagnostics& diags)
      : text_(sources.file(file).text), file_(file), diags_(diags) {}

  std::vector<Token> run() {
    for (;;) {
      skip_space_and_comments();
      if (at_end()) break;
      lex_token();
    }
    emit(TokenKind::end_of_input, "", here());
    return std::move(out_);
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool starts_with(std::string_view s) const {
    return text_.compare(pos_, s.size(), s) == 0;
  }
  SourceLoc here() const { return SourceLoc{file_, line_, column_, 0}; }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  void advance(size_t n) {
    for (size_t i = 0; i < n; ++i) advance();
  }

  void emit(TokenKind kind, std::string text, SourceLoc loc) {
    out_.push_back(Token{kind, std::move(text), loc});
    out_.back().after_comment = comment_seen_;
    out_.back().after_guru_tag = guru_tag_seen_;
    comment_seen_ = false;
    guru_tag_seen_ = false;
  }

  // stap reports lexical errors on a junk token ("at: junk ''"); the empty
  // junk token left in the stream tells the parser it has been reported.
  void error(SourceLoc loc, std::string message) {
    Diagnostic d;
    d.category = "parse error";
    d.message = std::move(message);
    d.token = "junk ''";
    d.saw_line = true;
    d.saw_label = "at";
    d.loc = loc;
    diags_.report(std::move(d));
    emit(TokenKind::junk, "", loc);
  }

  void skip_space_and_comments();
  void lex_token();
  void lex_number(SourceLoc loc);
  void lex_dollar_or_at(SourceLoc loc);
  void lex_string(SourceLoc loc);
  void lex_escape(std::string& value);
  void lex_embedded_code(SourceLoc loc);
  void lex_operator(SourceLoc loc);

  const std::string& text_;
  FileId file_;
  Diagnostics& diags_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
  std::vector<Token> out_;
  bool comment_seen_ = false;  // since the last token
  bool guru_tag_seen_ = false;  // the last comment was `/* guru */`
};

void Lexer::skip_space_and_comments() {
  while (!at_end()) {
    char c = peek();
    if (is_space(c)) {
      advance();
    } else if (c == '#' || (c == '/' && peek(1) == '/')) {
      comment_seen_ = true;
      guru_tag_seen_ = false;
      while (!at_end() && peek() != '\n') advance();
    } else if (c == '/' && peek(1) == '*') {
      comment_seen_ = true;
      // stap silently accepts a block comment left open at end of file.
      size_t start = pos_;
      advance(2);
      while (!at_end() && !starts_with("*/")) advance();
      if (!at_end()) advance(2);
      guru_tag_seen_ = text_.compare(start, pos_ - start, "/* guru */") == 0;
    } else {
      return;
    }
  }
}

void Lexer::lex_token() {
  SourceLoc loc = here();
  char c = peek();
  if (is_digit(c)) return lex_number(loc);
  if (is_ident_start(c)) {
    size_t start = pos_;
    while (!at_end() && is_ident_char(peek())) advance();
    std::string word = text_.substr(start, pos_ - start);
    bool kw = is_keyword(word);
    return emit(kw ? TokenKind::keyword : TokenKind::identifier, std::move(word), loc);
  }
  if (c == '$' || c == '@') return lex_dollar_or_at(loc);
  if (c == '"') return lex_string(loc);
  if (c == '%' && peek(1) == '{') return lex_embedded_code(loc);
  lex_operator(loc);
}

// Numbers keep their text; the parser converts it and rejects "0x1g" or
// "12abc" (stap lexes every letter and digit after the first digit, but
// not '_': "1_000" is the number 1 and then the identifier _000).
void Lexer::lex_number(SourceLoc loc) {
  size_t start = pos_;
  while (!at_end() && is_letter_or_digit(peek())) advance();
  emit(TokenKind::number, text_.substr(start, pos_ - start), loc);
}

// $name $$vars $var$$ $1 $# and @name @1 @#.  All are identifiers; a lone
// '$' is an identifier too (as in stap) and a lone '@' an operator.
void Lexer::lex_dollar_or_at(SourceLoc loc) {
  size_t start = pos_;
  char sigil = peek();
  advance();
  if (peek() == '#') {
    advance();
  } else if (is_digit(peek())) {
    while (!at_end() && is_digit(peek())) advance();
  } else if (sigil == '$') {
    while (!at_end() && is_ident_char(peek())) advance();
  } else if (is_ident_start(peek())) {
    while (!at_end() && is_ident_char(peek())) advance();
  } else {
    return emit(TokenKind::op, "@", loc);
  }
  emit(TokenKind::identifier, text_.substr(start, pos_ - start), loc);
}

void Lexer::lex_string(SourceLoc loc) {
  advance();  // opening quote
  std::string value;
  for (;;) {
    if (at_end() || peek() == '\n') {
      error(loc, "Could not find matching closing quote");
      return;
    }
    char c = peek();
    if (c == '"') break;
    if (c == '\\') {
      lex_escape(value);
    } else {
      value += c;
      advance();
    }
  }
  advance();  // closing quote
  emit(TokenKind::string, std::move(value), loc);
}

// Decodes one escape.  Like stap, an escape it does not know stands for
// the character itself: "\q" is "q", and a backslash-newline keeps the
// newline.
void Lexer::lex_escape(std::string& value) {
  advance();  // backslash
  if (at_end()) return;
  char c = peek();
  if (is_octal(c)) {
    int v = 0;
    for (int i = 0; i < 3 && is_octal(peek()); ++i, advance()) v = v * 8 + (peek() - '0');
    value += static_cast<char>(v & 0xff);
    return;
  }
  if (c == 'x' && hex_value(peek(1)) >= 0) {
    advance();
    int v = 0;
    for (int i = 0; i < 2 && hex_value(peek()) >= 0; ++i, advance()) v = v * 16 + hex_value(peek());
    value += static_cast<char>(v);
    return;
  }
  switch (c) {
    case 'n': value += '\n'; break;
    case 't': value += '\t'; break;
    case 'r': value += '\r'; break;
    case 'a': value += '\a'; break;
    case 'b': value += '\b'; break;
    case 'f': value += '\f'; break;
    case 'v': value += '\v'; break;
    default: value += c; break;
  }
  advance();
}

void Lexer::lex_embedded_code(SourceLoc loc) {
  advance(2);  // %{
  size_t start = pos_;
  while (!at_end() && !starts_with("%}")) advance();
  if (at_end()) {
    error(loc, "Could not find matching '%}' to close embedded function block");
    return;
  }
  std::string code = text_.substr(start, pos_ - start);
  advance(2);  // %}
  emit(TokenKind::embedded_code, std::move(code), loc);
}

// Any other printable character is a one-character operator, as in stap
// (so a stray '`' reaches the parser as "operator '`'"); other bytes
// (control characters, non-ASCII) are junk.
void Lexer::lex_operator(SourceLoc loc) {
  for (std::string_view op : kOps)
    if (starts_with(op)) {
      advance(op.size());
      return emit(TokenKind::op, std::string(op), loc);
    }
  unsigned char c = static_cast<unsigned char>(peek());
  advance();
  bool printable = c > 0x20 && c < 0x7f;
  emit(printable ? TokenKind::op : TokenKind::junk, std::string(1, static_cast<char>(c)), loc);
}

}  // namespace

std::vector<Token> lex(const SourceManager& sources, FileId file, Diagnostics& diags) {
  return Lexer(sources, file, diags).run();
}

}  // namespace stap
