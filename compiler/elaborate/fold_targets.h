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

// The same where the target variables are known by name (`known`, with
// '$': procfs's $value): @defined($x) of a plain $x is 1 when x is one of
// them, else 0; @choose_defined($x, e) is $x or e.  Other questions
// ($x->f, @defined(@cast(...))) are left for pass 3.
void fold_known_targets(ast::Block& body, ast::Arena& arena,
                        const std::vector<std::string>& known);

}  // namespace stap
