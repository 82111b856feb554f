// netfilter.hook("H").pf("P")[.priority("N")] (ir::NetfilterSpec): a BPF
// netfilter program whose context is struct bpf_nf_ctx, {state, skb}.  The
// target variables read through it, typed by the kernel's BTF (so
// $skb->len and $in->name work without @cast, besides stap's plain
// numbers):
//   $skb                  ctx->skb
//   $hooknum $in $out $okfn
//                         ctx->state->hook, ->in, ->out, ->okfn
//   $verdict              the verdict so far (NF_ACCEPT at the start); -g
//                         may set it (checked in pass 2): NF_DROP drops the
//                         packet
#include "elaborate/providers/provider.h"
#include "elaborate/typecheck.h"
#include "kernel/kernel_btf.h"
#include "lower/kinds/kinds.h"
#include "lower/target_path.h"

namespace stap::lower {

namespace {

// The ctx slots (struct bpf_nf_ctx).
constexpr int64_t kStateSlot = 0, kSkbSlot = 1;

class NetfilterBody : public BodyContext {
 public:
  NetfilterBody(Lowerer& l, kernel::Type state, kernel::Type skb)
      : BodyContext(l), state_(state), skb_(skb) {}

  ir::Node* target(ast::TargetSymbol& n, bool any_type) override {
    if (n.name == "$verdict") return l_.make(ir::Op::verdict, ir::Type::long_);
    Place p;
    if (!base(n, p, /*quiet=*/false)) return l_.num(0);
    return finish_path(l_, n, p, n.components, n.address_of, n.pretty, any_type);
  }

  ir::Node* assign_target(ast::TargetSymbol& n, ir::Node* value) override {
    if (n.name != "$verdict") return nullptr;
    ir::Node* set = l_.make(ir::Op::set_verdict, ir::Type::long_);
    set->kids = {value};
    return set;
  }

  std::optional<bool> target_exists(const ast::Expr& e) override {
    auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
    if (!t) return std::nullopt;
    if (t->name == "$verdict") return t->components.empty();
    Place p;
    if (!base(*t, p, /*quiet=*/true)) return false;
    return path_exists(l_, *t, p, t->components, t->address_of, t->pretty);
  }

 private:
  static ir::Node* slot(Lowerer& l, int64_t i) {
    ir::Node* v = l.make(ir::Op::fn_arg, ir::Type::long_);
    v->a = i;
    v->b = 8;
    return v;
  }

  // Where $NAME starts: the skb, or a member of the hook's state.
  bool base(const ast::TargetSymbol& n, Place& p, bool quiet) {
    if (n.name == "$skb") {
      p = Place{TType::of(skb_), slot(l_, kSkbSlot)};
      return true;
    }
    const char* field = n.name == "$hooknum" ? "hook"
                        : n.name == "$in"    ? "in"
                        : n.name == "$out"   ? "out"
                        : n.name == "$okfn"  ? "okfn"
                                             : nullptr;
    if (!field) {
      if (!quiet) l_.error(n.loc, "unsupported context variable", describe_expr(n));
      return false;
    }
    p = Place{TType::of(state_), slot(l_, kStateSlot)};
    TypePath path(l_, n.loc, describe_expr(n), quiet);
    return path.member(p, field, n.loc, n.name);
  }

  kernel::Type state_, skb_;  // const struct nf_hook_state *, struct sk_buff *
};

class NetfilterLowering : public KindLowering {
 public:
  using KindLowering::KindLowering;

  void lower(const DerivedProbe& dp) override {
    const ast::ProbePoint& point = *dp.point;
    const ast::ProbePointComponent& head = point.components[0];
    const std::string token = "identifier 'netfilter'";
    std::string error;
    SourceLoc where;
    std::optional<NetfilterHook> hook = netfilter_hook(point, error, where);
    if (!hook) {
      l_.error(where, error, token);
      return;
    }
    kernel::KernelBtf* btf = l_.btf(head.loc, token, /*quiet=*/false);
    if (!btf) return;
    // The program's context; its members give the variables' types.
    std::optional<kernel::Type> ctx = btf->find_type("bpf_nf_ctx");
    std::optional<kernel::Member> state, skb;
    if (ctx) {
      state = kernel::KernelBtf::member(*ctx, "state");
      skb = kernel::KernelBtf::member(*ctx, "skb");
    }
    if (!state || !skb) {
      l_.error(head.loc,
               "netfilter probes need BPF netfilter programs (BPF_PROG_TYPE_NETFILTER, Linux "
               "6.4 or later with CONFIG_NETFILTER_BPF_LINK): the kernel's BTF has no struct "
               "bpf_nf_ctx",
               token);
      return;
    }
    ir::NetfilterSpec spec{hook->pf, hook->hook, hook->priority};
    ir::Probe probe = kernel_probe(std::move(spec), point.to_string());
    NetfilterBody context(l_, state->type, skb->type);
    l_.lower_body(dp, std::move(probe), context);
  }
};

}  // namespace

std::unique_ptr<KindLowering> make_netfilter_lowering(Lowerer& l) {
  return std::make_unique<NetfilterLowering>(l);
}

}  // namespace stap::lower
