// The elaborated program: what pass 2 produces and later passes consume.
//
// Pass 2 runs these steps in order (elaborate.cpp keeps the list):
//   1. tapset_library  - pull in the tapset files whose names the script uses
//   2. alias_expansion - probe points -> derived probes (prologue/epilogue
//                        bodies spliced in), wildcard alias matching
//   3. providers       - each remaining probe point is claimed by the
//                        provider of its family (begin, timer, kernel.trace,
//                        kernel.function, process ...); unknown families
//                        are errors
//   4. resolve         - symbols -> declarations (locals, globals, params,
//                        tapset globals), calls -> functions (overloading
//                        by arity) or builtins; first, @defined($x) is
//                        answered where there are no target variables
//                        (fold_targets.h)
//   5. typecheck       - inference to a fixed point; conflicts reported at
//                        every location involved (before elision, unlike
//                        stap: a conflict in code it would elide is still
//                        a bug worth naming)
//   6. elide           - unused functions, globals and locals removed
//                        (unless -u), with stap's warnings
//   7. checks          - rules that are not about types (lvalues, loops,
//                        foreach, @entry, histograms, guru writes)
//   8. typecheck again - over what is left; now untyped code is an
//                        "unresolved type" error
//   9. global display  - end probe printing written-but-unread globals
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ast/ast.h"

namespace stap {

struct Builtin;        // elaborate/builtins.h
class ProbeProvider;   // elaborate/providers/provider.h
namespace debuginfo {
struct ResolvedPoint;  // debuginfo/process_points.h
}

// A kernel function a kernel.function / kprobe point resolved to.
struct KernelFunctionRef {
  std::string module;  // "" for vmlinux
  std::string name;
  bool operator==(const KernelFunctionRef&) const = default;
};

// A probe after alias expansion, with the provider that will lower and
// attach it.
struct DerivedProbe {
  ast::ProbeDecl* decl = nullptr;
  ast::ProbePoint* point = nullptr;   // the concrete (non-alias) point
  const ProbeProvider* provider = nullptr;
  // kernel.function points: what the provider resolved them to in pass 2
  // (ProbeProvider::resolve), so lowering does not search again.
  std::vector<KernelFunctionRef> kernel_functions;
  // process("P") code points (uprobes): the binary and the sites pass 2
  // resolved them to.
  std::shared_ptr<const debuginfo::ResolvedPoint> user_point;
};

struct Program {
  // Every file parsed for this program, user files first; owns the trees.
  std::vector<std::unique_ptr<ast::File>> files;
  std::vector<ast::VarDecl*> globals;          // in declaration order
  std::vector<ast::FunctionDecl*> functions;   // script and tapset functions in use
  std::vector<const Builtin*> builtins;        // builtins in use
  std::vector<DerivedProbe> probes;
  // alias_expansion: how many of `files` have had their probes expanded.
  size_t expanded_files = 0;
  // Set by the driver when the probes will be compiled to run (pass 4 or
  // later, not -l/-L): resolution then also requires that the kernel can
  // attach them (kernel.function needs kprobes or fentry), so '!' and '?'
  // move past points that cannot run here.
  bool will_run = false;
  // -g (elaborate() sets it from its options): points whose values stap
  // takes as C in guru mode (netfilter hooks) are checked less strictly.
  bool guru = false;
  // The -c command's program or the -x process's executable, set by the
  // driver ("" without either): what a bare process.function/.plt/.mark
  // point probes, as in stap.
  std::string target_program;
  // elide: set when unused code was removed (no -u).  stap's optimiser
  // also leaves a one-statement body as that bare statement, which is how
  // -p2 -v prints bodies then.
  bool optimized = false;
};

}  // namespace stap
