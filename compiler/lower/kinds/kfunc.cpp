// Kernel function points (kernel.function, module().function,
// kprobe.function, kprobe.module().function) -> ir::KfuncSpec probes.
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

#include "elaborate/providers/provider.h"
#include "lower/kinds/kfunc.h"

namespace stap::lower {

namespace {

bool is_return_point(const ast::ProbePoint& point) {
  for (const ast::ProbePointComponent& c : point.components)
    if (c.functor == "return") return true;
  return false;
}

}  // namespace

std::optional<kernel::Function> btf_function(Lowerer& l, const std::string& name,
                                             const std::string& module) {
  kernel::KernelBtf* btf = l.btf({}, {}, /*quiet=*/true);
  if (!btf) return std::nullopt;
  return btf->function(name, module);
}

void KfuncLowering::lower(const DerivedProbe& dp) {
  if (dp.user_point) {
    lower_dwarf_points(dp);  // placed from DWARF: kfunc_dwarf.cpp
    return;
  }
  std::vector<KernelFunctionRef> functions = dp.kernel_functions;
  if (functions.empty()) {
    // A program not built by pass 2's resolution (tests that assemble
    // one): resolve here, names only.
    DerivedProbe resolved = dp;
    ResolveRequest request{optional_point(dp), /*will_run=*/false};
    if (!dp.provider || dp.provider->resolve(*dp.point, request, resolved, l_.diagnostics()) == 0)
      return;
    functions = std::move(resolved.kernel_functions);
  }
  ir::KfuncSpec base;
  base.is_return = is_return_point(*dp.point);
  if (reads_probe_context(dp)) {
    for (const KernelFunctionRef& f : functions) {
      if (lower_by_dwarf(dp, f)) continue;  // kfunc_dwarf.cpp
      ir::KfuncSpec spec = base;
      spec.functions = {f.name};
      spec.module = f.module;
      std::optional<kernel::Function> fn = btf_function(l_, f.name, f.module);
      spec.arg_count = fn ? trampoline_slots(*fn) : -1;
      lower_one(dp, kernel_probe(std::move(spec), kernel_function_point(*dp.point, f)));
    }
    return;
  }
  std::map<std::string, std::vector<std::string>> by_module;
  for (const KernelFunctionRef& f : functions) by_module[f.module].push_back(f.name);
  for (auto& [module, names] : by_module) {
    ir::KfuncSpec spec = base;
    spec.module = module;
    std::string pp;
    if (names.size() == 1) {
      pp = kernel_function_point(*dp.point, {module, names[0]});
      std::optional<kernel::Function> fn = btf_function(l_, names[0], module);
      spec.arg_count = fn ? trampoline_slots(*fn) : -1;
    } else {
      // pp() is built at run time (kfunc_builtin); this names the group.
      pp = dp.point->to_string();
    }
    spec.functions = std::move(names);
    lower_one(dp, kernel_probe(std::move(spec), std::move(pp)));
  }
}

void KfuncLowering::lower_one(const DerivedProbe& dp, ir::Probe&& probe) {
  KfuncBody context(l_, probe, *dp.point);
  l_.lower_body(dp, std::move(probe), context);
}

// ---------------------------------------------------------------- bodies

KfuncBody::KfuncBody(Lowerer& l, const ir::Probe& probe, const ast::ProbePoint& point)
    : BodyContext(l), spec_(std::get<ir::KfuncSpec>(probe.spec)), point_(point) {
  // The BTF of the one function it probes (none for a group).
  if (spec_.functions.size() == 1) fn_ = btf_function(l, spec_.functions[0], spec_.module);
}

KfuncBody::KfuncBody(Lowerer& l, const ir::Probe& probe, const ast::ProbePoint& point,
                     const std::optional<kernel::Function>& fn)
    : BodyContext(l), spec_(std::get<ir::KfuncSpec>(probe.spec)), point_(point), fn_(fn) {}

ir::Node* KfuncBody::builtin(ast::CallExpr& call) {
  return kfunc_builtin(l_, spec_, point_, nullptr, call.name);
}

std::unique_ptr<EntryProbe> KfuncBody::entry_probe(const ir::Probe& ret) {
  std::unique_ptr<EntryProbe> e = kfunc_entry_probe(ret);
  e->context = std::make_unique<KfuncBody>(l_, e->probe, point_, fn_);
  return e;
}

std::unique_ptr<EntryProbe> kfunc_entry_probe(const ir::Probe& ret) {
  const ir::KfuncSpec& r = std::get<ir::KfuncSpec>(ret.spec);
  auto e = std::make_unique<EntryProbe>();
  ir::KfuncSpec spec;
  spec.functions = r.functions;
  spec.offsets = r.offsets;  // placed from DWARF: the function's entry (offset 0)
  spec.module = r.module;
  spec.arg_count = r.arg_count;
  spec.is_return = false;
  e->probe.context = ir::Context::kernel;
  e->probe.spec = std::move(spec);
  e->probe.pp = ret.pp;
  if (e->probe.pp.ends_with(".return")) e->probe.pp.resize(e->probe.pp.size() - 7);
  return e;
}

// probefunc(), probemod() and pp() in the body of a kfunc probe: literals
// when it probes one function; for a group the function's name is read at
// run time.  probefunc() is stap's symname(addr()): the probed function's
// own name (stap points a .return probe's registers at the function too).
// probemod() is "kernel" for vmlinux, as stap's module table names it.
// Null for anything else (the builtin is lowered as usual).
ir::Node* kfunc_builtin(Lowerer& l, const ir::KfuncSpec& spec, const ast::ProbePoint& point,
                        const debuginfo::ProbeSite* site, const std::string& name) {
  if (name == "probemod") return l.str(spec.module.empty() ? "kernel" : spec.module);
  if (name != "probefunc" && name != "pp") return nullptr;
  if (spec.functions.size() == 1) {
    if (name == "probefunc") return l.str(site ? site->function : spec.functions[0]);
    return nullptr;  // pp: the probe's literal pp
  }
  ir::Node* fn = l.make(ir::Op::fn_name, ir::Type::string);
  if (name == "probefunc") return fn;
  if (!spec.site_points.empty()) {
    fn->b = 1;  // placed from DWARF: each site's point
    return fn;
  }
  // pp(): the group's point around the running function's name.
  KernelFunctionRef marker{spec.module, "@FN@"};
  std::string text = kernel_function_point(point, marker);
  size_t at = text.find("@FN@");
  ir::Node* left = l.make(ir::Op::concat, ir::Type::string);
  left->kids = {l.str(text.substr(0, at)), fn};
  ir::Node* whole = l.make(ir::Op::concat, ir::Type::string);
  whole->kids = {left, l.str(text.substr(at + 4))};
  return whole;
}

std::unique_ptr<KindLowering> make_kfunc_lowering(Lowerer& l) {
  return std::make_unique<KfuncLowering>(l);
}

}  // namespace stap::lower
