// Kernel function and statement points placed from DWARF
// (kernel.function("f@file.c[:N]"), .statement("f@file.c:N"),
// .function/.statement(ADDR), the same under module("M")) -> KfuncSpec
// probes whose kprobes sit at a function symbol + offset (the spec's
// functions and offsets, one entry per site; the loader passes the offset).
//
// Pass 2 resolved the point over the kernel's DWARF
// (debuginfo/kernel_dwarf.h) into DerivedProbe::user_point.  As for
// process probes, a body that reads target variables gets one probe per
// site, with the site in its KfuncDwarfBody, so the DWARF variables of
// dwarf_vars.cpp ($local, $$locals, $$vars, @var, $return) are
// read at it: registers from the kprobe's pt_regs, memory with kread, and
// link-time addresses moved to where the running kernel has them (the
// symbol holding the address, found again in kallsyms).  Another body is
// one probe over every site.
#include <deque>

#include "ast/visitor.h"
#include "debuginfo/kernel_dwarf.h"
#include "elaborate/providers/provider.h"
#include "lower/kinds/kfunc.h"

namespace stap::lower {

namespace di = debuginfo;

namespace {

// The target variables a body names ($x, $$locals ...), not @cast's.
struct TargetNames : ast::TraversingVisitor {
  std::set<std::string> names;
  void visit(ast::TargetSymbol& n) override {
    names.insert(n.name);
    ast::TraversingVisitor::visit(n);
  }
};

// Whether a body reads what the function's BTF does not describe.
bool needs_dwarf(const DerivedProbe& dp, const std::optional<kernel::Function>& fn) {
  TargetNames use;
  if (dp.decl->body) dp.decl->body->accept(use);
  if (dp.point->condition) dp.point->condition->accept(use);
  for (const std::string& name : use.names) {
    if (name == "$$locals" || name == "$$vars") return true;
    if (name.starts_with("$$") || name == "$return") continue;
    if (!fn) return true;
    bool param = false;
    for (const kernel::Param& p : fn->params) param = param || "$" + p.name == name;
    if (!param) return true;
  }
  return false;
}

}  // namespace

bool KfuncLowering::lower_by_dwarf(const DerivedProbe& dp, const KernelFunctionRef& f) {
  std::optional<kernel::Function> fn = btf_function(l_, f.name, f.module);
  if (!needs_dwarf(dp, fn)) return false;
  // Each point resolved here lives as long as the compiler (sites are
  // pointed at while the body is lowered).
  static std::deque<di::ResolvedPoint> resolved;
  di::ProcessPattern p;
  p.kind = "function";
  p.spec = f.name;
  for (const ast::ProbePointComponent& c : dp.point->components)
    if (c.functor == "return" || c.functor == "call") p.suffix = "." + c.functor;
  di::ResolvedPoint r;
  std::string why;
  if (!di::resolve_kernel_point(p, f.module, r, why)) return false;  // BTF then says what it can
  std::erase_if(r.sites, [&](const di::ProbeSite& s) { return s.symbol != f.name || s.fn->inlined; });
  if (r.sites.empty()) return false;
  r.sites.resize(1);
  // pp() names the function as the script did, as for BTF points.
  r.sites[0].point = kernel_function_point(*dp.point, f);
  resolved.push_back(std::move(r));
  DerivedProbe one = dp;
  one.user_point = std::shared_ptr<const di::ResolvedPoint>(std::shared_ptr<void>(), &resolved.back());
  lower_dwarf_points(one);
  return true;
}

void KfuncLowering::lower_dwarf_points(const DerivedProbe& dp) {
  const di::ResolvedPoint& r = *dp.user_point;
  ir::KfuncSpec base;
  base.is_return = r.is_return;
  base.module = r.process == "kernel" ? "" : r.process;
  base.arg_count = -1;  // kprobes only: they take an offset and give pt_regs
  if (reads_probe_context(dp)) {
    for (const di::ProbeSite& s : r.sites) {
      ir::KfuncSpec spec = base;
      spec.functions = {s.symbol};
      spec.offsets = {s.offset};
      spec.site_points = {s.point};
      ir::Probe probe = kernel_probe(std::move(spec), s.point);
      KfuncDwarfBody context(l_, probe, *dp.point, r, s);
      l_.lower_body(dp, std::move(probe), context);
    }
    return;
  }
  // No variables read: one probe over every site, whose body knows its
  // function (and the BTF one, as a function probe's does) from its spec.
  ir::KfuncSpec spec = base;
  for (const di::ProbeSite& s : r.sites) {
    spec.functions.push_back(s.symbol);
    spec.offsets.push_back(s.offset);
    spec.site_points.push_back(s.point);
  }
  lower_one(dp, kernel_probe(std::move(spec),
                         r.sites.size() == 1 ? r.sites[0].point : dp.point->to_string()));
}

KfuncDwarfBody::KfuncDwarfBody(Lowerer& l, const ir::Probe& probe, const ast::ProbePoint& point,
                               const di::ResolvedPoint& resolved, const di::ProbeSite& site)
    : DwarfSiteBody(l, DwarfSite{&resolved, &site, /*kernel=*/true,
                                 std::get<ir::KfuncSpec>(probe.spec).is_return}),
      spec_(std::get<ir::KfuncSpec>(probe.spec)), point_(point) {}

ir::Node* KfuncDwarfBody::builtin(ast::CallExpr& call) {
  return kfunc_builtin(l_, spec_, point_, site_.site, call.name);
}

std::unique_ptr<EntryProbe> KfuncDwarfBody::entry_probe(const ir::Probe& ret) {
  std::unique_ptr<EntryProbe> e = kfunc_entry_probe(ret);
  e->context = std::make_unique<KfuncDwarfBody>(l_, e->probe, point_, *site_.point, *site_.site);
  return e;
}

}  // namespace stap::lower
