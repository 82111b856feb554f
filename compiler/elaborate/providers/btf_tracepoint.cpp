// BTF tracepoints (stap 5.6): kernel.tracepoint("NAME") and
// module("M").tracepoint("NAME"), NAME a glob over the tracepoints whose
// btf_trace_NAME typedef the kernel's (or the module's) BTF has.  Their
// arguments are typed by that typedef, so $prev->pid needs no @cast; they
// are named as the kernel's __probestub_NAME names them, and $arg1 ...
// name them by position too.  Unlike kernel.trace there is no "system:"
// part.
#include <fnmatch.h>

#include "elaborate/program.h"
#include "elaborate/providers/provider.h"
#include "kernel/kernel_btf.h"

namespace stap {

namespace {

// The running kernel's matches (pass 2 and -l/-L; pass 3 asks its own BTF).
std::vector<std::string> running_matches(const std::string& pattern, const std::string& module) {
  std::string why;
  kernel::KernelBtf* btf = running_kernel_btf_if_loaded(why);
  return btf ? match_btf_tracepoints(*btf, pattern, module) : std::vector<std::string>{};
}

struct Query {
  std::string pattern;
  std::string module;  // "" for vmlinux
  bool module_point = false;
};

Query read_query(const ast::ProbePoint& point) {
  Query q;
  q.module_point = point.components[0].functor == "module";
  auto arg = [](const ast::ProbePointComponent& c) {
    auto* s = dynamic_cast<const ast::StringLit*>(c.arg);
    return s ? s->value : std::string();
  };
  if (q.module_point) q.module = arg(point.components[0]);
  q.pattern = arg(point.components[1]);
  return q;
}

std::string point_text(const Query& q, const std::string& name) {
  std::string head = q.module_point ? "module(\"" + q.module + "\")" : "kernel";
  return head + ".tracepoint(\"" + name + "\")";
}

class BtfTracepointProvider : public ProbeProvider {
 public:
  BtfTracepointProvider()
      : ProbeProvider("kernel.tracepoint",
                      {"kernel.tracepoint(string)", "module(string).tracepoint(string)"},
                      /*resolved_later=*/true) {}

  bool matches(const ast::ProbePoint& point) const override {
    if (point.components.size() < 2 || point.components[1].functor != "tracepoint") return false;
    const std::string& head = point.components[0].functor;
    return head == "kernel" || head == "module";
  }

  bool has_target_vars(const ast::ProbePoint&) const override { return true; }

  bool may_match(const ast::ProbePoint& point) const override {
    std::string why;
    if (!running_kernel_btf_if_loaded(why)) return true;  // lowering says why
    Query q = read_query(point);
    return !running_matches(q.pattern, q.module).empty();
  }

  size_t resolve(const ast::ProbePoint& point, const ResolveRequest& request, DerivedProbe&,
                 Diagnostics& diags) const override {
    std::string why;
    Query q = read_query(point);
    if (!running_kernel_btf_if_loaded(why)) {
      if (!request.quiet)
        value_error(point, point.components[0].loc,
                    "kernel.tracepoint needs the kernel's type information: " + why, diags);
      return 0;
    }
    size_t found = running_matches(q.pattern, q.module).size();
    if (found == 0 && !request.quiet)
      diags.semantic_error(point.components[0].loc,
                           "no match for " + point_text(q, q.pattern),
                           "identifier '" + point.components[0].functor + "'");
    return found;
  }

  std::vector<std::string> list_points(const ast::ProbePoint& point) const override {
    Query q = read_query(point);
    std::vector<std::string> out;
    for (const std::string& name : running_matches(q.pattern, q.module))
      out.push_back(point_text(q, name));
    return out;
  }

  // stap -L: $arg1 ... with the C types of the callback's parameters.
  std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint& point) const override {
    Query q = read_query(point);
    std::vector<std::string> names = running_matches(q.pattern, q.module);
    std::string why;
    kernel::KernelBtf* btf = running_kernel_btf_if_loaded(why);
    if (names.size() != 1 || !btf) return {};
    std::optional<kernel::Function> tp = btf->tracepoint(names[0], q.module);
    if (!tp) return {};
    std::vector<std::pair<std::string, std::string>> vars;
    for (size_t i = 0; i < tp->params.size(); ++i)
      vars.emplace_back(tracepoint_arg_name(*tp, i), kernel::KernelBtf::name(tp->params[i].type));
    return vars;
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    const ast::ProbePointComponent& c = point.components[1];
    const std::string& name = string_arg(c);
    if (name.empty()) {
      value_error(point, c.arg->loc, "empty tracepoint name", diags);
      return false;
    }
    if (name.find(':') != std::string::npos) {
      value_error(point, c.arg->loc,
                  "kernel.tracepoint() does not use system:name syntax; use the tracepoint "
                  "name only",
                  diags);
      return false;
    }
    return true;
  }
};

}  // namespace

std::string tracepoint_arg_name(const kernel::Function& tp, size_t i) {
  const std::string& name = tp.params[i].name;
  return name.empty() ? "arg" + std::to_string(i + 1) : name;
}

std::vector<std::string> match_btf_tracepoints(kernel::KernelBtf& btf, const std::string& pattern,
                                               const std::string& module) {
  std::vector<std::string> out;
  for (const std::string& name : btf.tracepoint_names(module))
    if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) out.push_back(name);
  return out;
}

const ProbeProvider& btf_tracepoint_provider() {
  static const BtfTracepointProvider provider;
  return provider;
}

}  // namespace stap
