// Kernel function points (kernel.function, module().function,
// kprobe.function, kprobe.module().function) -> ir::Probe of kind kfunc.
//
// Pass 2 resolved each point to its functions (DerivedProbe::
// kernel_functions).  A body that reads target variables ($x, $$parms,
// @entry) needs the one function's parameters, so it becomes one probe per
// function; any other body becomes one probe per module over all its
// functions, which the runtime attaches at once (kprobe.multi): a body
// that only counts over `kernel.function("*")` is one program, not 30000.
// In such a probe the function being run is known only at run time, so
// probefunc() and pp() read it (Op::fn_name).
#include <map>

#include "ast/visitor.h"
#include "debuginfo/process_points.h"
#include "elaborate/providers/provider.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace {

bool is_return_point(const ast::ProbePoint& point) {
  for (const ast::ProbePointComponent& c : point.components)
    if (c.functor == "return") return true;
  return false;
}

// Whether a failure to resolve must stay silent (as lower_probe.cpp's).
bool optional_point(const DerivedProbe& dp) {
  if (dp.point->optional || dp.point->sufficient) return true;
  for (const ast::ProbePoint* p : dp.decl->derived_from)
    if (p->optional || p->sufficient) return true;
  return false;
}

}  // namespace

namespace {

// Finds a target variable ($x, $$parms, $return) or @entry(...).
struct TargetUse : ast::TraversingVisitor {
  bool found = false;
  void visit(ast::TargetSymbol& n) override {
    found = true;
    ast::TraversingVisitor::visit(n);
  }
  void visit(ast::AtOp& n) override {
    if (n.op == "entry") found = true;
    ast::TraversingVisitor::visit(n);
  }
};

}  // namespace

bool reads_probe_context(const DerivedProbe& dp) {
  TargetUse use;
  if (dp.decl->body) dp.decl->body->accept(use);
  if (dp.point->condition) dp.point->condition->accept(use);
  return use.found;
}

void Lowerer::lower_kfunc_points(const DerivedProbe& dp) {
  if (dp.user_point) {
    lower_kfunc_dwarf_points(dp);  // placed from DWARF: lower_kfunc_dwarf.cpp
    return;
  }
  std::vector<KernelFunctionRef> functions = dp.kernel_functions;
  if (functions.empty()) {
    // A program not built by pass 2's resolution (tests that assemble
    // one): resolve here, names only.
    DerivedProbe resolved = dp;
    ResolveRequest request{optional_point(dp), /*will_run=*/false};
    if (!dp.provider || dp.provider->resolve(*dp.point, request, resolved, diags_) == 0) return;
    functions = std::move(resolved.kernel_functions);
  }
  ir::Probe base;
  base.kind = ir::ProbeKind::kfunc;
  base.context = ir::Context::kernel;
  base.is_return = is_return_point(*dp.point);
  if (reads_probe_context(dp)) {
    for (const KernelFunctionRef& f : functions) {
      if (lower_kfunc_by_dwarf(dp, f)) continue;  // lower_kfunc_dwarf.cpp
      ir::Probe probe = base;
      probe.functions = {f.name};
      probe.module = f.module;
      probe.pp = kernel_function_point(*dp.point, f);
      std::optional<kernel::Function> fn = running_kernel_btf().function(f.name, f.module);
      probe.arg_count = fn ? static_cast<int64_t>(fn->params.size()) : -1;
      lower_body(dp, std::move(probe));
    }
    return;
  }
  std::map<std::string, std::vector<std::string>> by_module;
  for (const KernelFunctionRef& f : functions) by_module[f.module].push_back(f.name);
  for (auto& [module, names] : by_module) {
    ir::Probe probe = base;
    probe.module = module;
    if (names.size() == 1) {
      probe.pp = kernel_function_point(*dp.point, {module, names[0]});
      std::optional<kernel::Function> fn = running_kernel_btf().function(names[0], module);
      probe.arg_count = fn ? static_cast<int64_t>(fn->params.size()) : -1;
    } else {
      // pp() is built at run time (kfunc_builtin); this names the group.
      probe.pp = dp.point->to_string();
    }
    probe.functions = std::move(names);
    lower_body(dp, std::move(probe));
  }
}

// What the body of a kfunc probe reads its function from: the BTF of the
// one function it probes (none for a group, or a function without BTF).
void Lowerer::kfunc_context(BodyState& state, const ir::Probe& probe,
                            std::optional<kernel::Function>& holder) {
  state.kfunc_probe = &probe;
  state.kfunc_return = probe.is_return;
  // A probe placed from DWARF (lower_kfunc_dwarf.cpp): its site.
  state.uprobe_point = uprobe_point_;
  state.uprobe_site = uprobe_site_;
  if (probe.functions.size() != 1 || uprobe_site_) return;
  holder = running_kernel_btf().function(probe.functions[0], probe.module);
  if (holder) state.kfunc = &*holder;
}

// probefunc(), probemod() and pp() in the body of a kfunc probe: literals
// when it probes one function; for a group the function's name is read at
// run time.  probefunc() is stap's symname(addr()): the probed function's
// own name (stap points a .return probe's registers at the function too).
// probemod() is "kernel" for vmlinux, as stap's module table names it.
// Null for anything else (the builtin is lowered as usual).
ir::Node* Lowerer::kfunc_builtin(const std::string& name) {
  const ir::Probe* probe = body_ ? body_->kfunc_probe : nullptr;
  if (!probe || body_->in_function) return nullptr;
  if (name == "probemod") return str(probe->module.empty() ? "kernel" : probe->module);
  if (name != "probefunc" && name != "pp") return nullptr;
  const debuginfo::ProbeSite* site = body_->uprobe_site;
  if (probe->functions.size() == 1) {
    if (name == "probefunc") return str(site ? site->function : probe->functions[0]);
    return nullptr;  // pp: the probe's literal pp
  }
  ir::Node* fn = make(ir::Op::fn_name, ir::Type::string);
  if (name == "probefunc") return fn;
  if (!probe->site_points.empty()) {
    fn->b = 1;  // placed from DWARF: each site's point
    return fn;
  }
  // pp(): the group's point around the running function's name.
  const ast::ProbePoint& point = *body_->kfunc_point;
  KernelFunctionRef marker{probe->module, "@FN@"};
  std::string text = kernel_function_point(point, marker);
  size_t at = text.find("@FN@");
  ir::Node* left = make(ir::Op::concat, ir::Type::string);
  left->kids = {str(text.substr(0, at)), fn};
  ir::Node* whole = make(ir::Op::concat, ir::Type::string);
  whole->kids = {left, str(text.substr(at + 4))};
  return whole;
}

}  // namespace stap::lower
