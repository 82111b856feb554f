// Pass 2, step 4: symbol resolution.
//
// Walks every derived probe's body (and probe-point condition), then every
// function reached from them, and binds:
//   - each Symbol to a VarDecl: a function parameter, a local of the probe
//     or function (created on first use), a global of the script (a
//     `private` one only from its own file), or a tapset global pulled in
//     through TapsetLibrary::need_global;
//   - each CallExpr to a FunctionDecl (script or tapset, overloaded by
//     arity; a tapset file is pulled in through need_function) or to a
//     builtin (decl stays null; find_builtin(name, arity) names it).
// Only what the probes reach joins the program, as in stap: an unused
// function is never checked, an unused global never listed.
//
// It also records how each variable is used: arity (0 for scalars, the
// number of indexes for arrays; a mismatch is an error, a local array or
// statistic is an error), and VarDecl::read / written.
//
// Target variables ($x, @cast, @var) are left alone: providers resolve
// them.
#pragma once

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "elaborate/program.h"
#include "elaborate/tapset_library.h"

namespace stap {

// Fills program.globals (in order of first reference), program.functions
// (in order reached) and program.builtins (in order of first use).
// Returns false when an error was reported.
bool resolve_program(Program& program, TapsetLibrary& library, ast::Arena& arena,
                     Diagnostics& diags);

// After code was removed (elide.cpp): recomputes from the bound tree which
// globals, functions, builtins and locals are still used (keeping their
// order) and every variable's read/written flags.  Reports nothing.
void refresh_uses(Program& program, ast::Arena& arena, TapsetLibrary& library,
                  Diagnostics& diags);

// Names within edit distance 3 of `name`, nearest first (then shorter,
// then alphabetical), at most 5: the "(similar: ...)" hint of stap's
// messages.  Empty when none.
std::string similar_names(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace stap
