// Target variables ($var->f[2], &$var, $var$, $$parms$$), @cast, @var and
// the other @-operators.  @-names that are macros never get here: the
// preprocessor has expanded them.
#include "parse/parser_impl.h"

namespace stap::parse_detail {

namespace {

const char kExpectedString[] = "expected string";

// Splits "$var$$" into "$var" and 2.  Returns false when nothing but
// dollars is left.
bool split_pretty(const std::string& text, size_t sigils, std::string& name, int& pretty) {
  size_t end = text.size();
  while (end > sigils && text[end - 1] == '$') --end;
  size_t trailing = text.size() - end;
  if (end == sigils || trailing > 2) return false;
  name = text.substr(0, end);
  pretty = static_cast<int>(trailing);
  return true;
}

bool is_pretty_mark(const Token& t) {
  return t.kind == TokenKind::identifier && (t.text == "$" || t.text == "$$");
}

}  // namespace

// $name, $$vars ... with components and a pretty-print suffix.
ast::Expr* Parser::parse_target_symbol() {
  const Token& t = advance();
  auto* sym = make<ast::TargetSymbol>(t.loc);
  size_t sigils = t.text.compare(0, 2, "$$") == 0 ? 2 : 1;
  if (!split_pretty(t.text, sigils, sym->name, sym->pretty))
    fail(t, "expected target variable name");
  if (sym->pretty == 0) parse_components(sym->components, sym->pretty);
  return sym;
}

// ->field, [N], [expr]; then an optional "$" / "$$" (also spelled "->$").
void Parser::parse_components(std::vector<ast::TargetComponent>& out, int& pretty) {
  for (;;) {
    if (accept_op("->")) {
      const Token& f = peek();
      if (is_pretty_mark(f)) {
        pretty = static_cast<int>(advance().text.size());
        return;
      }
      ast::TargetComponent c;
      c.loc = f.loc;
      if (f.kind == TokenKind::keyword) {
        c.field = advance().text;
      } else if (f.kind == TokenKind::identifier && f.text[0] != '$' && f.text[0] != '@') {
        if (!split_pretty(f.text, 0, c.field, pretty)) fail_here("expected identifier or keyword");
        advance();
      } else {
        fail_here("expected identifier or keyword", AtEof::blame_previous);
      }
      out.push_back(c);
      if (pretty) return;
    } else if (at_op("[")) {
      ast::TargetComponent c;
      c.loc = advance().loc;
      if (peek().kind == TokenKind::number && at_op("]", 1)) {
        c.kind = ast::TargetComponent::Kind::literal_index;
        c.index = make_number(advance(), false)->value;
      } else {
        c.kind = ast::TargetComponent::Kind::expr_index;
        c.index_expr = parse_expr();
      }
      expect_op("]");
      out.push_back(c);
    } else if (is_pretty_mark(peek())) {  // "$var $" too, as in stap
      pretty = static_cast<int>(advance().text.size());
      return;
    } else {
      return;
    }
  }
}

// &$var, &$var->f, &@cast(...)->f, &@var("x"), and (autocast) & on any
// value: "&(x)->f", "& p[1]".
ast::Expr* Parser::parse_address_of() {
  const Token& amp = advance();  // &
  const Token& t = peek();
  bool target = t.kind == TokenKind::identifier &&
                (t.text[0] == '$' || t.text == "@cast" || t.text == "@var");
  if (!target) {
    if (!autocast_) fail_here("expected @cast, @var or $var", AtEof::value);
    ast::Expr* operand = parse_primary();
    return parse_autocast(operand, amp, true);
  }
  ast::Expr* e = parse_primary();
  if (auto* sym = dynamic_cast<ast::TargetSymbol*>(e)) sym->address_of = true;
  else if (auto* cast = dynamic_cast<ast::CastExpr*>(e)) cast->address_of = true;
  else if (auto* var = dynamic_cast<ast::AtVar*>(e)) var->address_of = true;
  return e;
}

bool Parser::at_autocast_component() const {
  return autocast_ && (at_op("->") || at_op("[") || is_pretty_mark(peek()));
}

// The components after a value that is not a target variable: stap's
// autocast, typed in pass 3 from where the value came from.
ast::Expr* Parser::parse_autocast(ast::Expr* operand, const Token& first, bool address_of) {
  auto* cast = make<ast::Autocast>(first.loc);
  cast->operand = operand;
  cast->address_of = address_of;
  cast->token = first.text;
  parse_components(cast->components, cast->pretty);
  return cast;
}

ast::Expr* Parser::parse_at_operator() {
  const Token& t = peek();
  bool base_hist_allowed = base_hist_allowed_;  // for this operator, not its operands
  base_hist_allowed_ = false;
  const std::string& name = t.text;
  if (name == "@cast") return parse_cast();
  if (name == "@var") return parse_at_var();
  static const std::pair<std::string_view, ast::StatOp> kStats[] = {
      {"@count", ast::StatOp::count}, {"@sum", ast::StatOp::sum},
      {"@min", ast::StatOp::min},     {"@max", ast::StatOp::max},
      {"@avg", ast::StatOp::avg},     {"@variance", ast::StatOp::variance}};
  for (const auto& [stat, op] : kStats)
    if (name == stat) return parse_stat(op);
  if (name == "@hist_log" || name == "@hist_linear") {
    ast::Expr* hist = parse_hist(name == "@hist_linear");
    if (!at_op("[")) {
      // A whole histogram is only something to print (see parse_print)
      // or to iterate (foreach); stap refuses it anywhere else.
      if (!base_hist_allowed) {
        report(t, "base histogram operator where expression expected", "at");
        throw ParseAbort{};
      }
      return hist;
    }
    // @hist_log(x)[3]: one bucket.
    auto* bucket = make<ast::ArrayIndex>(peek().loc);
    bucket->base = hist;
    advance();
    bucket->indexes.push_back(parse_expr());
    expect_op("]");
    return bucket;
  }
  if (name == "@const" || name == "@kregister" || name == "@uregister")
    return parse_guru_op();
  if (name == "@kderef" || name == "@uderef") return parse_deref();
  if (name == "@perf") {
    // @perf("name"): the value of a perf counter a probe names.
    auto* op = make<ast::AtOp>(advance().loc);
    op->op = "perf";
    expect_op("(", AtEof::blame_previous);
    ast::StringLit* counter = parse_string(kExpectedString);
    if (counter->value.empty()) fail(peek(), "expected non-empty string");
    op->operands.push_back(counter);
    expect_op(")");
    return op;
  }
  if (name == "@entry" || name == "@defined" || name == "@probewrite")
    return parse_at_op(name, 1, 1);
  if (name == "@choose_defined") return parse_at_op(name, 2, 2);
  if (name == "@errno") return parse_at_op(name, 0, 0);
  fail(t, "unknown operator " + name);
}

// @cast(expr, "type"[, "module"]) components
ast::Expr* Parser::parse_cast() {
  auto* cast = make<ast::CastExpr>(advance().loc);
  expect_op("(", AtEof::blame_previous);
  cast->operand = parse_expr();
  expect_op(",");
  cast->type_name = parse_string(kExpectedString)->value;
  if (accept_op(",")) cast->module = parse_string(kExpectedString)->value;
  expect_op(")");
  parse_components(cast->components, cast->pretty);
  return cast;
}

// @var("name[@file]"[, "module"]) components
ast::Expr* Parser::parse_at_var() {
  auto* var = make<ast::AtVar>(advance().loc);
  expect_op("(", AtEof::blame_previous);
  var->name = parse_string(kExpectedString)->value;
  if (accept_op(",")) var->module = parse_string(kExpectedString)->value;
  expect_op(")");
  parse_components(var->components, var->pretty);
  return var;
}

// The bucket bounds of @hist_linear and the shift of @variance are literal
// numbers, possibly negative, as in stap.
ast::NumberLit* Parser::parse_number_literal() {
  bool negated = at_op("-") && peek(1).kind == TokenKind::number;
  if (negated) advance();
  if (peek().kind != TokenKind::number) fail_here("expected number");
  return make_number(advance(), negated);
}

// @count(x) ... @variance(x[, shift])
ast::Expr* Parser::parse_stat(ast::StatOp op) {
  auto* stat = make<ast::StatExpr>(advance().loc);
  stat->op = op;
  expect_op("(", AtEof::blame_previous);
  stat->operand = parse_expr();
  if (op == ast::StatOp::variance && accept_op(",")) stat->shift = parse_number_literal();
  expect_op(")");
  return stat;
}

// @hist_log(x), @hist_linear(x, low, high, step)
ast::Expr* Parser::parse_hist(bool linear) {
  auto* hist = make<ast::HistExpr>(advance().loc);
  hist->linear = linear;
  expect_op("(", AtEof::blame_previous);
  hist->operand = parse_expr();
  if (linear) {
    expect_op(",");
    hist->low = parse_number_literal();
    expect_op(",");
    hist->high = parse_number_literal();
    expect_op(",");
    hist->step = parse_number_literal();
  }
  expect_op(")");
  return hist;
}

// @const("NAME") and @kregister(N) need -g (stap 4.8 lets @uregister go
// without).  The operand is a literal: a string for @const, a register
// number for the others.
ast::Expr* Parser::parse_guru_op() {
  const Token& t = peek();
  auto* op = make<ast::AtOp>(advance().loc);
  op->op = t.text.substr(1);
  if (op->op != "uregister") require_guru(t);
  expect_op("(", AtEof::blame_previous);
  if (op->op == "const") op->operands.push_back(parse_string(kExpectedString));
  else op->operands.push_back(parse_number_literal());
  expect_op(")");
  return op;
}

// @kderef(SIZE, ADDR) (guru) and @uderef(SIZE, ADDR): SIZE bytes of
// kernel or user memory at ADDR; SIZE is a literal, as in stap.
ast::Expr* Parser::parse_deref() {
  const Token& t = peek();
  auto* op = make<ast::AtOp>(advance().loc);
  op->op = t.text.substr(1);
  if (op->op == "kderef") require_guru(t);
  expect_op("(", AtEof::blame_previous);
  op->operands.push_back(parse_number_literal());
  expect_op(",");
  op->operands.push_back(parse_expr());
  expect_op(")");
  return op;
}

// @name(a[, b]) with between min_args and max_args operands; no
// parentheses when max_args is 0 (@errno).
ast::Expr* Parser::parse_at_op(const std::string& name, size_t min_args, size_t max_args) {
  auto* op = make<ast::AtOp>(advance().loc);
  op->op = name.substr(1);
  if (max_args == 0) return op;
  expect_op("(", AtEof::blame_previous);
  op->operands.push_back(parse_expr());
  while (op->operands.size() < min_args) {
    expect_op(",");
    op->operands.push_back(parse_expr());
  }
  while (op->operands.size() < max_args && accept_op(","))
    op->operands.push_back(parse_expr());
  expect_op(")");
  return op;
}

}  // namespace stap::parse_detail
