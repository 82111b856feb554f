// Pass 2, with resolution: questions about target variables answered
// where the code has none (body_context.h: probes of families without
// them, and every function), as stap answers them in pass 2:
//
//   @defined($x)            -> 0
//   @choose_defined($x, e)  -> e
//
// An `if`, `?:`, `!`, `&&` or `||` on such an answer keeps only what it
// selects, so the target variables of the branch not taken are never
// looked at: `if (@defined($count)) println($count)` in a begin probe is
// no error, as in stap.  Nothing else is folded.
#pragma once

#include "ast/ast.h"

namespace stap {

void fold_absent_targets(ast::Block& body, ast::Arena& arena);

}  // namespace stap
