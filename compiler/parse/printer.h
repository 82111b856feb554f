// -p1 output: the program printed back in stap syntax, in SystemTap's
// layout ("# parse tree dump", fully parenthesised expressions, one
// statement per line).  Unlike stap, declared types are kept
// ("function f:long (x:long)") so that printing, parsing the print and
// printing again gives the same text: the round-trip tests rely on it.
#pragma once

#include <iosfwd>

#include "ast/ast.h"

namespace stap {

void print_file(const ast::File& file, std::ostream& out);  // with the "# file" header
void print_probe(const ast::ProbeDecl& probe, std::ostream& out);
void print_function(const ast::FunctionDecl& fn, std::ostream& out);
void print_global(const ast::VarDecl& var, std::ostream& out);
void print_expr(const ast::Expr& e, std::ostream& out);
void print_stmt(const ast::Stmt& s, std::ostream& out);

}  // namespace stap
