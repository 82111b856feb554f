// Probes, aliases and probe points.
//
// A probe point is a dotted list of components, each a name (with * or **
// wildcards inside it) and an optional literal argument.  Brace lists are
// expanded here, as stap does, so "syscall.{open,close}?" becomes two
// points "syscall.open?" and "syscall.close?", each with its own copy of
// the condition.  A point's location is its first component's.
#include "parse/parser_impl.h"

namespace stap::parse_detail {

// probe PP, PP { body }  |  probe NAME = PP, PP { prologue }
//                        |  probe NAME += PP { epilogue }
void Parser::parse_probe(ast::File& file) {
  const Token& start = tokens_[pos_ - 1];
  if (peek().kind == TokenKind::end_of_input) fail_here("", AtEof::blame_previous);
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
    if (at_op("}")) fail_here("expected probe point specifier");
    if (!at_op("{")) fail_unread("expected one of ', { } = +='");
    alias->body = parse_block();
    file.aliases.push_back(alias);
    return;
  }
  // stap reads a '}' here as the end of a brace list with no point in it.
  if (at_op("}")) fail_here("expected probe point specifier");
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

// One written point, expanded.  Every alternative of a brace list is a
// point of its own, with its own '?' / '!' / "if (cond)" when the list
// ends the point: "a.{b?,c} if (x)" is a.b? if (x) and a.c if (x).
std::vector<ast::ProbePoint*> Parser::parse_point_spec() {
  size_t budget = kMaxExpandedPoints;
  std::vector<ExpandedPoint> expanded = parse_expanded_spec(budget);
  size_t end = pos_;
  std::vector<ast::ProbePoint*> points;
  for (ExpandedPoint& e : expanded) {
    auto* pp = make<ast::ProbePoint>(tokens_[e.first_token].loc);
    pp->components = std::move(e.components);
    pp->optional = e.optional;
    pp->sufficient = e.sufficient;
    // Each point gets its own parse of its condition, so no two points
    // share an expression node.
    if (e.condition_start != 0) {
      pos_ = e.condition_start;
      pp->condition = parse_expr();
    }
    points.push_back(pp);
  }
  pos_ = end;
  return points;
}

// sequence, then at most one of '?' '!', then "if (cond)".  A marker
// given inside braces may not be given again outside.
std::vector<Parser::ExpandedPoint> Parser::parse_expanded_spec(size_t& budget) {
  std::vector<ExpandedPoint> points = parse_point_sequence(budget);
  if (at_op("?") || at_op("!")) {
    const Token& mark = advance();
    for (ExpandedPoint& p : points) {
      if (p.optional) fail(mark, "'?' or '!' respecified");
      p.optional = true;
      p.sufficient = mark.text == "!";
    }
  }
  if (accept_keyword("if")) {
    expect_op("(", AtEof::keep);
    size_t start = pos_;
    parse_expr();  // checked here, parsed again for each point
    const Token& close = expect_op(")");
    for (ExpandedPoint& p : points) {
      if (p.condition_start != 0) fail(close, "condition respecified");
      p.condition_start = start;
    }
  }
  return points;
}

// a.b(1).{c,d.{e,f}}.g : every alternative of every brace list, in order.
std::vector<Parser::ExpandedPoint> Parser::parse_point_sequence(size_t& budget) {
  Nest nest(*this);
  std::vector<ExpandedPoint> result(1);
  result[0].first_token = pos_;
  bool first = true;
  do {
    std::vector<ExpandedPoint> alternatives;
    if (accept_op("{")) {
      do {
        std::vector<ExpandedPoint> more = parse_expanded_spec(budget);
        for (ExpandedPoint& m : more) alternatives.push_back(std::move(m));
      } while (accept_op(","));
      // stap ends an alternative at any of ", { } = +=", and then wants
      // its '}'; anything else is not an end of a point at all.
      if (at_op("{") || at_op("=") || at_op("+=")) fail_here("expected '}'");
      if (!accept_op("}")) fail_here("expected one of ', { } = +='", AtEof::keep);
    } else {
      ExpandedPoint one;
      one.first_token = pos_;
      one.components.push_back(parse_point_component());
      alternatives.push_back(std::move(one));
    }
    if (result.size() * alternatives.size() > budget)
      fail_here("too many probe points from brace expansion (the limit is " +
                std::to_string(kMaxExpandedPoints) + ")");
    std::vector<ExpandedPoint> product;
    product.reserve(result.size() * alternatives.size());
    for (const ExpandedPoint& head : result) {
      if (head.optional || head.condition_start != 0) {
        report(tokens_[head.first_token],
               "'?', '!' or condition must only be specified in suffix", "at");
        throw ParseAbort{};
      }
      for (const ExpandedPoint& tail : alternatives) {
        product.push_back(tail);
        ExpandedPoint& p = product.back();
        if (!first) {
          p.first_token = head.first_token;
          p.components.insert(p.components.begin(), head.components.begin(),
                              head.components.end());
        }
      }
    }
    result = std::move(product);
    first = false;
  } while (accept_op("."));
  return result;
}

ast::ProbePointComponent Parser::parse_point_component() {
  ast::ProbePointComponent c;
  c.loc = peek().loc;
  c.functor = parse_point_name();
  if (accept_op("(")) {
    c.arg = parse_literal();
    expect_op(")", AtEof::blame_previous);
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
