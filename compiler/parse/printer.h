// -p1 output: the program printed back in stap syntax, in SystemTap's
// layout ("# parse tree dump", fully parenthesised expressions, one
// statement per line).  Unlike stap, declared types are kept
// ("function f:long (x:long)") so that printing, parsing the print and
// printing again gives the same text: the round-trip tests rely on it.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "ast/ast.h"

namespace stap {

void print_file(const ast::File& file, std::ostream& out);  // with the "# file" header
void print_probe(const ast::ProbeDecl& probe, std::ostream& out);
void print_alias(const ast::AliasDecl& alias, std::ostream& out);
void print_function(const ast::FunctionDecl& fn, std::ostream& out);
void print_global(const ast::VarDecl& var, std::ostream& out);
void print_expr(const ast::Expr& e, std::ostream& out);
void print_stmt(const ast::Stmt& s, std::ostream& out);

// A string value as a stap literal, quotes included: "a\n\"b\"".
std::string quote_string(std::string_view value);
// A number literal as -p1 prints it: the value in decimal (as stap does),
// but the text as written when the value is negative ("-1" in begin(-1),
// "0xffffffffffffffff"), so that it parses back to the same literal.
std::string number_text(const ast::NumberLit& n);

}  // namespace stap
