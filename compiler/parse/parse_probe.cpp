// Probes, aliases and probe points.
//
// A probe point is a dotted list of components, each a name (with * or **
// wildcards inside it) and an optional literal argument.  Brace lists are
// expanded here, as stap does, so "syscall.{open,close}?" becomes two
// points "syscall.open?" and "syscall.close?", each with its own copy of
// the condition.
#include "parse/parser_impl.h"

namespace stap::parse_detail {

// probe PP, PP { body }  |  probe NAME = PP, PP { prologue }
//                        |  probe NAME += PP { epilogue }
void Parser::parse_probe(ast::File& file) {
  const Token& start = tokens_[pos_ - 1];
  std::vector<ast::ProbePoint*> points = parse_probe_points();
  if (at_op("=") || at_op("+=")) {
    // An alias has one name; stap rejects "a, b =" and "a.{b,c} =" at
    // the '=' with this wording.
    if (points.size() != 1) fail_here("expected probe point specifier");
    check_alias_names(points);
    auto* alias = make<ast::AliasDecl>(start.loc);
    alias->epilogue = advance().text == "+=";
    alias->names = std::move(points);
    alias->points = parse_probe_points();
    if (!at_op("{")) fail_unread("expected one of ', { } = +='");
    alias->body = parse_block();
    file.aliases.push_back(alias);
    return;
  }
  if (!at_op("{")) fail_unread("expected one of ', { } = +='");
  auto* probe = make<ast::ProbeDecl>(start.loc);
  probe->points = std::move(points);
  probe->body = parse_block();
  file.probes.push_back(probe);
}

std::vector<ast::ProbePoint*> Parser::parse_probe_points() {
  std::vector<ast::ProbePoint*> all;
  do {
    std::vector<ast::ProbePoint*> some = parse_point_spec();
    all.insert(all.end(), some.begin(), some.end());
  } while (accept_op(","));
  return all;
}

// An alias name is a plain point: it cannot be optional or conditional.
void Parser::check_alias_names(const std::vector<ast::ProbePoint*>& names) {
  for (const ast::ProbePoint* name : names) {
    if (!name->optional && !name->sufficient && !name->condition) continue;
    // stap blames the name's first token, on an "at:" line.
    size_t i = 0;
    while (i < tokens_.size() && !(tokens_[i].loc == name->loc)) ++i;
    const Token& at = i < tokens_.size() ? tokens_[i] : peek();
    report(at, "probe point alias name cannot be optional nor sufficient", "at");
    throw ParseAbort{};
  }
}

// One written point, expanded: components, then '?' / '!', then "if (cond)".
std::vector<ast::ProbePoint*> Parser::parse_point_spec() {
  const Token& first = peek();
  size_t budget = kMaxExpandedPoints;
  std::vector<std::vector<ast::ProbePointComponent>> expansions = parse_point_sequence(budget);
  bool optional = false, sufficient = false;
  for (;;) {
    if (accept_op("?")) {
      optional = true;
    } else if (accept_op("!")) {
      optional = sufficient = true;
    } else {
      break;
    }
  }
  // Each expanded point gets its own parse of the condition, so no two
  // points share an expression node.
  size_t cond_start = 0;
  bool has_condition = accept_keyword("if");
  if (has_condition) {
    expect_op("(");
    cond_start = pos_;
  }
  std::vector<ast::ProbePoint*> points;
  for (auto& components : expansions) {
    auto* pp = make<ast::ProbePoint>(first.loc);
    pp->components = std::move(components);
    pp->optional = optional;
    pp->sufficient = sufficient;
    if (has_condition) {
      pos_ = cond_start;
      pp->condition = parse_expr();
    }
    points.push_back(pp);
  }
  if (has_condition) expect_op(")");
  return points;
}

// a.b(1).{c,d.{e,f}}.g : every alternative of every brace list, in order.
std::vector<std::vector<ast::ProbePointComponent>> Parser::parse_point_sequence(size_t& budget) {
  Nest nest(*this);
  std::vector<std::vector<ast::ProbePointComponent>> result(1);
  do {
    std::vector<std::vector<ast::ProbePointComponent>> alternatives;
    if (accept_op("{")) {
      do {
        auto more = parse_point_sequence(budget);
        for (auto& m : more) alternatives.push_back(std::move(m));
      } while (accept_op(","));
      expect_op("}");
    } else {
      alternatives.push_back({parse_point_component()});
    }
    if (result.size() * alternatives.size() > budget)
      fail_here("too many probe points from brace expansion (the limit is " +
                std::to_string(kMaxExpandedPoints) + ")");
    std::vector<std::vector<ast::ProbePointComponent>> product;
    product.reserve(result.size() * alternatives.size());
    for (const auto& head : result)
      for (const auto& tail : alternatives) {
        product.push_back(head);
        product.back().insert(product.back().end(), tail.begin(), tail.end());
      }
    result = std::move(product);
  } while (accept_op("."));
  return result;
}

ast::ProbePointComponent Parser::parse_point_component() {
  ast::ProbePointComponent c;
  c.loc = peek().loc;
  c.functor = parse_point_name();
  if (accept_op("(")) {
    c.arg = parse_literal();
    expect_op(")");
  }
  return c;
}

// A name is glued from adjacent words and '*': "vfs_*", "**", "foo_*_bar".
std::string Parser::parse_point_name() {
  auto is_part = [](const Token& t) {
    return (t.kind == TokenKind::identifier && t.text[0] != '@') ||
           t.kind == TokenKind::keyword || t.is_op("*");
  };
  if (!is_part(peek())) fail_here("expected identifier or '*' or '{'");
  std::string name = advance().text;
  while ((is_part(peek()) || peek().kind == TokenKind::number) &&
         adjacent(tokens_[pos_ - 1], peek()))
    name += advance().text;
  return name;
}

}  // namespace stap::parse_detail
