// LSM hooks (kernel.lsm("HOOK")): one ir::LsmSpec probe per hook the
// pattern matches in vmlinux's BTF, a BPF LSM program whose context is the
// hook's arguments (btf_args.h), then the verdict of the BPF LSM programs
// run before it.  $return reads that verdict; `$return = -13` (-g, checked
// in pass 2) makes it this program's, so the operation fails with EACCES.
// $ctx, as in stap's BPF backend, is the address of that context: the
// arguments, one u64 each (kernel_long($ctx + 8) is the second).
#include "elaborate/providers/provider.h"
#include "lower/kinds/btf_args.h"
#include "lower/kinds/kinds.h"

namespace stap::lower {

namespace {

class LsmBody : public BtfArgsBody {
 public:
  LsmBody(Lowerer& l, kernel::Function hook) : BtfArgsBody(l, hook, "LSM hook " + hook.name) {}

  ir::Node* assign_target(ast::TargetSymbol& n, ir::Node* value) override {
    if (!is_return(n)) return nullptr;
    ir::Node* set = l_.make(ir::Op::set_verdict, ir::Type::long_);
    set->kids = {value};
    return set;
  }

 protected:
  ir::Node* special(ast::TargetSymbol& n) override {
    if (is_ctx(n)) return l_.make(ir::Op::ctx_address, ir::Type::long_);
    if (!is_return(n)) return nullptr;
    // The slot after the arguments: an int.
    ir::Node* v = l_.make(ir::Op::fn_arg, ir::Type::long_);
    v->a = static_cast<int64_t>(fn().params.size());
    v->b = 4;
    v->c = 1;
    return v;
  }
  bool special_exists(const ast::TargetSymbol& n) const override {
    return is_ctx(n) || is_return(n);
  }

 private:
  static bool is_ctx(const ast::TargetSymbol& n) {
    return n.name == "$ctx" && n.components.empty() && !n.address_of;
  }
  // $return: hooks that return void have no verdict.
  bool is_return(const ast::TargetSymbol& n) const {
    return n.name == "$return" && n.components.empty() && fn().ret.id != 0;
  }
};

class LsmLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePoint& point = *dp.point;
    const ast::ProbePointComponent& head = point.components[0];
    auto* lit = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
    std::string pattern = lit ? lit->value : std::string();
    kernel::KernelBtf* btf = l_.btf(head.loc, "identifier 'kernel'", /*quiet=*/optional_point(dp));
    if (!btf) return;
    std::vector<std::string> hooks = match_lsm_hooks(*btf, pattern);
    if (hooks.empty()) {
      if (optional_point(dp)) return;
      l_.error(head.loc, "no match for kernel.lsm(\"" + pattern + "\")", "identifier 'kernel'");
      return;
    }
    for (const std::string& hook : hooks) {
      std::optional<kernel::Function> fn = lsm_hook(*btf, hook);
      if (!fn) continue;
      ir::LsmSpec spec{hook, static_cast<int64_t>(fn->params.size()), fn->ret.id != 0};
      ir::Probe probe = kernel_probe(std::move(spec), "kernel.lsm(\"" + hook + "\")");
      LsmBody context(l_, std::move(*fn));
      l_.lower_body(dp, std::move(probe), context);
    }
  }
};

}  // namespace

std::unique_ptr<KindLowering> make_lsm_lowering(Lowerer& l) {
  return std::make_unique<LsmLowering>(l);
}

}  // namespace stap::lower
