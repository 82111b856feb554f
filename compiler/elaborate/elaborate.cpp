#include "elaborate/elaborate.h"

#include "elaborate/alias_expansion.h"
#include "elaborate/checks.h"
#include "elaborate/elide.h"
#include "elaborate/global_display.h"
#include "elaborate/resolve.h"
#include "elaborate/typecheck.h"

namespace stap {

namespace {

// stap -L prints each probe's locals with their types: resolution and
// inference over everything, without elision.  As in stap, a resolution
// error leaves every type "unknown" (inference does not run), while a type
// conflict keeps what inference found.
void type_for_listing(Program& program, TapsetLibrary& library, ast::Arena& arena,
                      SourceManager& sources, Diagnostics& diags) {
  for (;;) {
    if (!resolve_program(program, library, arena, diags)) return;
    if (program.expanded_files == program.files.size()) break;
    if (!expand_aliases(program, library, arena, sources, diags)) break;
  }
  typecheck_program(program, diags, /*report_unresolved=*/false);
}

}  // namespace

// The steps of program.h, in order.  stap elides unused code before it
// checks types, so a conflict in code it elides (`probe begin { x = 1;
// x = "s" }`) goes unreported and the script fails with "no probes found".
// Here conflicts are looked for first, over everything the probes reach,
// and reported at both places; only "unresolved type" waits until after
// elision, so code stap would elide never needs types it cannot have.
bool elaborate(Program& program, TapsetLibrary& library, const ElaborateOptions& options,
               ast::Arena& arena, SourceManager& sources, Diagnostics& diags) {
  size_t errors = diags.error_count();
  auto ok = [&] { return diags.error_count() == errors; };

  // 1-3: tapset aliases and providers.
  program.guru = options.guru;
  program.target_program = options.target_program;
  bool expanded = expand_aliases(program, library, arena, sources, diags);
  if (options.list_mode) {
    if (options.list_types) type_for_listing(program, library, arena, sources, diags);
    return ok();
  }
  if (!expanded) return false;

  // 4: resolution can pull tapset files in; their probes join the program
  // and are resolved in turn.
  for (;;) {
    if (!resolve_program(program, library, arena, diags)) return false;
    if (program.expanded_files == program.files.size()) break;
    if (!expand_aliases(program, library, arena, sources, diags)) return false;
  }

  if (!check_conditions(program, diags)) return false;
  if (!check_guru_calls(program, diags)) return false;
  if (!check_perf_counters(program, diags)) return false;

  // 5: type conflicts; 6: unused code.
  if (!options.keep_unused) {
    if (!typecheck_program(program, diags, /*report_unresolved=*/false)) return false;
    elide_unused(program, library, arena, diags);
  }
  if (program.probes.empty()) {
    diags.semantic_error(SourceLoc{}, "no probes found");
    return false;
  }
  // 7: rules that are not about types, over what is left.
  if (!check_program(program, options.guru, diags)) return false;

  // 8: types, complete.
  if (!typecheck_program(program, diags)) return false;

  // 9: written-but-unread globals printed at exit.  The new probes are
  // checked like the user's code.
  if (options.global_var_display && add_global_display(program, arena) > 0)
    typecheck_program(program, diags);
  return ok();
}

}  // namespace stap
