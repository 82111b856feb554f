// LSM hooks (stap 5.6's BPF backend): kernel.lsm("HOOK"), HOOK a glob over
// the hooks the kernel's BTF names: each LSM hook has a bpf_lsm_HOOK
// function for BPF LSM programs to attach to.  The body gets the hook's
// arguments by name ($file) or position ($arg1), typed by BTF, and
// $return, the verdict so far, which -g may set (0 allows, -errno denies).
#include <fnmatch.h>

#include <algorithm>
#include <array>

#include "elaborate/providers/provider.h"
#include "kernel/kernel_btf.h"

namespace stap {

namespace {

constexpr std::string_view kHookPrefix = "bpf_lsm_";

// The bpf_lsm_* functions of kernel/bpf/bpf_lsm.c that are BPF's own
// machinery, not hooks.
constexpr std::array<std::string_view, 8> kNotHooks = {
    "find_cgroup_shim", "func_proto", "get_retval_range", "has_d_inode_locked",
    "hook_returns_errno", "is_sleepable_hook", "is_trusted", "verify_prog"};

std::string hook_pattern(const ast::ProbePoint& point) {
  auto* s = dynamic_cast<const ast::StringLit*>(point.components[1].arg);
  return s ? s->value : std::string();
}

std::vector<std::string> running_hooks(const std::string& pattern) {
  std::string why;
  kernel::KernelBtf* btf = running_kernel_btf_if_loaded(why);
  return btf ? match_lsm_hooks(*btf, pattern) : std::vector<std::string>{};
}

class LsmProvider : public ProbeProvider {
 public:
  LsmProvider() : ProbeProvider("kernel.lsm", {"kernel.lsm(string)"}, /*resolved_later=*/true) {}

  bool matches(const ast::ProbePoint& point) const override {
    return point.components.size() >= 2 && point.components[0].functor == "kernel" &&
           point.components[1].functor == "lsm";
  }

  bool has_target_vars(const ast::ProbePoint&) const override { return true; }

  bool may_match(const ast::ProbePoint& point) const override {
    std::string why;
    if (!running_kernel_btf_if_loaded(why)) return true;  // lowering says why
    return !running_hooks(hook_pattern(point)).empty();
  }

  size_t resolve(const ast::ProbePoint& point, const ResolveRequest& request, DerivedProbe&,
                 Diagnostics& diags) const override {
    std::string why;
    if (!running_kernel_btf_if_loaded(why)) {
      if (!request.quiet)
        value_error(point, point.components[0].loc,
                    "kernel.lsm needs the kernel's type information: " + why, diags);
      return 0;
    }
    size_t found = running_hooks(hook_pattern(point)).size();
    if (found == 0 && !request.quiet)
      diags.semantic_error(point.components[0].loc,
                           "no match for kernel.lsm(\"" + hook_pattern(point) +
                               "\"): the kernel's BTF has no such LSM hook (bpf_lsm_" +
                               hook_pattern(point) + ")",
                           "identifier 'kernel'");
    return found;
  }

  std::vector<std::string> list_points(const ast::ProbePoint& point) const override {
    std::vector<std::string> out;
    for (const std::string& hook : running_hooks(hook_pattern(point)))
      out.push_back("kernel.lsm(\"" + hook + "\")");
    return out;
  }

  // stap -L: the hook's arguments with their C types, then $return.
  std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint& point) const override {
    std::vector<std::string> hooks = running_hooks(hook_pattern(point));
    std::string why;
    kernel::KernelBtf* btf = running_kernel_btf_if_loaded(why);
    if (hooks.size() != 1 || !btf) return {};
    std::optional<kernel::Function> fn = lsm_hook(*btf, hooks[0]);
    if (!fn) return {};
    std::vector<std::pair<std::string, std::string>> vars;
    for (size_t i = 0; i < fn->params.size(); ++i)
      vars.emplace_back(tracepoint_arg_name(*fn, i), kernel::KernelBtf::name(fn->params[i].type));
    vars.emplace_back("return", "int");
    return vars;
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& c = point.components[1];
    if (string_arg(c).empty()) {
      value_error(point, c.arg->loc, "empty LSM hook name", diags);
      return false;
    }
    return true;
  }
};

}  // namespace

std::vector<std::string> match_lsm_hooks(kernel::KernelBtf& btf, const std::string& pattern) {
  std::vector<std::string> out;
  for (const std::string& fn : btf.function_names("")) {
    if (!fn.starts_with(kHookPrefix)) continue;
    std::string hook = fn.substr(kHookPrefix.size());
    if (std::find(kNotHooks.begin(), kNotHooks.end(), hook) != kNotHooks.end()) continue;
    if (fnmatch(pattern.c_str(), hook.c_str(), 0) == 0) out.push_back(hook);
  }
  return out;
}

std::optional<kernel::Function> lsm_hook(kernel::KernelBtf& btf, const std::string& hook) {
  std::optional<kernel::Function> fn = btf.function(std::string(kHookPrefix) + hook, "kernel");
  if (fn) fn->name = hook;
  return fn;
}

const ProbeProvider& lsm_provider() {
  static const LsmProvider provider;
  return provider;
}

}  // namespace stap
