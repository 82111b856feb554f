// Helpers for the parser and printer tests: parse a script (lex + parse,
// or the whole pass 1 with the preprocessor), print it as -p1 does, and
// check that the print parses back to the same print.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <sstream>
#include <string>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "parse/lexer.h"
#include "parse/parser.h"
#include "parse/preprocessor.h"
#include "parse/printer.h"

namespace stap::test {

struct Parsed {
  SourceManager sources;
  Diagnostics diags{sources};
  ast::Arena arena;
  std::unique_ptr<ast::File> file;

  // Lexes and parses only, so parser tests do not depend on the
  // preprocessor; with_preprocessor runs the whole of pass 1.  guru is -g.
  explicit Parsed(const std::string& text, bool with_preprocessor = false,
                  const std::string& name = "<input>", bool guru = false) {
    FileId id = sources.add(name, text, FileOrigin::command_line);
    if (with_preprocessor) {
      PreprocessorEnv env;
      env.guru_mode = guru;
      MacroTable macros;
      file = parse_file(sources, id, env, macros, arena, diags);
    } else {
      file = parse_tokens(lex(sources, id, diags), name, id, arena, diags, guru);
    }
  }
  std::string errors() {
    std::ostringstream out;
    diags.flush(out);
    return out.str();
  }
  std::string printed() const {
    std::ostringstream out;
    print_file(*file, out);
    return out.str();
  }
};

// The -p1 print of a file, without the "# file" line and the final blank
// line.
inline std::string strip_file_header(const std::string& print) {
  std::string body = print.substr(print.find('\n') + 1);
  while (!body.empty() && body.back() == '\n') body.pop_back();
  return body;
}

// Parses `text` (which must be valid), prints it, and checks the round
// trip: the print parses without errors and prints identically.
inline std::string p1(const std::string& text, bool guru = false) {
  Parsed first(text, false, "<input>", guru);
  INFO("script: " << text);
  INFO("errors: " << first.errors());
  REQUIRE(first.diags.error_count() == 0);
  std::string print = strip_file_header(first.printed());
  Parsed second(print, false, "<input>", guru);
  INFO("print: " << print);
  INFO("errors of the print: " << second.errors());
  REQUIRE(second.diags.error_count() == 0);
  REQUIRE(strip_file_header(second.printed()) == print);
  return print;
}

// The body of a one-probe script "probe begin { STMTS }", as printed:
// the statement lines between "probe begin{" and "}".
inline std::string p1_stmts(const std::string& stmts) {
  std::string print = p1("probe begin { " + stmts + " }");
  const std::string head = "probe begin{\n";
  REQUIRE(print.rfind(head, 0) == 0);
  REQUIRE(print.size() >= head.size() + 1);
  return print.substr(head.size(), print.size() - head.size() - 1);  // drop "}"
}

// The print of one expression statement "x = EXPR;", without "(x) = " and ";\n".
inline std::string p1_expr(const std::string& expr) {
  std::string line = p1_stmts("x = " + expr);
  const std::string head = "(x) = (";
  REQUIRE(line.rfind(head, 0) == 0);
  return line.substr(head.size(), line.size() - head.size() - 3);  // drop ");\n"
}

// The rendered diagnostics of a script that must fail to parse.
inline std::string parse_errors(const std::string& text) {
  Parsed p(text);
  std::string out = p.errors();
  INFO("script: " << text);
  REQUIRE(p.diags.error_count() > 0);
  return out;
}

// The first statement of "probe begin { STMT }".
template <typename T>
T* first_stmt(Parsed& p) {
  INFO(p.errors());
  REQUIRE(p.diags.error_count() == 0);
  REQUIRE(p.file->probes.size() == 1);
  REQUIRE(!p.file->probes[0]->body->statements.empty());
  auto* s = dynamic_cast<T*>(p.file->probes[0]->body->statements[0]);
  REQUIRE(s != nullptr);
  return s;
}

// The expression of "probe begin { EXPR }".
template <typename T>
T* expr_of(Parsed& p) {
  auto* s = first_stmt<ast::ExprStmt>(p);
  auto* e = dynamic_cast<T*>(s->expr);
  REQUIRE(e != nullptr);
  return e;
}

// The rendered diagnostics of a script that must give exactly one error.
inline std::string one_error(const std::string& text) {
  Parsed p(text);
  std::string out = p.errors();
  INFO(text << "\n" << out);
  REQUIRE(p.diags.error_count() == 1);
  return out;
}

}  // namespace stap::test
