// Pass 2, step 2: probe aliases -> derived probes.
//
//   probe a = pp1, pp2 { prologue }     probe a += pp { epilogue }
//   probe a { body }
//
// makes one derived probe per concrete point: on pp1 and pp2 with body
// { prologue body }, on pp with { body epilogue }.  Alias points may be
// aliases themselves (expanded recursively, a loop is an error); several
// aliases of one name all apply; wildcard components of the user's point
// ("syscall.*", "a.**", "sys*.open") match alias names component by
// component, and components past an alias name are appended to its
// points ("perf.sw.cpu_clock.sample(100)").  Points that no alias claims
// go to the providers (providers/provider.h).  A point that resolves to
// nothing is an error unless marked '?' or '!'; '!' also stops the list
// at the first point that resolved.  "if (cond)" conditions are carried to
// the derived probes, the alias's first and the user's second, joined by &&.
//
// Each derived probe is a new ProbeDecl with a cloned body; locations in
// code copied from an alias carry a SourceManager expansion "in alias
// 'NAME'" pointing at the user's probe point, so any later diagnostic in
// that code shows the chain back to the user's script.  (Diagnostics::
// push_expansion would only cover errors raised while this step runs; the
// resolver and type checker run later.)
#pragma once

#include <string>

#include "ast/ast.h"
#include "base/diagnostics.h"
#include "base/source.h"
#include "elaborate/program.h"
#include "elaborate/tapset_library.h"

namespace stap {

// Expands the probes of every file in program.files not expanded yet (user
// files, and tapset files pulled in since the last call: call it again
// after the resolver pulls files in).  Appends to program.probes, one entry
// per concrete point, with its provider.  The files keep their original
// ProbeDecls (for -p1).  Returns false when an error was reported.
bool expand_aliases(Program& program, TapsetLibrary& library, ast::Arena& arena,
                    SourceManager& sources, Diagnostics& diags);

// How a user's point matches one alias name: `full` when every component
// matches (globs and "**" allowed), `prefix` when the name matches the
// point's first `length` components one to one and the rest form a suffix
// to append to the alias's points.  Alias components never take arguments.
struct AliasMatch {
  enum class Kind { none, full, prefix } kind = Kind::none;
  size_t length = 0;
};
AliasMatch match_alias_name(const ast::ProbePoint& point, const ast::ProbePoint& name);

// stap refuses alias names whose components take a literal ("probe a(1) =
// ..."); reports it and returns false.  Checked when an alias is registered.
bool check_alias_names(const ast::AliasDecl& alias, Diagnostics& diags);

// The script-level point a derived probe stands for, as stap's pn() gives
// it: the outermost alias's name as the user's point matched it, suffix
// included ("syscall.read.return" for `probe syscall.*.return`); "" for a
// probe that went through no alias (or none that the user's point names).
std::string alias_point_name(const ast::ProbeDecl& derived);

// The "/* <- ... */" annotation stap prints after a derived probe's point
// in -p2, e.g. " /* <- a = begin, end <- a,end */" (with its leading space).
std::string derivation_note(const ast::ProbeDecl& derived);

// "kernel.function(\"f\").return?" with the '?'/'!' mark and, when
// with_condition, " if (cond)": how stap prints a probe point.
std::string point_text(const ast::ProbePoint& point, bool with_condition = true);

// "a = begin, end" / "a += begin": how stap prints an alias declaration.
std::string alias_text(const ast::AliasDecl& alias);

}  // namespace stap
