// One run of the stap command: the passes in order, stopping after -p N,
// with stap's progress lines (-v) and failure summaries.
#pragma once

#include <iosfwd>

#include "driver/options.h"

namespace stap {

// Returns the process exit code.
int run_session(const Options& options, std::ostream& out, std::ostream& err);

}  // namespace stap
