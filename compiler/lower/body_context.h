// What differs by probe kind while a body is lowered: each kind
// (lower/kinds/) gives every body it lowers a BodyContext that answers the
// kind's questions, so the shared lowering (expressions, statements, the
// print family) never asks which kind of probe it is in:
//   - its target variables ($x, $x->f, $$vars, $return ...) and @defined
//     over them;
//   - the context builtins whose value the kind knows (probefunc(),
//     probemod(), pp() of a kernel function or process probe);
//   - @entry and the entry values of a .return body (entry_values.cpp);
//   - the DWARF site that @cast and @var default to (dwarf_vars.h);
//   - a guard around the finished body (a process probe's pid or image).
// A function's body, and a probe of a kind without target variables
// (begin, end, timers, perf), has the base class itself.
#pragma once

#include <memory>
#include <optional>

#include "ast/ast.h"
#include "ir/ir.h"

namespace stap::debuginfo {
struct ResolvedPoint;  // debuginfo/process_points.h
struct ProbeSite;
}  // namespace stap::debuginfo

namespace stap::lower {

class Lowerer;

// The DWARF site a body's variables are read at: a process probe's, or a
// kernel function probe's placed from the kernel's DWARF.
struct DwarfSite {
  const debuginfo::ResolvedPoint* point = nullptr;
  const debuginfo::ProbeSite* site = nullptr;  // null for a probe over many sites
  bool kernel = false;                         // kernel code (reads are kreads)
  bool at_return = false;                      // the body runs at the function's return
};

class BodyContext;

// The probe a .return body's entry values are computed in, with the
// context its values are lowered in (a kind's entry_probe()).
struct EntryProbe {
  ir::Probe probe;
  std::unique_ptr<BodyContext> context;
  // A process function's entry site, which `context` points at (the
  // .return site is the function's first instruction; the entry's is
  // after its prologue).
  std::shared_ptr<debuginfo::ProbeSite> site;
};

class BodyContext {
 public:
  explicit BodyContext(Lowerer& l) : l_(l) {}
  virtual ~BodyContext() = default;
  BodyContext(const BodyContext&) = delete;
  BodyContext& operator=(const BodyContext&) = delete;

  // A target variable; any_type: the value may be a long or a string
  // (print's arguments).  The default is the located error of a body
  // with no probe context to read one from.
  virtual ir::Node* target(ast::TargetSymbol& n, bool any_type);
  // `n = value` (guru mode, checked in pass 2): the IR of the write, or
  // null when this context has nothing to write (the located error is the
  // caller's).
  virtual ir::Node* assign_target(ast::TargetSymbol&, ir::Node*) { return nullptr; }
  // @defined(e) of a target expression, when this context knows; nullopt
  // leaves e to be lowered (and reported) as written.
  virtual std::optional<bool> target_exists(const ast::Expr& e);
  // A context builtin the kind answers (probefunc(), probemod(), pp() ...),
  // or null for the shared lowering of the builtin.
  virtual ir::Node* builtin(ast::CallExpr& call);
  // Whether the body runs at a function's return, where @entry and the
  // entry values of target variables are read at the function's entry.
  virtual bool at_return() const { return false; }
  // The entry probe of this return body's entry values; null when the
  // kind has none.
  virtual std::unique_ptr<EntryProbe> entry_probe(const ir::Probe& ret);
  // The DWARF site @cast and @var default to; null where there is none.
  virtual const DwarfSite* dwarf() const { return nullptr; }
  // The finished body, wrapped in what the kind's probes run under (a
  // pid, the program image); `probe` holds its slots.
  virtual ir::Node* guard(ir::Node* body, ir::Probe& probe);

 protected:
  Lowerer& l_;
};

}  // namespace stap::lower
