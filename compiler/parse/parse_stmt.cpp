// Statements.  Every statement takes one optional trailing ';'.  stap
// makes a further ';' a null statement, but its own -p1 print puts a ';'
// after every statement, including "if (c) {...}" and null statements
// (";;"); absorbing one ';' everywhere parses that print back to the same
// tree, and null statements do nothing either way.
#include "parse/parser_impl.h"

namespace stap::parse_detail {

// { statement... }
ast::Block* Parser::parse_block() {
  auto* block = make<ast::Block>(expect_op("{").loc);
  for (;;) {
    if (accept_op("}")) return block;
    if (peek().kind == TokenKind::end_of_input || at_top_level_keyword())
      fail_unread("expected statement");
    block->statements.push_back(parse_statement());
  }
}

ast::Stmt* Parser::parse_statement() {
  Nest nest(*this);
  ast::Stmt* s = parse_statement_body();
  accept_op(";");
  return s;
}

ast::Stmt* Parser::parse_statement_body() {
  const Token& t = peek();
  if (t.kind == TokenKind::end_of_input) fail_unread("expected statement");
  if (t.is_op("{")) return parse_block();
  if (t.is_op(";")) {
    advance();
    return make<ast::NullStmt>(t.loc);
  }
  if (t.kind == TokenKind::keyword) {
    if (t.text == "if") return parse_if();
    if (t.text == "while") return parse_while();
    if (t.text == "for") return parse_for();
    if (t.text == "foreach") return parse_foreach();
    if (t.text == "return") return parse_return();
    if (t.text == "delete") return parse_delete();
    if (t.text == "try") return parse_try();
    if (t.text == "next" || t.text == "break" || t.text == "continue") {
      auto* jump = make<ast::JumpStmt>(advance().loc);
      jump->kind = t.text == "next"    ? ast::JumpStmt::Kind::next
                   : t.text == "break" ? ast::JumpStmt::Kind::break_
                                       : ast::JumpStmt::Kind::continue_;
      return jump;
    }
    fail_unread("expected statement");
  }
  auto* s = make<ast::ExprStmt>(t.loc);
  s->expr = parse_expr();
  return s;
}

ast::Stmt* Parser::parse_if() {
  auto* s = make<ast::IfStmt>(advance().loc);
  expect_op("(", AtEof::blame_previous);
  s->cond = parse_expr();
  expect_op(")");
  s->then_stmt = parse_statement();
  if (accept_keyword("else")) s->else_stmt = parse_statement();
  return s;
}

ast::Stmt* Parser::parse_while() {
  auto* s = make<ast::ForStmt>(advance().loc);
  s->is_while = true;
  expect_op("(", AtEof::blame_previous);
  s->cond = parse_expr();
  expect_op(")");
  s->body = parse_statement();
  return s;
}

// for ([init]; [cond]; [incr]) body
ast::Stmt* Parser::parse_for() {
  auto* s = make<ast::ForStmt>(advance().loc);
  expect_op("(", AtEof::blame_previous);
  if (!at_op(";")) s->init = parse_expr();
  expect_op(";");
  if (!at_op(";")) s->cond = parse_expr();
  expect_op(";");
  if (!at_op(")")) s->incr = parse_expr();
  expect_op(")");
  s->body = parse_statement();
  return s;
}

// foreach ([v[+-] =] (k[+-] | [k1[+-], ...]) in SOURCE [@agg+-] [+-]
//          [limit N]) body
ast::Stmt* Parser::parse_foreach() {
  auto* s = make<ast::ForeachStmt>(advance().loc);
  expect_op("(", AtEof::blame_previous);
  parse_foreach_vars(*s);
  expect_keyword("in");
  parse_foreach_source(*s);
  if (accept_keyword("limit")) s->limit = parse_expr();
  expect_op(")");
  s->body = parse_statement();
  return s;
}

void Parser::parse_foreach_vars(ast::ForeachStmt& s) {
  auto sort_mark = [this](size_t ahead) { return at_op("+", ahead) || at_op("-", ahead); };
  auto loop_var = [this]() {
    const Token& t = expect_identifier();
    auto* sym = make<ast::Symbol>(t.loc);
    sym->name = t.text;
    return sym;
  };
  // "v =" or "v+ =" names the value.
  if (peek().kind == TokenKind::identifier &&
      (at_op("=", 1) || (sort_mark(1) && at_op("=", 2)))) {
    s.value = loop_var();
    if (sort_mark(0)) set_sort(s, 0, advance());
    expect_op("=");
  }
  if (accept_op("[")) {
    s.keys_bracketed = true;
    do {
      s.keys.push_back(loop_var());
      if (sort_mark(0)) set_sort(s, static_cast<int>(s.keys.size()), advance());
    } while (accept_op(","));
    if (!accept_op("]")) fail_unread("expected ',' or ']'");
  } else {
    s.keys.push_back(loop_var());
    if (sort_mark(0)) set_sort(s, 1, advance());
  }
}

// An array with an optional slice, or a histogram; then the aggregate a
// statistics array sorts by (which must come with a direction), or a
// direction for the values.
void Parser::parse_foreach_source(ast::ForeachStmt& s) {
  const Token& t = peek();
  if (t.is(TokenKind::identifier, "@hist_log") || t.is(TokenKind::identifier, "@hist_linear")) {
    s.base = parse_hist(t.text == "@hist_linear");
  } else if (t.kind == TokenKind::identifier && t.text[0] != '$' && t.text[0] != '@') {
    auto* sym = make<ast::Symbol>(advance().loc);
    sym->name = t.text;
    s.base = sym;
    if (at_op("[")) s.slice = parse_index_list(true);
  } else {
    fail_here("expected identifier or statistical operation");
  }
  const Token& agg = peek();
  if (agg.is_op("@")) fail_here("expected statistical operation");
  if (agg.kind == TokenKind::identifier && agg.text[0] == '@') {
    static const std::pair<std::string_view, ast::StatOp> kAggs[] = {
        {"@count", ast::StatOp::count}, {"@sum", ast::StatOp::sum},
        {"@min", ast::StatOp::min},     {"@max", ast::StatOp::max},
        {"@avg", ast::StatOp::avg},     {"@variance", ast::StatOp::variance}};
    bool found = false;
    for (const auto& [name, op] : kAggs)
      if (agg.text == name) {
        s.sort_aggregate = op;
        found = true;
      }
    if (!found) fail_here("expected statistical operation");
    advance();
    s.sort_aggregate_given = true;
    if (!at_op("+") && !at_op("-")) fail_here("expected sort directive");
    set_sort(s, 0, advance());
  } else if (at_op("+") || at_op("-")) {
    set_sort(s, 0, advance());
  }
}

void Parser::set_sort(ast::ForeachStmt& s, int column, const Token& mark) {
  if (s.sort_direction != 0) fail(mark, "multiple sort directives");
  s.sort_column = column;
  s.sort_direction = mark.text == "+" ? 1 : -1;
}

ast::Stmt* Parser::parse_return() {
  const Token& t = peek();
  if (!in_function_) fail(t, "found 'return' not in function context");
  auto* s = make<ast::ReturnStmt>(advance().loc);
  if (!at_op(";") && !at_op("}")) s->value = parse_expr();
  return s;
}

// delete x | delete a | delete a[k, *]
ast::Stmt* Parser::parse_delete() {
  auto* s = make<ast::DeleteStmt>(advance().loc);
  const Token& name = expect_identifier(AtEof::value);
  if (at_op("[")) {
    s->target = make_index(name, parse_index_list(true));
  } else {
    auto* sym = make<ast::Symbol>(name.loc);
    sym->name = name.text;
    s->target = sym;
  }
  return s;
}

// try { } catch [(var)] { }
ast::Stmt* Parser::parse_try() {
  auto* s = make<ast::TryStmt>(advance().loc);
  if (peek().kind == TokenKind::end_of_input) fail_here("", AtEof::blame_previous);
  s->try_block = parse_try_part();
  expect_keyword("catch");
  if (accept_op("(")) {
    const Token& v = expect_identifier();
    s->catch_var = make<ast::Symbol>(v.loc);
    s->catch_var->name = v.text;
    expect_op(")");
  }
  s->catch_block = parse_try_part();
  return s;
}

// stap prints "try {\n{ body }\n} catch {\n{ body }\n}": a block holding
// only a block is unwrapped, so that print parses back to the same tree
// (nested braces do nothing in stap: locals are not block-scoped).
ast::Block* Parser::parse_try_part() {
  if (!at_op("{")) fail_here("expected '{'");
  ast::Block* block = parse_block();
  if (block->statements.size() == 1)
    if (auto* inner = dynamic_cast<ast::Block*>(block->statements[0])) return inner;
  return block;
}

}  // namespace stap::parse_detail
