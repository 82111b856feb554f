// Pass 1c, top level: tokens, errors and recovery, global and function
// declarations.  Probes are in parse_probe.cpp, statements in
// parse_stmt.cpp, expressions in parse_expr.cpp and parse_target.cpp.
#include "parse/parser.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "parse/lexer.h"
#include "parse/parser_impl.h"

namespace stap {

namespace parse_detail {

namespace {

// stap's wording; guru mode (-g) and tapsets may embed C.
const char kEmbeddedCodeError[] = "embedded code in unprivileged script; need stap -g";

}  // namespace

Parser::Parser(const std::vector<Token>& tokens, ast::Arena& arena, Diagnostics& diags,
               bool guru_mode, StreamOrder* order, Dialect dialect)
    : tokens_(tokens),
      arena_(arena),
      diags_(diags),
      guru_mode_(guru_mode),
      autocast_(dialect.autocast),
      glue_across_comments_(dialect.glue_across_comments),
      order_(order) {}

// ---------------------------------------------------------------- tokens

// The token list always ends with end_of_input; reading past it keeps
// returning that token.
const Token& Parser::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& Parser::advance() {
  const Token& t = peek();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::accept_op(std::string_view op) {
  if (!at_op(op)) return false;
  advance();
  return true;
}

bool Parser::accept_keyword(std::string_view kw) {
  if (!at_keyword(kw)) return false;
  advance();
  return true;
}

const Token& Parser::expect_op(std::string_view op, AtEof eof) {
  if (!at_op(op)) fail_here("expected '" + std::string(op) + "'", eof);
  return advance();
}

const Token& Parser::expect_keyword(std::string_view kw) {
  if (!at_keyword(kw)) fail_here("expected '" + std::string(kw) + "'");
  return advance();
}

const Token& Parser::expect_identifier(AtEof eof) {
  const Token& t = peek();
  if (t.kind != TokenKind::identifier || t.text[0] == '$' || t.text[0] == '@')
    fail_here("expected identifier", eof);
  return advance();
}

bool Parser::at_top_level_keyword() const {
  const Token& t = peek();
  return t.kind == TokenKind::keyword &&
         (t.text == "probe" || t.text == "global" || t.text == "function" ||
          t.text == "private");
}

bool Parser::adjacent(const Token& a, const Token& b) {
  return a.loc.file == b.loc.file && a.loc.line == b.loc.line &&
         a.loc.expansion == b.loc.expansion && a.loc.column + a.text.size() == b.loc.column;
}

// ---------------------------------------------------------------- errors

// One message per offending token: the recovery paths may trip over the
// same token again, and a junk token with no text marks an error the
// lexer or preprocessor has already reported.
void Parser::report(const Token& at, std::string message, std::string_view label) {
  size_t index = &at - tokens_.data();
  bool in_stream = index < tokens_.size();
  if (in_stream && reported_.count(index)) return;
  if (in_stream) reported_.insert(index);
  if (at.kind == TokenKind::junk && at.text.empty()) {
    // Reached while parsing: now its error is said (see StreamOrder).
    if (order_ && in_stream) {
      auto it = order_->junk.find(index);
      if (it != order_->junk.end()) order_->position[it->second] = index;
    }
    return;
  }
  Diagnostic d;
  d.category = "parse error";
  d.message = std::move(message);
  d.saw_line = true;
  d.saw_label = std::string(label);
  if (at.kind == TokenKind::end_of_input) {
    // stap names the file and no position: "saw: <input> EOF".
    d.token = file_name_ + " EOF";
  } else {
    d.token = describe(at);
    d.loc = at.loc;
  }
  diags_.report(std::move(d));
  if (order_) {
    while (order_->position.size() < diags_.all().size())
      order_->position.push_back(in_stream ? index : pos_);
  }
}

void Parser::fail(const Token& at, std::string message, AtEof eof) {
  const Token* blamed = &at;
  if (at.kind == TokenKind::end_of_input) {
    switch (eof) {
      case AtEof::unexpected: message = "unexpected end-of-file"; break;
      case AtEof::value: message = "expected value"; break;
      case AtEof::keep: break;
      case AtEof::blame_previous:
        message = "unexpected end-of-file";
        if (pos_ > 0) blamed = &tokens_[pos_ - 1];
        break;
    }
  }
  error_at_ = static_cast<size_t>(blamed - tokens_.data());
  error_unread_ = false;
  report(*blamed, std::move(message));
  throw ParseAbort{};
}

void Parser::fail_unread(std::string message) {
  error_at_ = pos_;
  error_unread_ = true;
  report(peek(), std::move(message));
  throw ParseAbort{};
}

Parser::Nest::Nest(Parser& p) : p_(p) {
  if (++p_.depth_ > kMaxNesting) {
    --p_.depth_;
    p_.fail_here("too many nested levels (the limit is " + std::to_string(kMaxNesting) + ")");
  }
}

void Parser::ChainNest::add() {
  Nest level(p_);  // checks the limit
  ++p_.depth_;     // and keeps the level past this scope
  ++levels_;
}

// After an error: skip to the next declaration keyword or embedded code,
// as stap does (the rest of a bad probe or function is not looked at).
void Parser::skip_to_top_level(size_t decl_start) {
  // Step over the blamed token when stap has consumed it (see
  // fail_unread), when it is the declaration's first, or when it is
  // embedded code (already reported: stap would report it again).
  bool consumed = pos_ == error_at_ && !error_unread_;
  if (consumed || pos_ == decl_start || peek().kind == TokenKind::embedded_code) advance();
  while (peek().kind != TokenKind::end_of_input && !at_top_level_keyword() &&
         peek().kind != TokenKind::embedded_code)
    advance();
}

// The operator token has been consumed; parsing resumes after it at the
// top level, as stap's does.
void Parser::require_guru(const Token& op) {
  if (guru_mode_) return;
  report(op, "using " + op.text + " operator not permitted; need stap -g");
  throw ParseAbort{false};
}

// ---------------------------------------------------------------- file

void Parser::parse_file(ast::File& file) {
  file_name_ = file.name;
  while (peek().kind != TokenKind::end_of_input) {
    size_t start = pos_;
    // A preprocessor error's place is no input to stap's parser; a junk
    // token holding a lexer error or a bad $N is.
    const Token& t = peek();
    bool pp_error = t.kind == TokenKind::junk && t.text.empty() && order_ &&
                    !order_->junk.count(pos_);
    if (!pp_error) file.parser_saw_input = true;
    try {
      parse_declaration(file);
    } catch (const ParseAbort& abort) {
      if (abort.skip) skip_to_top_level(start);
    }
  }
}

void Parser::parse_declaration(ast::File& file) {
  in_function_ = false;
  const Token& t = peek();
  if (t.kind == TokenKind::embedded_code) {
    if (!guru_mode_) report(t, kEmbeddedCodeError);
    file.embedded_blocks.push_back({t.text, t.loc});
    advance();
  } else if (accept_keyword("probe")) {
    parse_probe(file);
  } else if (accept_keyword("global")) {
    parse_globals(file, false);
  } else if (accept_keyword("function")) {
    parse_function(file, false);
  } else if (accept_keyword("private")) {
    parse_private(file);
  } else {
    fail_here("expected 'probe', 'global', 'private', 'function', or '%{'");
  }
}

// "private global x", "private x" (also a global), "private function f".
void Parser::parse_private(ast::File& file) {
  if (accept_keyword("global")) return parse_globals(file, true);
  if (accept_keyword("function")) return parse_function(file, true);
  if (peek().kind == TokenKind::identifier) return parse_globals(file, true);
  fail_here("expected 'function' or identifier");  // stap's words, 'global' is fine too
}

// ---------------------------------------------------------------- globals

void Parser::parse_globals(ast::File& file, bool is_private) {
  do {
    const Token& name = peek();
    ast::VarDecl* var = parse_global_decl(is_private);
    check_duplicate_global(file, *var, name);
  } while (accept_op(","));
  accept_op(";");
}

// stap rejects a name declared twice in one file, with or without
// 'private'; the first declaration stays.
void Parser::check_duplicate_global(ast::File& file, ast::VarDecl& var, const Token& name) {
  for (const ast::VarDecl* other : file.globals) {
    if (other->name != var.name) continue;
    report(name, other->is_private == var.is_private
                     ? "duplicate global name"
                     : "global versus private variable declaration conflict");
    return;
  }
  file.globals.push_back(&var);
}

// name[:type][%][[N]][= literal]
ast::VarDecl* Parser::parse_global_decl(bool is_private) {
  const Token& name = expect_identifier();
  auto* var = make<ast::VarDecl>(name.loc);
  var->scope = ast::VarDecl::Scope::global;
  var->name = name.text;
  var->is_private = is_private;
  if (is_private) var->file_of_private = file_name_;
  if (accept_op(":")) {
    var->type = parse_type_suffix();
    var->type_declared = true;
  }
  if (accept_op("%")) var->wrap = true;
  if (accept_op("[")) {
    const Token& size = peek();
    if (size.kind != TokenKind::number) fail_here("expected number");
    ast::NumberLit* n = make_number(advance(), false);
    if (n->value <= 0 || n->value > INT_MAX) fail(size, "array size out of range");
    expect_op("]");
    var->is_array = true;
    var->max_entries = n->value;
  }
  if (!var->is_array && accept_op("=")) var->init = parse_literal(AtEof::blame_previous);
  return var;
}

ast::Type Parser::parse_type_suffix() {
  if (accept_keyword("long")) return ast::Type::long_;
  if (accept_keyword("string")) return ast::Type::string;
  fail_here("expected 'string' or 'long'");
}

// ---------------------------------------------------------------- functions

// function name[:type] ([param[:type], ...]) { body }
void Parser::parse_function(ast::File& file, bool is_private) {
  const Token& name = expect_identifier();
  auto* fn = make<ast::FunctionDecl>(name.loc);
  fn->name = name.text;
  fn->is_private = is_private;
  if (accept_op(":")) {
    fn->return_type = parse_type_suffix();
    fn->return_type_declared = true;
  }
  expect_op("(", fn->return_type_declared ? AtEof::unexpected : AtEof::blame_previous);
  while (!accept_op(")")) {
    const Token& p = expect_identifier();
    for (const ast::FunctionParam& earlier : fn->params)
      if (earlier.name == p.text) fail(p, "duplicate parameter names");
    ast::FunctionParam param;
    param.name = p.text;
    param.loc = p.loc;
    if (accept_op(":")) {
      param.type = parse_type_suffix();
      param.type_declared = true;
    }
    fn->params.push_back(param);
    if (!at_op(")") && !accept_op(","))
      fail_here("expected ',' or ')'",
                param.type_declared ? AtEof::unexpected : AtEof::blame_previous);
  }
  if (peek().kind == TokenKind::embedded_code) {
    // Kept without -g too, so calls to it do not cascade into more errors.
    if (!guru_mode_) report(peek(), kEmbeddedCodeError);
    fn->embedded_c = true;
    fn->embedded_code = advance().text;
    fn->guru_only = fn->embedded_code.find("/* guru */") != std::string::npos;
  } else {
    // stap tags only embedded C; this engine's tapsets, written in the
    // script language, tag a body by starting it with the same comment.
    fn->guru_only = guru_mode_ && at_op("{") && peek(1).after_guru_tag;
    in_function_ = true;
    fn->body = parse_block();
    in_function_ = false;
  }
  file.functions.push_back(fn);
}

// ---------------------------------------------------------------- literals

// A '-' is read before the number is looked for, so "-x" is an error at
// the x, as in stap.
ast::Expr* Parser::parse_literal(AtEof eof) {
  const Token& t = peek();
  if (t.kind == TokenKind::string) return parse_string();
  if (t.kind == TokenKind::number) return make_number(advance(), false);
  if (t.is_op("-")) {
    advance();
    if (peek().kind != TokenKind::number) fail_here("expected literal string or number");
    return make_number(advance(), true);
  }
  fail_here("expected literal string or number", eof);
}

ast::StringLit* Parser::parse_string(const char* error, AtEof eof) {
  const Token& first = peek();
  if (first.kind != TokenKind::string) fail_here(error, eof);
  auto* s = make<ast::StringLit>(first.loc);
  // Adjacent literals concatenate: "a" "b" is "ab" (before stap 2.0, not
  // across a comment).
  s->value = advance().text;
  while (peek().kind == TokenKind::string && (glue_across_comments_ || !peek().after_comment))
    s->value += advance().text;
  return s;
}

namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// The magnitude of a number token; false when malformed or above 2^64-1.
bool number_magnitude(const std::string& text, uint64_t& out) {
  size_t i = 0;
  unsigned base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16, i = 2;
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2, i = 2;
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8, i = 1;
  }
  if (i >= text.size()) return false;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    unsigned d = static_cast<unsigned>(digit_value(text[i]));
    if (d >= base) return false;
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  out = v;
  return true;
}

}  // namespace

// Like stap, a literal may use all 64 bits in any base and wraps:
// 18446744073709551615 and 0xffffffffffffffff are -1.  A minus sign in
// front (probe point arguments, global initialisers, and
// -9223372036854775808 in expressions) negates the magnitude.
ast::NumberLit* Parser::make_number(const Token& t, bool negated) {
  uint64_t magnitude = 0;
  if (!number_magnitude(t.text, magnitude)) fail(t, "number invalid or out of range");
  auto* n = make<ast::NumberLit>(t.loc);
  n->value = negated ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  n->text = negated ? "-" + t.text : t.text;
  return n;
}

}  // namespace parse_detail

// ---------------------------------------------------------------- entry points

Dialect Dialect::of_version(const std::string& systemtap_v) {
  Dialect d;
  d.autocast = compare_versions(systemtap_v, "2.6") >= 0;
  d.glue_across_comments = compare_versions(systemtap_v, "2.0") >= 0;
  return d;
}

std::unique_ptr<ast::File> parse_tokens(const std::vector<Token>& tokens,
                                        const std::string& file_name, FileId file,
                                        ast::Arena& arena, Diagnostics& diags,
                                        bool guru_mode, StreamOrder* order, Dialect dialect) {
  auto out = std::make_unique<ast::File>();
  out->name = file_name;
  out->id = file;
  if (tokens.empty()) return out;
  parse_detail::Parser(tokens, arena, diags, guru_mode, order, dialect).parse_file(*out);
  return out;
}

// Pass 1 runs its three stages one after the other, stap's pull tokens
// through them lazily: its lexer, preprocessor and parser errors come in
// the order of the token stream.  So the stages report to a scratch list,
// each diagnostic with its stream position, and the list is passed on in
// that order (the earlier stage first at one position).  A lexer error
// whose junk token never reached the stream (untaken branch) is dropped:
// stap's parser is what reports those.
std::unique_ptr<ast::File> parse_file(SourceManager& sources, FileId file,
                                      const PreprocessorEnv& env, MacroTable& macros,
                                      ast::Arena& arena, Diagnostics& diags) {
  Diagnostics local(sources);
  StreamOrder order;
  std::vector<Token> tokens = lex(sources, file, local);
  tokens = preprocess(std::move(tokens), env, macros, sources, local, &order);
  // Tapset files may use the guru-only operators, as stap's may.
  bool is_tapset = sources.file(file).origin == FileOrigin::tapset;
  // Tapsets are this engine's, in today's language.
  Dialect dialect = is_tapset ? Dialect{} : Dialect::of_version(env.systemtap_v);
  std::unique_ptr<ast::File> out = parse_tokens(tokens, sources.name(file), file, arena, local,
                                                env.guru_mode || is_tapset, &order, dialect);
  out->is_tapset = is_tapset;

  const std::vector<Diagnostic>& found = local.all();
  std::vector<size_t>& positions = order.position;
  positions.resize(found.size(), StreamOrder::kUnsaid);
  std::vector<size_t> sequence(found.size());
  for (size_t i = 0; i < sequence.size(); ++i) sequence[i] = i;
  std::stable_sort(sequence.begin(), sequence.end(),
                   [&](size_t a, size_t b) { return positions[a] < positions[b]; });
  for (size_t i : sequence)
    if (positions[i] != StreamOrder::kUnsaid) diags.report(found[i]);
  return out;
}

}  // namespace stap
