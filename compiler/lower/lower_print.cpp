// The print family -> printf/sprintf with a format, so both sides format
// in one place (loader/printf_output.h):
//   print(a, b)          "%d%s"   (a long, b string)
//   println(a, b)        "%d%s\n"
//   printd(",", a, b)    "%d,%s"  (the delimiter is literal text: '%' doubled)
//   printdln(",", a, b)  "%d,%s\n"
//   printf(fmt, ...)     fmt as written (pass 1 checked it)
// and the s- forms likewise to sprintf.  print(@hist_log(x)) and its
// println print the histogram alone (print_hist), as stap does; sprint
// and sprintln make its text a string (print_hist of type string).
#include <string_view>

#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

// By the lowered value's type: a tracepoint field's type is known only now
// (pass 2 may have guessed long for a char array printed by print()).
std::string conversion(ir::Type t) { return t == ir::Type::string ? "%s" : "%d"; }

std::string literal_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace

bool Lowerer::is_print_family(const Builtin& b) const { return b.shape != ArgShape::fixed; }

ir::Node* Lowerer::print_call(ast::CallExpr& call, const Builtin& b) {
  std::string_view name = call.name;
  bool to_string = name.starts_with("s");
  bool newline = name.ends_with("ln");
  std::vector<ast::Expr*> values(call.args.begin(), call.args.end());
  std::vector<ir::Node*> lowered;
  std::string format;
  switch (b.shape) {
    case ArgShape::format: {
      auto* lit = dynamic_cast<const ast::StringLit*>(call.args[0]);
      if (!lit) {
        error(call.args[0]->loc, "expected literal string", describe_expr(*call.args[0]));
        return num(0);
      }
      format = lit->value;
      values.erase(values.begin());
      break;
    }
    case ArgShape::values: {
      if (values.size() == 1) {
        if (auto* h = dynamic_cast<ast::HistExpr*>(values[0])) {
          // sprint(@hist_log(x)): the same text as a string (user context).
          ir::Node* print = make(ir::Op::print_hist, to_string ? ir::Type::string : ir::Type::none);
          print->a = stats_operand(h->operand, print);
          print->loc = location(call);
          return print;
        }
      }
      for (ir::Node* v : lower_values(values)) {
        format += conversion(v->type);
        lowered.push_back(v);
      }
      break;
    }
    case ArgShape::delimited: {
      // The parser takes only a literal delimiter, as stap's does.
      auto* lit = dynamic_cast<const ast::StringLit*>(call.args[0]);
      if (!lit) {
        error(call.args[0]->loc, "expected literal string", describe_expr(*call.args[0]));
        return num(0);
      }
      std::string delimiter = literal_text(lit->value);
      values.erase(values.begin());
      for (ir::Node* v : lower_values(values)) {
        format += (lowered.empty() ? std::string() : delimiter) + conversion(v->type);
        lowered.push_back(v);
      }
      break;
    }
    case ArgShape::fixed:
      break;
  }
  if (newline) format += "\n";
  ir::Node* node = make(to_string ? ir::Op::sprintf : ir::Op::printf,
                        to_string ? ir::Type::string : ir::Type::none);
  node->a = module().add_format(format);
  // printf's arguments must have the types its format says: no leniency.
  if (b.shape == ArgShape::format)
    for (ast::Expr* v : values) lowered.push_back(expr(v));
  node->kids = std::move(lowered);
  node->loc = location(call);
  return node;
}

std::vector<ir::Node*> Lowerer::lower_values(const std::vector<ast::Expr*>& values) {
  std::vector<ir::Node*> out;
  for (ast::Expr* v : values) {
    if (dynamic_cast<ast::HistExpr*>(v)) {
      error(v->loc, "a histogram can only be printed alone, by print, println, sprint or sprintln",
            describe_expr(*v));
      continue;
    }
    // print($f) takes a value of either type, whatever pass 2 guessed.
    auto* t = dynamic_cast<ast::TargetSymbol*>(v);
    out.push_back(t && !t->pretty ? target(*t, /*any_type=*/true) : expr(v));
  }
  return out;
}

}  // namespace stap::lower
