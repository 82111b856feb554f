// Pass 2, step 7: globals the script writes but never reads are printed
// when it ends, as stap does:
//
//   x=5              s="abc"             a["k",2]=4   (by value, descending)
//   st @count=4 @min=1 @max=4 @sum=10 @avg=2
//
// Each such global gets one synthesized `end` probe, real AST built from
// printf, foreach and @count & co., which -p2 shows and the type checker
// checks like the user's code.  Only globals declared in the user's files
// qualify; --no-global-var-display turns it off.
#pragma once

#include "ast/ast.h"
#include "elaborate/program.h"

namespace stap {

// Appends the probes to program.probes; returns how many.  Types must be
// known (run after the type checker).
size_t add_global_display(Program& program, ast::Arena& arena);

}  // namespace stap
