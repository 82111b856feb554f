// Pass 2, step 5: type inference.
//
// Visits every probe (then every function) of the resolved program again
// and again, pushing known types into unknown ones (variables, array index
// and value types, function parameters and return types, expressions)
// until a pass learns nothing new.  The order of visits and which side of
// an operator lends its type to the other follow stap, because the order
// decides which location a conflict blames:
//
//   type mismatch (string): identifier 'x' at <input>:1:22
//   type was first inferred here (long): identifier 'x' at <input>:1:15
//
// Statistics: `x <<< v` makes x a statistic, @count(x) and friends need
// one, and a statistic used as a value is a type mismatch.  The printf
// family checks its arguments against the format (builtins.h).  Whatever is
// still unknown at the end is an "unresolved type" error.
//
// Target variables ($x, @cast, @var) are typed by their provider; where it
// has not (pass 2 runs before the kernel's types are read) they are taken
// as long, or string for the pretty-printing forms ($x$, $$vars), which is
// what stap infers for them.
#pragma once

#include <string>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "elaborate/program.h"

namespace stap {

// Returns false when an error was reported.  With report_unresolved false
// only conflicts are errors: what is still untyped may yet be elided.
bool typecheck_program(Program& program, Diagnostics& diags, bool report_unresolved = true);

// How stap names the token an expression starts at in a diagnostic:
// "identifier 'x'", "number '1'", "string 'a'", "operator '+'".
std::string describe_expr(const ast::Expr& e);

}  // namespace stap
