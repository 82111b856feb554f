// The body of a probe whose context is a BPF trampoline's argument slots,
// one u64 per argument of a function BTF describes: BTF tracepoints
// (btf_tracepoint.cpp) and LSM hooks (lsm.cpp).
//   $NAME, $argN          argument N (1-based), by the kernel's name or by
//                         position; $p->f ... as for kernel functions
//   $$parms, $$vars       "a=0x... b=0x..." ($$parms$ pretty)
//   $$locals              empty: BTF describes no locals
// A kind adds its own variables by overriding special() and special_exists().
#pragma once

#include "kernel/kernel_btf.h"
#include "lower/body_context.h"
#include "lower/target_path.h"

namespace stap::lower {

class BtfArgsBody : public BodyContext {
 public:
  // `what` names the probed thing in messages ("tracepoint sched_switch").
  BtfArgsBody(Lowerer& l, kernel::Function fn, std::string what)
      : BodyContext(l), fn_(std::move(fn)), what_(std::move(what)) {}

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override;
  std::optional<bool> target_exists(const ast::Expr& e) override;

 protected:
  // The kind's own variable `n` ($$name, $return ...): its value, or null
  // when `n` is not one.
  virtual ir::Node* special(ast::TargetSymbol&) { return nullptr; }
  virtual bool special_exists(const ast::TargetSymbol&) const { return false; }

  const kernel::Function& fn() const { return fn_; }

 private:
  std::optional<size_t> index_of(const std::string& name) const;
  bool base(const ast::TargetSymbol& n, Place& p, bool quiet);
  ir::Node* all_vars(ast::TargetSymbol& n);

  kernel::Function fn_;
  std::string what_;
};

}  // namespace stap::lower
