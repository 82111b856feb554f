// Pass 2, after elision (step 6b): the rules a resolved program must keep
// that are not about types.  stap finds some of them in pass 2 and some
// only when translating (pass 3); all are pass-2 errors here, in stap's
// words, and like stap's they are not looked for in code it elides:
//
//   - `global w%` on a variable used as a scalar;
//   - assigning to or incrementing what is not a variable, an array
//     element or a target variable ("Expecting lvalue for assignment");
//   - `break` / `continue` outside a loop;
//   - changing an array (or calling a function that does) inside a
//     foreach over it; deleting the whole array is allowed, as in stap;
//   - @entry() outside a function .return probe (body_context.h);
//   - two histogram shapes on one statistic, and an @hist_linear step
//     that is not positive;
//   - writing a target variable without -g.
#pragma once

#include "base/diagnostics.h"
#include "elaborate/program.h"

namespace stap {

// Probe-point conditions (`probe P if (cond)`) read globals only: no
// writes, no calls, no impure embedded C, no locals, as stap requires.
// Runs before elision: stap checks a condition whether its probe stays.
bool check_conditions(const Program& program, Diagnostics& diags);

// Functions stap tags /* guru */ (task_ns_pid, ...) are called from the
// user's files only with -g; tapsets may call them.  Runs before elision,
// as stap checks while resolving.
bool check_guru_calls(const Program& program, Diagnostics& diags);

// perf .counter("NAME") probes and @perf("NAME"): a counter name is
// given once, and @perf names a counter of the probe's own program (a
// counter without .process serves any), as stap resolves them.  Before
// elision: a counter's probe body is usually empty.
bool check_perf_counters(const Program& program, Diagnostics& diags);

// Returns false when an error was reported.
bool check_program(const Program& program, bool guru, Diagnostics& diags);

}  // namespace stap
