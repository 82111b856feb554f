// Kernel-function probes (ir::KfuncSpec): the kind's lowering (kfunc.cpp,
// and kfunc_dwarf.cpp for points placed from the kernel's DWARF) and the
// contexts of their bodies: the function's parameters from BTF
// (kfunc_vars.cpp), or DWARF's variables at the site (dwarf_vars.cpp).
#pragma once

#include <optional>

#include "debuginfo/process_points.h"
#include "lower/dwarf_vars.h"
#include "lower/kinds/kinds.h"

namespace stap::lower {

class KfuncLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;
  void lower(const DerivedProbe& dp) override;

 private:
  void lower_one(const DerivedProbe& dp, ir::Probe&& probe);
  // kfunc_dwarf.cpp: points placed from DWARF, and a function named
  // without a file whose body reads what BTF lacks (a local, $$locals):
  // lowered as a DWARF site when the kernel's DWARF is installed (true),
  // else left to BTF (false).
  void lower_dwarf_points(const DerivedProbe& dp);
  bool lower_by_dwarf(const DerivedProbe& dp, const KernelFunctionRef& f);
};

// The BTF of a kernel function, where the target kernel has BTF.
std::optional<kernel::Function> btf_function(Lowerer& l, const std::string& name,
                                             const std::string& module);

// The first argument register (0..5) of each of fn's parameters, -1 for
// one passed on the stack; and the number of the BPF trampoline's u64
// argument slots, where its return value follows (-1: no trampoline can
// attach to fn).  kfunc_vars.cpp.
std::vector<int> argument_registers(const kernel::Function& fn);
int64_t trampoline_slots(const kernel::Function& fn);

// A body over BTF: $param, $return, $$parms ... of the one function the
// probe is on (none for a probe over many functions, or a function
// without BTF).
class KfuncBody : public BodyContext {
 public:
  KfuncBody(Lowerer& l, const ir::Probe& probe, const ast::ProbePoint& point);
  // The entry probe's body of a .return body: `fn` is the function's.
  KfuncBody(Lowerer& l, const ir::Probe& probe, const ast::ProbePoint& point,
            const std::optional<kernel::Function>& fn);

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override;
  std::optional<bool> target_exists(const ast::Expr& e) override;
  ir::Node* builtin(ast::CallExpr& call) override;
  bool at_return() const override { return spec_.is_return; }
  std::unique_ptr<EntryProbe> entry_probe(const ir::Probe& ret) override;

 private:
  bool base(const ast::TargetSymbol& n, Place& p, bool quiet);
  ir::Node* all_vars(ast::TargetSymbol& n);

  const ir::KfuncSpec& spec_;
  const ast::ProbePoint& point_;
  std::optional<kernel::Function> fn_;
};

// A body of a probe placed from the kernel's DWARF, at one site: DWARF's
// variables, read from kernel memory.
class KfuncDwarfBody : public DwarfSiteBody {
 public:
  KfuncDwarfBody(Lowerer& l, const ir::Probe& probe, const ast::ProbePoint& point,
                 const debuginfo::ResolvedPoint& resolved, const debuginfo::ProbeSite& site);

  ir::Node* builtin(ast::CallExpr& call) override;
  std::unique_ptr<EntryProbe> entry_probe(const ir::Probe& ret) override;

 private:
  const ir::KfuncSpec& spec_;
  const ast::ProbePoint& point_;
};

// probefunc(), probemod() and pp() in the body of a kernel-function probe
// (`site`: placed from DWARF); null for any other builtin (kfunc.cpp).
ir::Node* kfunc_builtin(Lowerer& l, const ir::KfuncSpec& spec, const ast::ProbePoint& point,
                        const debuginfo::ProbeSite* site, const std::string& name);
// The entry probe of a .return probe `ret` on the same functions (kfunc.cpp);
// its context is the caller's to add.
std::unique_ptr<EntryProbe> kfunc_entry_probe(const ir::Probe& ret);

}  // namespace stap::lower
