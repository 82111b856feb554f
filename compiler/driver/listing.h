// stap -l PATTERN / -L PATTERN: the probe points a pattern matches, as
// SystemTap prints them.
//
// The pattern is elaborated as the script "probe PATTERN {}" (plus any -E
// scripts, whose own probes are not listed).  Each derived probe that
// comes from the pattern is named the way stap's pn() names it: the alias
// name it matched plus any suffix past it ("syscall.read",
// "sfx.randomize(5)"), or, for a point no alias claimed, the point with its
// wildcards expanded and its '?', '!' and condition as written
// ("timer.ms(100)?").  A family resolved later lists what the point
// matches on this system (each tracepoint of kernel.trace("sched:*")).
// The names are printed sorted and once each.
//
// -L adds, after the name, the locals the alias bodies define as
// " name:type" (types from pass-2 inference, "unknown" where it found
// none), then the target variables of the point as " $name:C type"
// (providers/provider.h target_var_list).  Where several probes share a
// name (an alias over two points), only what all of them have is printed.
//
// As in stap, listing reports no errors (unless -vv) and exits 1 only when
// nothing matched.
#pragma once

#include <iosfwd>

#include "driver/frontend.h"
#include "driver/options.h"

namespace stap {

// Runs -l/-L for `o.list_pattern`; returns the exit status.
int list_probes(const Options& o, Frontend& fe, std::ostream& out, std::ostream& err);

// --dump-probe-types: every pattern of every provider (providers/
// registry.cpp), sorted, one a line: "timer.ms(number)".
int dump_probe_types(std::ostream& out);
// --dump-probe-aliases: each probe alias of the tapset library, one line
// per alias name, sorted: "vfs.read = kernel.function(\"vfs_read\")".
// The syscall aliases, generated per kernel, are not among them.
int dump_probe_aliases(Frontend& fe, std::ostream& out, std::ostream& err);

}  // namespace stap
