// Expressions, with stap's precedence, lowest first:
//
//   = += -= *= /= %= <<= >>= &= ^= |= .= <<<   right; the target is a
//                                              ternary, as in stap
//   ?:                                         right
//   ||  &&  |  ^  &                            left
//   in            "k in a", "[k1, k2] in a"; ends the chain of
//                 comparisons and cannot repeat
//   == != < <= > >= =~ !~                      left; =~ takes a literal
//                                              string and ends the chain
//   << >> >>>                                  left
//   .             string concatenation         left
//   + -                                        left
//   * / %                                      left
//   - + ! ~ ++ -- &  (prefix)  ++ -- (postfix)
//
// Binary levels use precedence climbing, so nesting costs few stack frames.
#include "base/format_string.h"
#include "parse/parser_impl.h"

namespace stap::parse_detail {

namespace {

constexpr int kInPrec = 5;
constexpr int kComparePrec = 6;
constexpr int kMaxPrec = 10;

int binary_prec(const Token& t) {
  if (t.is_keyword("in")) return kInPrec;
  if (t.kind != TokenKind::op) return -1;
  static const std::pair<std::string_view, int> kTable[] = {
      {"||", 0}, {"&&", 1}, {"|", 2},  {"^", 3},  {"&", 4},  {"==", 6},  {"!=", 6},
      {"<", 6},  {"<=", 6}, {">", 6},  {">=", 6}, {"=~", 6}, {"!~", 6},  {"<<", 7},
      {">>", 7}, {">>>", 7}, {".", 8}, {"+", 9},  {"-", 9},  {"*", 10}, {"/", 10},
      {"%", 10}};
  for (const auto& [op, prec] : kTable)
    if (t.text == op) return prec;
  return -1;
}

bool is_assignment_op(const Token& t) {
  if (t.kind != TokenKind::op) return false;
  static const std::string_view kOps[] = {"=",  "+=", "-=", "*=", "/=",  "%=", "<<=",
                                          ">>=", "&=", "^=", "|=", ".=", "<<<"};
  for (std::string_view op : kOps)
    if (t.text == op) return true;
  return false;
}

bool is_plain_identifier(const Token& t) {
  return t.kind == TokenKind::identifier && t.text[0] != '$' && t.text[0] != '@';
}

}  // namespace

ast::Expr* Parser::parse_expr() {
  Nest nest(*this);
  ast::Expr* target = parse_ternary();
  if (!is_assignment_op(peek())) return target;
  const Token& op = advance();
  auto* e = make<ast::AssignExpr>(op.loc);
  e->op = op.text;
  e->target = target;
  e->value = parse_expr();
  return e;
}

ast::Expr* Parser::parse_ternary() {
  ast::Expr* cond = parse_binary(0);
  if (!at_op("?")) return cond;
  Nest nest(*this);  // a ? b : c ? d : ... nests on the right
  auto* e = make<ast::TernaryExpr>(advance().loc);
  e->cond = cond;
  e->then_expr = parse_expr();
  expect_op(":");
  e->else_expr = parse_ternary();
  return e;
}

ast::Expr* Parser::parse_binary(int min_prec) {
  ast::Expr* left;
  int max_prec = kMaxPrec;
  if (at_op("[") && min_prec <= kInPrec) {
    left = parse_in_list();  // "[k] in a", or a bracketed key alone
    max_prec = kInPrec - 1;
  } else {
    left = parse_unary();
  }
  ChainNest chain(*this);
  for (;;) {
    const Token& op = peek();
    int prec = binary_prec(op);
    if (prec < min_prec || prec > max_prec) return left;
    chain.add();
    advance();
    if (prec == kInPrec) {
      auto* in = make<ast::InExpr>(op.loc);
      in->index = parse_in_operand({left});
      left = in;
      max_prec = kInPrec - 1;
      continue;
    }
    auto* e = make<ast::BinaryExpr>(op.loc);
    e->op = op.text;
    e->left = left;
    if (op.text == "=~" || op.text == "!~") {
      e->right = parse_string("expected literal string", AtEof::blame_previous);
      max_prec = kComparePrec - 1;
    } else {
      e->right = parse_binary(prec + 1);
    }
    left = e;
  }
}

// [k1, *, k3] in a.  As in stap, the keys are comparisons at most
// ("[a & b] in c" is an error at the '&'), and one key without "in" is
// just that key: "[1] || 2" is "1 || 2", while "[1] + 1" ends the
// expression at the '+'.
ast::Expr* Parser::parse_in_list() {
  expect_op("[");
  std::vector<ast::Expr*> keys;
  for (;;) {
    if (at_op("*") && (at_op(",", 1) || at_op("]", 1))) {
      advance();
      keys.push_back(nullptr);
    } else {
      keys.push_back(parse_binary(kComparePrec));
    }
    if (accept_op("]")) break;
    if (!accept_op(",")) fail_here("expected ',' or ']'");
  }
  if (!at_keyword("in")) {
    if (keys.size() > 1) fail_here("unexpected comma-separated expression list");
    if (keys[0]) return keys[0];
  }
  const Token& in_tok = expect_keyword("in");
  auto* in = make<ast::InExpr>(in_tok.loc);
  in->index = parse_in_operand(std::move(keys));
  return in;
}

// What follows "in": an array's name, or a histogram (`i in
// @hist_log(x)`: whether bucket i counts anything).
ast::ArrayIndex* Parser::parse_in_operand(std::vector<ast::Expr*> keys) {
  const Token& name = peek();
  if (name.is(TokenKind::identifier, "@hist_log") || name.is(TokenKind::identifier, "@hist_linear")) {
    auto* index = make<ast::ArrayIndex>(name.loc);
    index->base = parse_hist(name.text == "@hist_linear");
    index->indexes = std::move(keys);
    return index;
  }
  if (!is_plain_identifier(name))
    fail_here("expected identifier or statistical operation", AtEof::blame_previous);
  advance();
  return make_index(name, std::move(keys));
}

ast::Expr* Parser::parse_unary() {
  const Token& t = peek();
  if (t.kind != TokenKind::op) return parse_postfix();
  // -9223372036854775808 is one literal: its magnitude alone overflows.
  if (t.text == "-" && peek(1).is(TokenKind::number, "9223372036854775808")) {
    advance();
    return make_number(advance(), true);
  }
  ast::UnaryOp op;
  if (t.text == "-") op = ast::UnaryOp::neg;
  else if (t.text == "+") op = ast::UnaryOp::plus;
  else if (t.text == "!") op = ast::UnaryOp::logical_not;
  else if (t.text == "~") op = ast::UnaryOp::bit_not;
  else if (t.text == "++") op = ast::UnaryOp::pre_inc;
  else if (t.text == "--") op = ast::UnaryOp::pre_dec;
  else if (t.text == "&") return parse_address_of();
  else return parse_postfix();
  Nest nest(*this);  // - - - x nests
  advance();
  auto* e = make<ast::UnaryExpr>(t.loc);
  e->op = op;
  // As in stap, "++a++" is "++(a)" followed by a stray "++".
  bool crement = op == ast::UnaryOp::pre_inc || op == ast::UnaryOp::pre_dec;
  e->operand = crement ? parse_crement_operand() : parse_unary();
  return e;
}

// After ++/--, stap reads a primary, or a '-' and a number ("++ -1"; "-- -b"
// is an error at the b).  The negation is kept as an operator so that the
// print, "++(-(1))", parses back to the same tree.
ast::Expr* Parser::parse_crement_operand() {
  if (!at_op("-")) return parse_primary();
  auto* neg = make<ast::UnaryExpr>(advance().loc);
  neg->op = ast::UnaryOp::neg;
  if (peek().kind != TokenKind::number) fail_here("expected literal string or number", AtEof::value);
  neg->operand = make_number(advance(), false);
  return neg;
}

ast::Expr* Parser::parse_postfix() {
  ast::Expr* operand = parse_primary();
  // Arrays, target variables, @cast and @var have taken their own
  // components; on anything else they are an autocast (stap 2.6).
  if (at_autocast_component()) operand = parse_autocast(operand, peek(), false);
  if (!at_op("++") && !at_op("--")) return operand;
  const Token& op = advance();
  auto* e = make<ast::UnaryExpr>(op.loc);
  e->op = op.text == "++" ? ast::UnaryOp::post_inc : ast::UnaryOp::post_dec;
  e->operand = operand;
  return e;
}

ast::Expr* Parser::parse_primary() {
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::number:
      return make_number(advance(), false);
    case TokenKind::string:
      return parse_string();
    case TokenKind::identifier:
      if (t.text[0] == '$') return parse_target_symbol();
      if (t.text[0] == '@') return parse_at_operator();
      return parse_identifier_expr();
    case TokenKind::embedded_code: {
      if (!guru_mode_) fail_here("embedded expression code in unprivileged script; need stap -g");
      auto* e = make<ast::EmbeddedExpr>(t.loc);
      e->code = advance().text;
      return e;
    }
    case TokenKind::op:
      if (t.text == "@") fail_here("unknown operator @");  // an @name without the name
      if (t.text == "(") {
        advance();
        ast::Expr* e = parse_expr();
        expect_op(")");
        return e;
      }
      break;
    default:
      break;
  }
  fail_here("expected literal string or number", AtEof::value);
}

// name | name(args) | name[keys]; the print family only as a call.
ast::Expr* Parser::parse_identifier_expr() {
  const Token& name = advance();
  if (at_op("(")) return parse_call(name);
  if (is_print_family(name.text)) fail_here("expected '('", AtEof::blame_previous);
  if (at_op("[")) return make_index(name, parse_index_list(false));
  auto* sym = make<ast::Symbol>(name.loc);
  sym->name = name.text;
  return sym;
}

// f(a, b)
ast::Expr* Parser::parse_call(const Token& name) {
  if (is_print_family(name.text)) return parse_print(name);
  auto* call = make<ast::CallExpr>(name.loc);
  call->name = name.text;
  expect_op("(");
  if (accept_op(")")) return call;
  for (;;) {
    call->args.push_back(parse_expr());
    if (accept_op(",")) continue;
    if (!at_op(")")) fail_here("expected one of ') ,'");
    advance();
    return call;
  }
}

bool Parser::is_print_family(const std::string& name) {
  static const char* const kNames[] = {"print",   "println",  "printf", "printd",
                                       "printdln", "sprint",  "sprintln", "sprintf",
                                       "sprintd", "sprintdln"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

// The print family is syntax to stap.  printf and sprintf take a literal,
// well-formed format first (a bad one is blamed on the token after it),
// printd and friends a literal delimiter; then values separated by ','.
// print and sprint need one value, the delimited ones two; until then
// stap takes a ')' for a separator, so "printdln(",", 1)" fails on the
// token after the ')'.
ast::Expr* Parser::parse_print(const Token& name) {
  const std::string& f = name.text;
  bool format = f == "printf" || f == "sprintf";
  bool delimited = f.find("printd") != std::string::npos;
  size_t min_values = delimited ? 2 : (f == "print" || f == "sprint") ? 1 : 0;
  auto* call = make<ast::CallExpr>(name.loc);
  call->name = f;
  expect_op("(");
  size_t values = 0;
  if (format || delimited) {
    call->args.push_back(parse_string());
    if (format) check_format(static_cast<ast::StringLit*>(call->args[0])->value);
  } else if (min_values == 0 && accept_op(")")) {
    return call;
  } else if (peek().is(TokenKind::identifier, "@hist_log") ||
             peek().is(TokenKind::identifier, "@hist_linear")) {
    // print(@hist_log(s)) alone, or a bucket as a complete first value.
    base_hist_allowed_ = true;
    ast::Expr* hist = parse_at_operator();
    call->args.push_back(hist);
    ++values;
    if (dynamic_cast<ast::HistExpr*>(hist)) {
      expect_op(")");
      return call;
    }
  } else {
    call->args.push_back(parse_expr());
    ++values;
  }
  for (;;) {
    if (!accept_op(",")) {
      if (!at_op(")")) fail_here("expected one of ', )'");
      advance();
      if (values >= min_values) return call;
    }
    call->args.push_back(parse_expr());
    ++values;
  }
}

void Parser::check_format(const std::string& format) {
  std::vector<PrintfPiece> pieces;
  std::string error;
  if (!parse_printf_format(format, pieces, error)) fail_here(error);
}

// [k1, k2, ...]; a '*' entry (a null pointer) where a slice is allowed.
std::vector<ast::Expr*> Parser::parse_index_list(bool allow_wildcard) {
  expect_op("[");
  std::vector<ast::Expr*> keys;
  for (;;) {
    if (at_op("*") && (at_op(",", 1) || at_op("]", 1))) {
      if (!allow_wildcard)
        fail_here("'*' may only index an array in delete, 'in' and foreach");
      advance();
      keys.push_back(nullptr);
    } else {
      keys.push_back(parse_expr());
    }
    if (accept_op("]")) return keys;
    if (!accept_op(",")) fail_here("expected one of '] ,'");
  }
}

ast::ArrayIndex* Parser::make_index(const Token& name, std::vector<ast::Expr*> indexes) {
  auto* sym = make<ast::Symbol>(name.loc);
  sym->name = name.text;
  auto* index = make<ast::ArrayIndex>(name.loc);
  index->base = sym;
  index->indexes = std::move(indexes);
  return index;
}

}  // namespace stap::parse_detail
