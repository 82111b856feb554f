// --folded=FILE: every array or statistic keyed by a stack (a stack code
// column: s[backtrace()], u[execname(), ubacktrace()]) written as folded
// stacks, one "frame;frame;frame count" line per distinct stack, root
// first, ready for flame-graph tools (flamegraph.pl, inferno, speedscope).
// Other key columns become the root frames (execname() first, then the
// stacks: user frames below kernel frames, as they ran); the count is the
// element's value, or @count for a statistic.  Whole stacks are written
// (MAXBACKTRACE frames), whatever MAXSTRINGLEN cuts in backtrace()'s text.
#pragma once

#include <string>

#include "loader/interp/global_store.h"
#include "ir/ir.h"
#include "loader/symbols/stack_symbols.h"

namespace stap {

// The folded lines of every stack-keyed global, sorted; "" when none.
std::string folded_stacks(const ir::Module& m, const GlobalStore& store, StackSymbols& stacks);

// Writes them to `path`; false with `error` set.
bool write_folded_stacks(const std::string& path, const ir::Module& m, const GlobalStore& store,
                         StackSymbols& stacks, std::string& error);

}  // namespace stap
