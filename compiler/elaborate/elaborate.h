// Pass 2 entry point: the user's parsed files -> an elaborated Program
// (see program.h for the ordered list of steps).
#pragma once

#include <iosfwd>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "elaborate/program.h"
#include "elaborate/tapset_library.h"

namespace stap {

struct ElaborateOptions {
  bool keep_unused = false;          // -u: no elision of unused code
  bool guru = false;                 // -g
  std::string target_program;        // -c/-x's program (Program::target_program)
  bool global_var_display = true;    // --no-global-var-display turns it off
  bool list_mode = false;            // -l/-L: probes need no body checks
  bool list_types = false;           // -L: locals resolved and typed, as far as they go
};

// `program.files` holds the user's files on entry (the first is the main
// script).  Returns false when an error was reported.
bool elaborate(Program& program, TapsetLibrary& library, const ElaborateOptions& options,
               ast::Arena& arena, SourceManager& sources, Diagnostics& diags);

// -p2 output, as stap prints it ("# globals", "# functions", "# probes");
// verbose > 0 adds the bodies as stap -v does.
void print_program(const Program& program, std::ostream& out, int verbose);

}  // namespace stap
