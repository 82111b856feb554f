// Kernel function and statement points placed from DWARF
// (kernel.function("f@file.c[:N]"), .statement("f@file.c:N"),
// .function/.statement(ADDR), the same under module("M")) -> kfunc probes
// whose kprobes sit at a function symbol + offset (Probe::functions and
// Probe::offsets, one entry per site; the loader passes the offset).
//
// Pass 2 resolved the point over the kernel's DWARF
// (debuginfo/kernel_dwarf.h) into DerivedProbe::user_point.  As for
// process probes, a body that reads target variables gets one probe per
// site, with the site in BodyState::uprobe_site, so the DWARF variables of
// lower_uprobe_target.cpp ($local, $$locals, $$vars, @var, $return) are
// read at it: registers from the kprobe's pt_regs, memory with kread, and
// link-time addresses moved to where the running kernel has them (the
// symbol holding the address, found again in kallsyms).  Another body is
// one probe over every site.
#include <gelf.h>

#include <deque>
#include <fstream>
#include <map>

#include "ast/visitor.h"
#include "debuginfo/kernel_dwarf.h"
#include "elaborate/providers/provider.h"
#include "lower/lowerer.h"

namespace stap::lower {

namespace di = debuginfo;

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct ElfSym {
  uint64_t address = 0, size = 0;
  std::string name;
};

// Every named, defined object and function symbol of a binary's .symtab,
// sorted by address (the data symbols ElfFile does not keep).
const std::vector<ElfSym>& all_symbols(const di::Binary& bin) {
  static std::map<const di::Binary*, std::vector<ElfSym>> cache;
  auto [it, fresh] = cache.try_emplace(&bin);
  if (!fresh) return it->second;
  Elf* elf = bin.elf->elf();
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym s;
      if (!gelf_getsym(data, static_cast<int>(i), &s) || s.st_shndx == SHN_UNDEF) continue;
      int type = GELF_ST_TYPE(s.st_info);
      if (type != STT_OBJECT && type != STT_FUNC) continue;
      const char* name = elf_strptr(elf, sh.sh_link, s.st_name);
      if (name && *name) it->second.push_back({s.st_value, s.st_size, name});
    }
  }
  std::sort(it->second.begin(), it->second.end(),
            [](const ElfSym& a, const ElfSym& b) { return a.address < b.address; });
  return it->second;
}

// The symbol holding `address` (within its size).
const ElfSym* symbol_at(const di::Binary& bin, uint64_t address) {
  const std::vector<ElfSym>& syms = all_symbols(bin);
  auto it = std::upper_bound(syms.begin(), syms.end(), address,
                             [](uint64_t a, const ElfSym& s) { return a < s.address; });
  while (it != syms.begin()) {
    --it;
    if (address < it->address + std::max<uint64_t>(it->size, 1)) return &*it;
    if (it->address + it->size <= address && it->size) break;
  }
  return nullptr;
}

// The running kernel's address of `name` in `module` ("" vmlinux), any
// symbol type; 0 when kallsyms has none.
uint64_t kallsyms_address(const std::string& name, const std::string& module) {
  static std::map<std::pair<std::string, std::string>, uint64_t> cache;
  auto key = std::make_pair(name, module);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::ifstream in("/proc/kallsyms");
  std::string line;
  uint64_t found = 0;
  std::string tail = " " + name;
  while (std::getline(in, line)) {
    size_t end = line.find('\t');
    std::string head = line.substr(0, end);
    if (!head.ends_with(tail)) continue;
    std::string mod = end == std::string::npos ? "" : line.substr(end + 1);
    if (mod.size() >= 2) mod = mod.substr(1, mod.size() - 2);
    if (mod != module) continue;
    found = std::stoull(head.substr(0, head.find(' ')), nullptr, 16);
    break;
  }
  return cache[key] = found;
}

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

bool Lowerer::lower_kfunc_by_dwarf(const DerivedProbe& dp, const KernelFunctionRef& f) {
  std::optional<kernel::Function> fn = running_kernel_btf().function(f.name, f.module);
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
  lower_kfunc_dwarf_points(one);
  return true;
}

void Lowerer::lower_kfunc_dwarf_points(const DerivedProbe& dp) {
  const di::ResolvedPoint& r = *dp.user_point;
  ir::Probe base;
  base.kind = ir::ProbeKind::kfunc;
  base.context = ir::Context::kernel;
  base.is_return = r.is_return;
  base.module = r.process == "kernel" ? "" : r.process;
  base.arg_count = -1;  // kprobes only: they take an offset and give pt_regs
  if (reads_probe_context(dp)) {
    for (const di::ProbeSite& s : r.sites) {
      ir::Probe probe = base;
      probe.functions = {s.symbol};
      probe.offsets = {s.offset};
      probe.site_points = {s.point};
      probe.pp = s.point;
      uprobe_point_ = &r;
      uprobe_site_ = &s;
      lower_body(dp, std::move(probe));
      uprobe_point_ = nullptr;
      uprobe_site_ = nullptr;
    }
    return;
  }
  ir::Probe probe = base;
  for (const di::ProbeSite& s : r.sites) {
    probe.functions.push_back(s.symbol);
    probe.offsets.push_back(s.offset);
    probe.site_points.push_back(s.point);
  }
  probe.pp = r.sites.size() == 1 ? r.sites[0].point : dp.point->to_string();
  lower_body(dp, std::move(probe));
}

bool Lowerer::dwarf_kernel() const {
  return body_ && !body_->uprobe_probe && body_->uprobe_site;
}

const di::ProbeSite* Lowerer::dwarf_site() const {
  return body_ ? body_->uprobe_site : nullptr;
}

bool Lowerer::dwarf_return() const {
  if (!body_) return false;
  if (body_->uprobe_probe) return body_->uprobe_probe->is_return;
  return body_->kfunc_return;
}

ir::Node* Lowerer::kernel_dwarf_address(const di::Binary& bin, const std::string& module_arg,
                                         uint64_t address, SourceLoc loc, const std::string& token) {
  std::string module = module_arg.empty() ? "" : di::module_name_of(module_arg);
  const ElfSym* sym = symbol_at(bin, address);
  uint64_t runtime = sym ? kallsyms_address(sym->name, module) : 0;
  if (!runtime) {
    error(loc,
          token + " is at " + hex(address) + " in " + bin.path + ", " +
              (sym ? "in symbol " + sym->name + ", which /proc/kallsyms does not list"
                   : "which no symbol holds") +
              (module.empty() ? "" : " (module " + module + ")"),
          token);
    return nullptr;
  }
  return num(static_cast<int64_t>(runtime + (address - sym->address)));
}

}  // namespace stap::lower
