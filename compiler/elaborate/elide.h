// Pass 2, step 6: removing code that does nothing, as stap does unless -u.
//
// Runs after resolution and before type checking, as stap's first
// optimisation does, so a type conflict in code that goes away is never
// reported.  Until nothing changes:
//   - an assignment "x = e" to a local or parameter never read becomes e
//     ("Eliding assignment to 'x'");
//   - an expression statement without side effect goes
//     ("Eliding side-effect-free expression"); empty blocks, null
//     statements, and ifs and loops with empty bodies and pure conditions
//     go silently;
//   - a function whose body is left empty is reported
//     ("side-effect-free function 'f'"); functions, globals and locals no
//     longer used leave the program;
//   - a probe whose body is left empty goes
//     ("Probe 'begin' has been elided");
//   - a global of the user's files left unused is reported
//     ("Eliding unused variable 'g'").
// Before that, variables read but never assigned are reported
// ("never-assigned local variable 'x' (similar: ...)").  Warnings about
// statements come from the first round only, and only for statements in
// the user's files (not tapsets), as stap's do.
#pragma once

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "elaborate/program.h"
#include "elaborate/tapset_library.h"

namespace stap {

void elide_unused(Program& program, TapsetLibrary& library, ast::Arena& arena,
                  Diagnostics& diags);

// Whether evaluating `e` can change anything outside it (assignments,
// ++/--, printing, impure builtins or functions).
bool has_side_effects(const ast::Expr& e);

}  // namespace stap
