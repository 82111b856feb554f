// Probe providers: one per probe family (begin/end, timers, tracepoints,
// kernel functions, user processes, perf events).
//
// A provider declares the shapes of the points it accepts as patterns, the
// way `stap --dump-probe-types` lists them:
//
//     "timer.ms(number)", "timer.ms(number).randomize(number)",
//     "process(string).function(string).return", "process.begin"
//
// From the patterns the registry (registry.cpp) answers which provider owns
// a point, expands wildcard component names ("timer.m*(5)" -> timer.ms(5),
// timer.msec(5)), and words mismatches as stap does ("probe point mismatch
// (similar: ...)", "invalid suffix for probe").  A provider adds value checks
// on top (intervals in range, non-empty names) in check_values().
//
// Adding a probe kind is one file in this directory defining a provider and
// one line in the table of registry.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ast/ast.h"
#include "base/diagnostics.h"

namespace stap {

struct DerivedProbe;       // elaborate/program.h
struct KernelFunctionRef;  // elaborate/program.h
namespace kernel {
class KernelBtf;
class KernelSymbols;
struct Function;
}  // namespace kernel

// How alias expansion asks a provider to resolve a point (resolve()).
struct ResolveRequest {
  bool quiet = false;     // an optional point ('?', '!'): failures are silent
  bool will_run = false;  // Program::will_run: the probe must be attachable here
  bool guru = false;      // Program::guru (-g)
  std::string target_program;  // Program::target_program
};

// How a body uses a target variable (ProbeProvider::check_target_use).
struct TargetUse {
  bool written = false;  // assigned, incremented or decremented
  std::string op;        // when written: "=", ".=", "+=", "++" ...
  bool guru = false;     // -g
};

// The literal a pattern component takes, if any.
enum class ArgKind : uint8_t { none, number, string };

struct PatternComponent {
  std::string name;
  ArgKind arg = ArgKind::none;
};

struct ProbePattern {
  std::string text;  // as written, e.g. "timer.ms(number).randomize(number)"
  std::vector<PatternComponent> components;
};

// "a(number).b(string).c" -> components.  Patterns are compile-time text of
// this program, so a malformed one is a programming error (it aborts).
ProbePattern parse_pattern(std::string_view text);

// Whether a point's components have exactly the pattern's names and
// argument kinds.  Names must be concrete (no wildcards).
bool pattern_matches(const ProbePattern& pattern, const ast::ProbePoint& point);

class ProbeProvider {
 public:
  ProbeProvider(std::string name, std::vector<std::string> patterns, bool resolved_later);
  virtual ~ProbeProvider() = default;

  // "begin", "timer", "kernel.trace" ...: for messages and -v.
  const std::string& name() const { return name_; }
  const std::vector<ProbePattern>& patterns() const { return patterns_; }

  // True for families whose points need work after pass 2 (symbol tables,
  // BTF, DWARF, tracefs): pass 2 checks only their shape and keeps the
  // points as written; the provider resolves them when it is built.
  bool resolved_later() const { return resolved_later_; }

  // Whether the point belongs to this family: its first component names
  // one of the family's heads ("timer", "kernel" + "trace" ...).  The
  // default compares the first component with the patterns' first names.
  virtual bool matches(const ast::ProbePoint& point) const;

  // Checks a concrete point (no wildcard names) against the patterns and
  // then check_values(); reports located errors saying what was expected.
  bool validate(ast::ProbePoint& point, Diagnostics& diags) const;

  // Target variables ($x, $x->f, $$vars, $return): whether probes at
  // `point` have a context to read them from.  A family resolved later
  // says yes where its points may have them (function arguments and
  // locals, tracepoint fields, syscall arguments) and checks the names
  // when it resolves the point.  The default is no (begin, end, timers).
  virtual bool has_target_vars(const ast::ProbePoint& point) const;
  // What a target variable used at such a point is told, in stap's words.
  virtual std::string no_target_vars_message(const ast::ProbePoint& point) const;
  // The type a plain target variable (`$name`, no components) has at
  // `point` when the family can tell in pass 2 (a tracepoint's char-array
  // field is a string); Type::unknown leaves it to inference (long).
  virtual ast::Type target_var_type(const ast::ProbePoint& point, const std::string& name) const;
  // For a family resolved later: whether the point can match anything on
  // this system (a kernel.trace pattern names existing events).  Pass 2
  // drops an optional ('?', '!') point that cannot, so a '!' list moves on
  // to its next alternative; a required one is reported by its provider
  // when resolved.  The default is yes (unknown until resolution).
  virtual bool may_match(const ast::ProbePoint& point) const;
  // Pass 2's resolution of a concrete point of a family resolved later:
  // how many things it matched on this system, keeping what lowering needs
  // in `out` (kernel functions).  0 drops the point, so a '!' list moves on;
  // unless request.quiet, the provider has reported why.  The default
  // leaves resolution to lowering: 1, or 0 for an optional point that
  // may_match() says matches nothing.
  virtual size_t resolve(const ast::ProbePoint& point, const ResolveRequest& request,
                         DerivedProbe& out, Diagnostics& diags) const;
  // What `stap -l` lists for a point of this family: the point itself by
  // default; a family resolved later lists what the pattern matches on
  // this system (kernel.trace("sched:*") -> each sched event).
  virtual std::vector<std::string> list_points(const ast::ProbePoint& point) const;
  // For a family whose target variables have rules of their own (procfs's
  // $value: written without -g in a read probe, read-only in a write
  // probe): checks one use of `n` in a body at `point`, reporting a
  // located error and returning false when it is wrong.  nullopt, the
  // default, leaves the shared rules: reads anywhere, writes under -g.
  virtual std::optional<bool> check_target_use(const ast::ProbePoint& point,
                                               const ast::TargetSymbol& n, const TargetUse& use,
                                               Diagnostics& diags) const;
  // The points a concrete point stands for before it is resolved: itself
  // completed from the session (the -c/-x program of a bare
  // process.function), or one per file a glob names (process("/lib*/
  // libc.so.*")); new points are made in `arena`.  The default: itself.
  virtual std::vector<ast::ProbePoint*> expand_point(ast::ProbePoint& point,
                                                     const ResolveRequest& request,
                                                     ast::Arena& arena) const;
  // For a family whose target variables are known in pass 2 (procfs's
  // $value, netfilter's six): their names, with '$'.  Pass 2 then answers
  // @defined($name) of a body all of whose probes are such points, as it
  // answers it where there are none (elaborate/fold_targets.h).  nullopt,
  // the default: known only when the point is resolved.
  virtual std::optional<std::vector<std::string>> known_target_vars(
      const ast::ProbePoint& point) const;
  // Whether @entry(expr) may be used: in function .return probes only.
  // The default is no.
  virtual bool has_entry_values(const ast::ProbePoint& point) const;

 protected:
  // Value checks once the shape matched `pattern`; the default accepts.
  virtual bool check_values(ast::ProbePoint& point, const ProbePattern& pattern,
                            Diagnostics& diags) const;

  // Helpers for check_values().
  static const ast::ProbePointComponent* find(const ast::ProbePoint& point,
                                              std::string_view functor);
  static int64_t number_arg(const ast::ProbePointComponent& c);
  static const std::string& string_arg(const ast::ProbePointComponent& c);
  // Reports a value error as stap does: "while resolving probe point" at
  // the point, then `message` at `loc` (the offending literal).
  static void value_error(const ast::ProbePoint& point, SourceLoc loc, std::string message,
                          Diagnostics& diags);

 private:
  std::string name_;
  std::vector<ProbePattern> patterns_;
  bool resolved_later_ = false;

 public:
  // What `stap -L` lists after a point's alias locals: each target
  // variable a probe at the concrete `point` can read, as {name without
  // '$', C type}, in the family's order ({"prev_comm", "char[16]"},
  // {"prev_pid", "pid_t"}).  For a pattern standing for several points,
  // the variables all of them have.  The default is none (begin, timers).
  virtual std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint& point) const;
};

// Each family's provider, defined in its own file of this directory.
const ProbeProvider& begin_end_provider();
const ProbeProvider& timer_provider();
const ProbeProvider& tracepoint_provider();
const ProbeProvider& kernel_function_provider();
const ProbeProvider& process_provider();
const ProbeProvider& perf_provider();
const ProbeProvider& btf_tracepoint_provider();
const ProbeProvider& procfs_provider();
const ProbeProvider& netfilter_provider();
const ProbeProvider& watchpoint_provider();
// The bytes a watchpoint of .length(N) watches, as stap rounds N to what
// x86's debug registers watch: 1, 2, 4 or 8 (watchpoint.cpp).
uint64_t watched_length(int64_t length);

// What a netfilter.hook("H").pf("P")[.priority("N")] point names, as the
// kernel numbers it (netfilter.cpp): the protocol family (NFPROTO_*), the
// hook and the priority.  nullopt with `error`, located at `where`, when
// a name is unknown (under -g stap passes unknown names on as C; this
// engine cannot).
struct NetfilterHook {
  int64_t pf = 0, hook = 0, priority = 0;
};
std::optional<NetfilterHook> netfilter_hook(const ast::ProbePoint& point, std::string& error,
                                            SourceLoc& where);

// The tracepoints kernel.tracepoint(PATTERN) names in `btf`: vmlinux's
// (module "") or module M's, sorted (btf_tracepoint.cpp).
std::vector<std::string> match_btf_tracepoints(kernel::KernelBtf& btf, const std::string& pattern,
                                               const std::string& module);
const ProbeProvider& lsm_provider();
// The LSM hooks kernel.lsm(PATTERN) names in vmlinux's BTF, sorted; and a
// hook's arguments, from its bpf_lsm_HOOK function (lsm.cpp).
std::vector<std::string> match_lsm_hooks(kernel::KernelBtf& btf, const std::string& pattern);
std::optional<kernel::Function> lsm_hook(kernel::KernelBtf& btf, const std::string& hook);
// The name a BTF tracepoint's argument i goes by: the kernel's, else
// "arg<i+1>".
std::string tracepoint_arg_name(const kernel::Function& tp, size_t i);

// The running kernel's BTF and symbols, read on first use, once per
// process (kernel_function.cpp): pass 2 resolves kernel.function points
// with them, and the driver hands the same BTF to pass 3 (LowerOptions).
kernel::KernelBtf& running_kernel_btf();
// The same BTF as pass 3 asks for it (LowerOptions::btf): null when it did
// not load, with why.
kernel::KernelBtf* running_kernel_btf_if_loaded(std::string& why);
const kernel::KernelSymbols& running_kernel_symbols();
// The concrete point a kernel.function / kprobe point stands for at one
// function it resolved to: its pattern and module replaced by the names,
// the suffixes kept ("kernel.function(\"vfs_read\").return").  What -l
// lists and pp() returns.
std::string kernel_function_point(const ast::ProbePoint& point, const KernelFunctionRef& f);

// The registration table (registry.cpp).
const std::vector<const ProbeProvider*>& all_providers();
// The provider owning a concrete point, or null when no family claims it.
const ProbeProvider* find_provider(const ast::ProbePoint& point);

// Checks a point that no alias claimed.  Wildcard component names are
// expanded over the providers' patterns; each concrete result is validated
// by its provider.  Reports stap's errors ("while resolving probe point",
// "probe point mismatch (similar: ...)", "invalid suffix for probe", value
// errors) unless `quiet` (optional points fail silently).  Returns the
// concrete points (new nodes in `arena`, or `point` itself when it had no
// wildcard); empty when nothing matched.  `extra_names` are further
// candidates for the "similar:" hint (alias names of the library).
std::vector<ast::ProbePoint*> resolve_builtin_point(ast::ProbePoint& point, ast::Arena& arena,
                                                    const std::vector<std::string>& extra_names,
                                                    bool quiet, Diagnostics& diags);

// " (similar: a, b)": the candidates nearest to `word` by edit distance
// (five at most), for stap's mismatch hints; empty when none is near.
std::string similar_hint(const std::string& word, const std::set<std::string>& candidates);

// Whether some provider pattern has the point's shape (component names,
// globs allowed, and argument kinds): such a point is the provider's even
// when an alias name is a prefix of it ("timer.profile.tick" is not the
// alias "timer.profile" with a ".tick" suffix).
bool builtin_shape_matches(const ast::ProbePoint& point);

// Whether a component name has glob characters ('*', "**").
bool is_wildcard(std::string_view functor);

}  // namespace stap
