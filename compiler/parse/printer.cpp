// -p1 printing, in SystemTap's layout: every operand of an operator in
// parentheses, one statement per line followed by ';' (so an if, whose
// print ends with a newline, leaves a ';' line of its own), globals, then
// aliases, probes and functions.  Declared types and 'private' are kept so
// the print parses back to the same tree.
#include "parse/printer.h"

#include <cstdio>
#include <ostream>

#include "ast/visitor.h"
#include "parse/token.h"

namespace stap {

std::string quote_string(std::string_view value) {
  return "\"" + escape_string(value) + "\"";
}

std::string number_text(const ast::NumberLit& n) {
  if (n.value < 0 && !n.text.empty()) return n.text;
  return std::to_string(n.value);
}

namespace {

class Printer : public ast::Visitor {
 public:
  explicit Printer(std::ostream& out) : out_(out) {}

  void expr(const ast::Expr& e) { const_cast<ast::Expr&>(e).accept(*this); }
  void stmt(const ast::Stmt& s) { const_cast<ast::Stmt&>(s).accept(*this); }
  // An operand: always parenthesised.
  void operand(const ast::Expr& e) {
    out_ << '(';
    expr(e);
    out_ << ')';
  }
  void list(const std::vector<ast::Expr*>& items) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ << ", ";
      if (items[i]) expr(*items[i]);
      else out_ << '*';
    }
  }
  void components(const std::vector<ast::TargetComponent>& cs, int pretty) {
    for (const ast::TargetComponent& c : cs) {
      switch (c.kind) {
        case ast::TargetComponent::Kind::field: out_ << "->" << c.field; break;
        case ast::TargetComponent::Kind::literal_index: out_ << '[' << c.index << ']'; break;
        case ast::TargetComponent::Kind::expr_index:
          out_ << '[';
          expr(*c.index_expr);
          out_ << ']';
          break;
      }
    }
    if (pretty) out_ << "->" << std::string(pretty, '$');
  }
  void block(const ast::Block& b) { stmt(b); }

  // ------------------------------------------------------------ expressions
  void visit(ast::NumberLit& n) override { out_ << number_text(n); }
  void visit(ast::StringLit& n) override { out_ << quote_string(n.value); }
  void visit(ast::Symbol& n) override { out_ << n.name; }
  void visit(ast::TargetSymbol& n) override {
    if (n.address_of) out_ << '&';
    out_ << n.name;
    components(n.components, n.pretty);
  }
  void visit(ast::CastExpr& n) override {
    if (n.address_of) out_ << '&';
    out_ << "@cast(";
    expr(*n.operand);
    out_ << ", " << quote_string(n.type_name);
    if (!n.module.empty()) out_ << ", " << quote_string(n.module);
    out_ << ')';
    components(n.components, n.pretty);
  }
  void visit(ast::AtVar& n) override {
    if (n.address_of) out_ << '&';
    out_ << "@var(" << quote_string(n.name);
    if (!n.module.empty()) out_ << ", " << quote_string(n.module);
    out_ << ')';
    components(n.components, n.pretty);
  }
  void visit(ast::Autocast& n) override {
    if (n.address_of) out_ << '&';
    operand(*n.operand);
    components(n.components, n.pretty);
  }
  void visit(ast::EmbeddedExpr& n) override { out_ << "%{" << n.code << "%}"; }
  void visit(ast::AtOp& n) override {
    out_ << '@' << n.op;
    if (n.operands.empty()) return;
    out_ << '(';
    list(n.operands);
    out_ << ')';
  }
  void visit(ast::StatExpr& n) override {
    out_ << '@' << ast::stat_op_name(n.op) << '(';
    expr(*n.operand);
    if (n.shift) {
      out_ << ", ";
      expr(*n.shift);
    }
    out_ << ')';
  }
  void visit(ast::HistExpr& n) override {
    out_ << (n.linear ? "@hist_linear(" : "@hist_log(");
    expr(*n.operand);
    if (n.linear) {
      for (const ast::Expr* e : {n.low, n.high, n.step}) {
        out_ << ", ";
        expr(*e);
      }
    }
    out_ << ')';
  }
  void visit(ast::UnaryExpr& n) override {
    bool postfix = n.op == ast::UnaryOp::post_inc || n.op == ast::UnaryOp::post_dec;
    if (!postfix) out_ << ast::unary_op_text(n.op);
    operand(*n.operand);
    if (postfix) out_ << ast::unary_op_text(n.op);
  }
  void visit(ast::BinaryExpr& n) override {
    operand(*n.left);
    out_ << ' ' << n.op << ' ';
    // stap leaves a regex (always a literal) bare.
    if ((n.op == "=~" || n.op == "!~") && dynamic_cast<const ast::StringLit*>(n.right))
      expr(*n.right);
    else
      operand(*n.right);
  }
  void visit(ast::TernaryExpr& n) override {
    operand(*n.cond);
    out_ << '?';
    operand(*n.then_expr);
    out_ << ':';
    operand(*n.else_expr);
  }
  void visit(ast::AssignExpr& n) override {
    operand(*n.target);
    out_ << ' ' << n.op << ' ';
    operand(*n.value);
  }
  void visit(ast::ArrayIndex& n) override {
    expr(*n.base);
    out_ << '[';
    list(n.indexes);
    out_ << ']';
  }
  void visit(ast::InExpr& n) override {
    out_ << '[';
    list(n.index->indexes);
    out_ << "] in ";
    expr(*n.index->base);
  }
  void visit(ast::CallExpr& n) override {
    out_ << n.name << '(';
    list(n.args);
    out_ << ')';
  }

  // ------------------------------------------------------------ statements
  void visit(ast::Block& n) override {
    out_ << "{\n";
    for (const ast::Stmt* s : n.statements) {
      stmt(*s);
      out_ << ";\n";
    }
    out_ << '}';
  }
  void visit(ast::ExprStmt& n) override { expr(*n.expr); }
  void visit(ast::NullStmt&) override { out_ << ';'; }
  void visit(ast::IfStmt& n) override {
    out_ << "if (";
    expr(*n.cond);
    out_ << ") ";
    stmt(*n.then_stmt);
    out_ << '\n';
    if (n.else_stmt) {
      out_ << "else ";
      stmt(*n.else_stmt);
      out_ << '\n';
    }
  }
  // while (c) is printed as stap does: for (; c; ).
  void visit(ast::ForStmt& n) override {
    out_ << "for (";
    if (n.init) expr(*n.init);
    out_ << "; ";
    if (n.cond) expr(*n.cond);
    else out_ << '1';
    out_ << "; ";
    if (n.incr) expr(*n.incr);
    out_ << ") ";
    stmt(*n.body);
  }
  void visit(ast::ForeachStmt& n) override;
  void visit(ast::ReturnStmt& n) override {
    out_ << "return";
    if (n.value) {
      out_ << ' ';
      expr(*n.value);
    }
  }
  void visit(ast::DeleteStmt& n) override {
    out_ << "delete ";
    expr(*n.target);
  }
  void visit(ast::JumpStmt& n) override {
    switch (n.kind) {
      case ast::JumpStmt::Kind::next: out_ << "next"; break;
      case ast::JumpStmt::Kind::break_: out_ << "break"; break;
      case ast::JumpStmt::Kind::continue_: out_ << "continue"; break;
    }
  }
  void visit(ast::TryStmt& n) override {
    out_ << "try {\n";
    block(*n.try_block);
    out_ << "\n} catch";
    if (n.catch_var) out_ << " (" << n.catch_var->name << ')';
    out_ << " {\n";
    block(*n.catch_block);
    out_ << "\n}\n";
  }

 private:
  std::ostream& out_;
};

const char* sort_mark(int direction) { return direction > 0 ? "+" : direction < 0 ? "-" : ""; }

// foreach (v = [k1, k2-] in a[k, *] @sum+ limit N) body
void Printer::visit(ast::ForeachStmt& n) {
  out_ << "foreach (";
  if (n.value) out_ << n.value->name << " = ";
  out_ << '[';
  for (size_t i = 0; i < n.keys.size(); ++i) {
    if (i > 0) out_ << ", ";
    out_ << n.keys[i]->name;
    if (n.sort_column == static_cast<int>(i) + 1) out_ << sort_mark(n.sort_direction);
  }
  out_ << "] in ";
  expr(*n.base);
  if (!n.slice.empty()) {
    out_ << '[';
    list(n.slice);
    out_ << ']';
  }
  if (n.sort_aggregate_given) out_ << " @" << ast::stat_op_name(n.sort_aggregate);
  if (n.sort_column == 0) out_ << sort_mark(n.sort_direction);
  if (n.limit) {
    out_ << " limit ";
    expr(*n.limit);
  }
  out_ << ") ";
  stmt(*n.body);
}

void print_point(const ast::ProbePoint& pp, std::ostream& out) {
  out << pp.to_string();
  if (pp.sufficient) out << '!';
  else if (pp.optional) out << '?';
  if (pp.condition) {
    out << " if (";
    print_expr(*pp.condition, out);
    out << ')';
  }
}

void print_points(const std::vector<ast::ProbePoint*>& points, const char* separator,
                  std::ostream& out) {
  for (size_t i = 0; i < points.size(); ++i) {
    if (i > 0) out << separator;
    print_point(*points[i], out);
  }
}

const char* type_suffix(ast::Type t) {
  switch (t) {
    case ast::Type::long_: return ":long";
    case ast::Type::string: return ":string";
    default: return "";
  }
}

}  // namespace

void print_expr(const ast::Expr& e, std::ostream& out) { Printer(out).expr(e); }
void print_stmt(const ast::Stmt& s, std::ostream& out) { Printer(out).stmt(s); }

void print_probe(const ast::ProbeDecl& probe, std::ostream& out) {
  out << "probe ";
  print_points(probe.points, ",", out);
  print_stmt(*probe.body, out);
  out << '\n';
}

void print_alias(const ast::AliasDecl& alias, std::ostream& out) {
  out << "probe ";
  print_points(alias.names, ", ", out);
  out << (alias.epilogue ? " += " : " = ");
  print_points(alias.points, ", ", out);
  print_stmt(*alias.body, out);
  out << '\n';
}

void print_function(const ast::FunctionDecl& fn, std::ostream& out) {
  if (fn.is_private) out << "private ";
  out << "function " << fn.name;
  if (fn.return_type_declared) out << type_suffix(fn.return_type);
  out << " (";
  for (size_t i = 0; i < fn.params.size(); ++i) {
    if (i > 0) out << ", ";
    out << fn.params[i].name;
    if (fn.params[i].type_declared) out << type_suffix(fn.params[i].type);
  }
  out << ")\n";
  if (fn.body) print_stmt(*fn.body, out);
  else out << "%{" << fn.embedded_code << "%}";
  out << '\n';
}

void print_global(const ast::VarDecl& var, std::ostream& out) {
  if (var.is_private) out << "private ";
  out << "global " << var.name;
  if (var.type_declared) out << type_suffix(var.type);
  if (var.wrap) out << '%';
  if (var.max_entries > 0) out << '[' << var.max_entries << ']';
  if (var.init) {
    out << " = ";
    print_expr(*var.init, out);
  }
  out << '\n';
}

// The driver prints "# parse tree dump" once before the files.
void print_file(const ast::File& file, std::ostream& out) {
  out << "# file " << file.name << '\n';
  for (const ast::File::EmbeddedBlock& b : file.embedded_blocks) out << "%{" << b.code << "%}\n";
  for (const ast::VarDecl* v : file.globals) print_global(*v, out);
  for (const ast::AliasDecl* a : file.aliases) print_alias(*a, out);
  for (const ast::ProbeDecl* p : file.probes) print_probe(*p, out);
  for (const ast::FunctionDecl* f : file.functions) print_function(*f, out);
  out << '\n';
}

}  // namespace stap
