// DWARF variables of process("P").function/.statement probes, walked by
// the same TypePath as kernel functions' BTF variables (target_path.h):
//   $param, $local        the variables in scope at the site's pc (inner
//                         blocks first), then the unit's file-scope ones
//   $return               fn_ret, sized and signed by the DWARF return type
//   $$parms/$$locals/$$vars/$$return, $x$, $x$$  vars_text, pretty_place
//   @var("x@file.c"[, "/path"]), @cast(p, "type"[, "/path"])
// In a .return probe every variable but $return is read at entry
// (entry_values.cpp), as stap does.
//
// A variable's location at the site (DwarfFile::location: a small op
// program) becomes IR: registers are the saved user registers (`reg`, a
// pt_regs offset), memory reads are `uread`s of the probed process, and a
// link-time address (DW_OP_addr: statics and globals) gets the load bias
// of a PIE or shared object added.  At an entry or statement uprobe the
// saved ip is the site's runtime address, so the bias is ip - site.pc; a
// .return body takes it from its entry probe.
//
// Kernel functions and statements placed from the kernel's DWARF
// (kinds/kfunc_dwarf.cpp) share all of this: their reads are `kread`s,
// and a link-time address is moved to where the running kernel has it
// (kernel_dwarf_address) instead of adding a load bias.
#include <gelf.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "debuginfo/binary_path.h"
#include "debuginfo/kernel_dwarf.h"
#include "debuginfo/process_points.h"
#include "elaborate/typecheck.h"
#include "lower/dwarf_vars.h"
#include "lower/target_path.h"

namespace stap::lower {

namespace di = debuginfo;

namespace {

constexpr int64_t kIpOffset = 128;  // struct pt_regs' ip on x86-64

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

ir::Node* binary(Lowerer& l, ir::Op op, ir::Node* a, ir::Node* b) {
  ir::Node* n = l.make(op, ir::Type::long_);
  n->kids = {a, b};
  return n;
}

// The low `size` bytes of a long, sign- or zero-extended.
ir::Node* narrow(Lowerer& l, ir::Node* v, uint32_t size, bool is_signed) {
  if (size >= 8) return v;
  int64_t bits = 64 - 8 * static_cast<int64_t>(size);
  if (v->op == ir::Op::num) {
    uint64_t u = static_cast<uint64_t>(v->a) << bits;
    return l.num(is_signed ? static_cast<int64_t>(u) >> bits : static_cast<int64_t>(u >> bits));
  }
  if (is_signed) return binary(l, ir::Op::shr, binary(l, ir::Op::shl, v, l.num(bits)), l.num(bits));
  return binary(l, ir::Op::bit_and, v, l.num(static_cast<int64_t>((uint64_t{1} << (8 * size)) - 1)));
}

// A DWARF binary op as IR (DW_OP_shr is a logical shift: IR shr is
// arithmetic, so the sign bits are masked off; the shift count must then
// be a constant).
ir::Node* location_binary(Lowerer& l, di::LocOpKind k, ir::Node* a, ir::Node* b) {
  switch (k) {
    case di::LocOpKind::plus: return binary(l, ir::Op::add, a, b);
    case di::LocOpKind::minus: return binary(l, ir::Op::sub, a, b);
    case di::LocOpKind::mul: return binary(l, ir::Op::mul, a, b);
    case di::LocOpKind::and_: return binary(l, ir::Op::bit_and, a, b);
    case di::LocOpKind::or_: return binary(l, ir::Op::bit_or, a, b);
    case di::LocOpKind::xor_: return binary(l, ir::Op::bit_xor, a, b);
    case di::LocOpKind::shl: return binary(l, ir::Op::shl, a, b);
    case di::LocOpKind::shra: return binary(l, ir::Op::shr, a, b);
    case di::LocOpKind::shr:
      if (b->op != ir::Op::num || b->a <= 0 || b->a >= 64) return nullptr;
      return binary(l, ir::Op::bit_and, binary(l, ir::Op::shr, a, b),
                    l.num(static_cast<int64_t>(~uint64_t{0} >> b->a)));
    default: return nullptr;
  }
}

}  // namespace

// ---------------------------------------------------------------- locations

namespace {

// Builds the place of one variable from its location, reporting through
// `fail` (which returns false).
class LocationBuilder {
 public:
  // `kernel_module`: the binary is kernel code, of that module ("" vmlinux).
  LocationBuilder(Lowerer& l, const di::Binary& bin, const di::ProbeSite* site, SourceLoc loc,
                  std::string token, std::function<bool(const std::string&)> fail,
                  std::optional<std::string> kernel_module = std::nullopt)
      : l_(l), bin_(bin), site_(site), loc_(loc), token_(std::move(token)), fail_(std::move(fail)),
        kernel_module_(std::move(kernel_module)) {}

  bool place(const di::Location& at, TType type, Place& p) {
    switch (at.kind) {
      case di::LocKind::register_: return in_register(at.reg, type, p);
      case di::LocKind::constant: return constant(at.bytes, type, p);
      case di::LocKind::memory:
      case di::LocKind::value: break;
    }
    ir::Node* top = run(at.ops);
    if (!top) return false;
    if (at.kind == di::LocKind::memory) {
      p = Place{type, nullptr, top};
      return true;
    }
    uint32_t size = register_size(type);
    if (!size) return fail_("the value of " + token_ + " (" + type_text(type) +
                            ") is computed, not in memory, and cannot be read");
    p = Place{type, narrow(l_, top, size, value_signed(type))};
    return true;
  }

 private:
  ir::Node* reg(int dwarf_reg) {
    std::optional<uint32_t> offset = di::pt_regs_offset(dwarf_reg);
    if (!offset) {
      fail_(token_ + " is in register " + di::register_name(dwarf_reg) +
            ", which is not among the probed thread's saved registers");
      return nullptr;
    }
    ir::Node* v = l_.make(ir::Op::reg, ir::Type::long_);
    v->a = *offset;
    return v;
  }
  bool in_register(int dwarf_reg, TType type, Place& p) {
    uint32_t size = register_size(type);
    if (!size)
      return fail_(token_ + " (" + type_text(type) + ") is held in register " +
                   di::register_name(dwarf_reg) + " and cannot be read as one value");
    ir::Node* v = reg(dwarf_reg);
    if (!v) return false;
    p = Place{type, narrow(l_, v, size, value_signed(type))};
    return true;
  }
  bool constant(const std::vector<uint8_t>& bytes, TType type, Place& p) {
    uint32_t size = register_size(type);
    if (!size || bytes.size() > 8)
      return fail_(token_ + " is a constant of type " + type_text(type) +
                   " that cannot be read as one value");
    uint64_t v = 0;
    for (size_t i = 0; i < bytes.size(); ++i) v |= uint64_t{bytes[i]} << (8 * i);
    p = Place{type, narrow(l_, l_.num(static_cast<int64_t>(v)), size, value_signed(type))};
    return true;
  }
  ir::Node* bias() {
    if (!bin_.elf->relocatable()) return nullptr;
    if (!site_) {
      fail_(token_ + " has a link-time address in " + bin_.path +
            ", which is loaded at an address only a probe in that file knows");
      return nullptr;
    }
    // The site of the probe computing it (an entry probe has its own).
    auto compute = [&] {
      ir::Node* ip = l_.make(ir::Op::reg, ir::Type::long_);
      ip->a = kIpOffset;
      uint64_t pc = l_.context().dwarf()->site->pc;
      return binary(l_, ir::Op::sub, ip, l_.num(static_cast<int64_t>(pc)));
    };
    // At a return the ip is the caller's: the entry probe knows the bias.
    if (l_.context().at_return()) return l_.entry_node(compute);
    return compute();
  }
  ir::Node* run(const std::vector<di::LocOp>& ops) {
    std::vector<ir::Node*> stack;
    for (const di::LocOp& op : ops) {
      ir::Node* pushed = nullptr;
      switch (op.kind) {
        case di::LocOpKind::push_reg:
          if (!(pushed = reg(op.reg))) return nullptr;
          pushed = add_offset(l_, pushed, op.value);
          break;
        case di::LocOpKind::push_addr: {
          if (kernel_module_) {
            pushed = kernel_dwarf_address(l_, bin_, *kernel_module_,
                                          static_cast<uint64_t>(op.value), loc_, token_);
            if (!pushed) return nullptr;
            break;
          }
          pushed = l_.num(op.value);
          if (bin_.elf->relocatable()) {
            ir::Node* b = bias();
            if (!b) return nullptr;
            pushed = binary(l_, ir::Op::add, b, pushed);
          }
          break;
        }
        case di::LocOpKind::push_const: pushed = l_.num(op.value); break;
        default: break;
      }
      if (pushed) {
        stack.push_back(pushed);
        continue;
      }
      if (stack.empty()) return bad();
      ir::Node*& top = stack.back();
      switch (op.kind) {
        case di::LocOpKind::plus_const: top = add_offset(l_, top, op.value); continue;
        case di::LocOpKind::deref: top = read(top, op.size ? op.size : 8); continue;
        case di::LocOpKind::neg:
        case di::LocOpKind::not_: {
          ir::Node* n = l_.make(op.kind == di::LocOpKind::neg ? ir::Op::neg : ir::Op::bit_not,
                                ir::Type::long_);
          n->kids = {top};
          top = n;
          continue;
        }
        default: break;
      }
      if (stack.size() < 2) return bad();
      ir::Node* b = stack.back();
      stack.pop_back();
      ir::Node* r = location_binary(l_, op.kind, stack.back(), b);
      if (!r) return bad();
      stack.back() = r;
    }
    if (stack.empty()) return bad();
    return stack.back();
  }
  ir::Node* read(ir::Node* address, uint32_t size) {
    ir::Node* n = l_.make(kernel_module_ ? ir::Op::kread : ir::Op::uread, ir::Type::long_);
    n->kids = {address};
    n->b = size;
    n->c = 0;
    n->loc = l_.location(loc_, token_);
    return n;
  }
  ir::Node* bad() {
    fail_("the location of " + token_ + " is a DWARF expression this engine cannot evaluate");
    return nullptr;
  }

  Lowerer& l_;
  const di::Binary& bin_;
  const di::ProbeSite* site_;
  SourceLoc loc_;
  std::string token_;
  std::function<bool(const std::string&)> fail_;
  std::optional<std::string> kernel_module_;
};

// The module a kernel DWARF body's site is in ("" vmlinux); nullopt for
// a process probe.
std::optional<std::string> site_module(Lowerer& l) {
  const DwarfSite* d = l.context().dwarf();
  if (!d || !d->kernel) return std::nullopt;
  const std::string& m = d->point->process;
  return m == "kernel" ? std::string() : m;
}

}  // namespace

// ---------------------------------------------------------------- $vars

// The register or memory a $name starts from at the site.
bool DwarfSiteBody::base(const ast::TargetSymbol& n, Place& p, bool quiet) {
  const di::ProbeSite& site = *site_.site;
  const di::Binary& bin = *site_.point->binary;
  std::string token = describe_expr(n);
  auto fail = [&](const std::string& message) {
    if (!quiet) l_.error(n.loc, message, token);
    return false;
  };
  if (!bin.dwarf) {
    // What works without debuginfo, as stap's dwarfless probes offer it.
    std::string instead = n.name == "$return" ? " (without it, returnval() reads the return register)"
                          : site.mark ? ""
                                      : " (without it, register(\"rdi\") ... read the argument registers)";
    return fail("target variable '" + n.name + "' cannot be read: " + bin.no_dwarf + instead);
  }
  if (!site.fn)
    return fail("target variable '" + n.name + "' cannot be read: " + site.function + " (" +
                hex(site.pc) + ") has no DWARF description in " + bin.path +
                " (it is known by its symbol only)");
  const di::DwarfFunction& fn = *site.fn;
  const di::DwarfFile& dwarf = *bin.dwarf;
  std::string name = n.name.substr(1);
  std::string where = fn.name + " " + (fn.decl_file.empty() ? bin.path : fn.decl_file);
  if (name == "return" && site_.at_return) {
    TType ret = TType::of(dwarf.return_type(fn), site_.kernel);
    if (ret.is_void()) return fail("function " + where + " has no return value");
    uint32_t size = register_size(ret);
    if (!size)
      return fail("the return value of " + fn.name + " (" + type_text(ret) +
                  ") is not returned in a general register and cannot be read");
    ir::Node* v = l_.make(ir::Op::fn_ret, ir::Type::long_);
    v->b = size;
    v->c = value_signed(ret);
    p = Place{ret, v};
    return true;
  }
  std::optional<di::DwarfVariable> var;
  std::set<std::string> names;
  for (const di::DwarfVariable& v : dwarf.variables_at(fn, site.pc, false)) {
    names.insert("$" + v.name);
    if (!var && v.name == name) var = v;
  }
  bool global = false;
  if (!var && (var = dwarf.global_variable(name, &fn.cu))) global = true;
  if (!var) {
    for (const std::string& g : dwarf.global_names(fn.cu)) names.insert("$" + g);
    std::string sugs = suggest(name, names, 5);
    return fail("unable to find local '" + name + "', near pc " + hex(site.pc) + " in " + where +
                " (" + (sugs.empty() ? "<no alternatives>" : "alternatives: " + sugs) + ")");
  }
  std::string why;
  std::optional<di::Location> at =
      global ? dwarf.global_location(*var, why) : dwarf.location(fn, *var, site.pc, why);
  if (!at)
    return fail("not accessible at this address (pc: " + hex(site.pc) + "): " + token + ": " +
                why);
  LocationBuilder build(l_, bin, &site, n.loc, token, fail, site_module(l_));
  return build.place(*at, TType::of(var->type, site_.kernel), p);
}

ir::Node* DwarfSiteBody::target(ast::TargetSymbol& n, bool any_type) {
  // A probe over many sites reads no variable (its kind made one probe per
  // site for a body that does); a function body lands here.
  if (!site_.site) return BodyContext::target(n, any_type);
  bool return_var = n.name == "$return" || n.name == "$$return";
  // stap reads every other variable of a .return probe at the entry.
  if (at_return() && !return_var) return l_.entry_value(n, any_type);
  if (n.name.starts_with("$$")) return all_vars(n);
  Place p;
  if (!base(n, p, false)) return l_.num(0);
  return finish_path(l_, n, p, n.components, n.address_of, n.pretty, any_type);
}

std::optional<bool> DwarfSiteBody::target_exists(const ast::Expr& e) {
  auto* t = dynamic_cast<const ast::TargetSymbol*>(&e);
  if (!t || !site_.site) return std::nullopt;
  const di::ProbeSite& site = *site_.site;
  const di::Binary& bin = *site_.point->binary;
  if (t->name.starts_with("$$")) {
    if (t->name == "$$return")
      return site_.at_return && bin.dwarf && site.fn && !bin.dwarf->return_type(*site.fn).is_void;
    return t->name == "$$vars" || t->name == "$$parms" || t->name == "$$locals";
  }
  Place p;
  if (!base(*t, p, true)) return false;
  return path_exists(l_, *t, p, t->components, t->address_of, t->pretty);
}

// $$parms, $$vars, $$locals, $$return (and their $/$$ forms): stap lists
// the scopes' variables innermost first, each with "=?" when it has no
// location at the site.
ir::Node* DwarfSiteBody::all_vars(ast::TargetSymbol& n) {
  const di::ProbeSite& site = *site_.site;
  const di::Binary& bin = *site_.point->binary;
  if (!bin.dwarf || !site.fn) {
    Place unused;
    base(n, unused, false);  // says why
    return l_.str("");
  }
  std::vector<NamedVar> vars;
  if (n.name == "$$return" && site_.at_return) {
    TType ret = TType::of(bin.dwarf->return_type(*site.fn), site_.kernel);
    if (!ret.is_void()) vars.push_back({"return", ret});
  } else {
    for (const di::DwarfVariable& v : bin.dwarf->variables_at(*site.fn, site.pc, false)) {
      if (n.name == "$$parms" && !v.is_parameter) continue;
      if (n.name == "$$locals" && v.is_parameter) continue;
      vars.push_back({v.name, TType::of(v.type, site_.kernel)});
    }
  }
  return vars_text(l_, n, vars, [&](const NamedVar& var, Place& p) {
    ast::TargetSymbol sym;
    sym.name = "$" + var.name;
    sym.loc = n.loc;
    return base(sym, p, true);
  });
}

// ---------------------------------------------------------------- @cast, @var

namespace {

// A kernel module's .ko is kernel code, not a user binary; nor are
// "kernel<linux/sched.h>" and "<sys/un.h>", stap's header modules, whose
// types this engine reads from the kernel's BTF (target_cast.cpp).
bool names_user_binary(const std::string& module) {
  if (module.ends_with(".ko") || module.starts_with("kernel<") || module.starts_with("<"))
    return false;
  return module.find('/') != std::string::npos || module.ends_with(".so") ||
         module.find(".so.") != std::string::npos;
}

// The binary a module argument names (a path, or a program in $PATH).
di::Binary* module_binary(const std::string& module, std::string& why) {
  std::string path = module.find('/') != std::string::npos
                         ? std::filesystem::weakly_canonical(module).string()
                         : di::find_executable(module, why);
  if (path.empty()) return nullptr;
  return di::open_binary(path, why);
}

}  // namespace

bool user_cast(Lowerer& l, const ast::CastExpr& n) {
  if (!n.module.empty()) return names_user_binary(n.module);
  const DwarfSite* d = l.context().dwarf();
  return d && !d->kernel && d->point;
}

std::optional<TType> dwarf_cast_type(Lowerer& l, const ast::CastExpr& n, bool quiet) {
  std::string token = describe_expr(n);
  std::string why;
  di::Binary* bin = n.module.empty() ? l.context().dwarf()->point->binary : module_binary(n.module, why);
  std::string module = n.module.empty() ? (bin ? bin->path : "") : n.module;
  auto fail = [&](const std::string& message) -> std::optional<TType> {
    if (!quiet) l.error(n.loc, message, token);
    return std::nullopt;
  };
  if (!bin) return fail("cannot read module '" + n.module + "' for @cast: " + why);
  if (!bin->dwarf)
    return fail("type definition '" + n.type_name + "' not found in '" + module +
                "': " + bin->no_dwarf);
  std::optional<di::Type> t = bin->dwarf->find_type(n.type_name);
  if (!t) return fail("type definition '" + n.type_name + "' not found in '" + module + "'");
  return TType::of(*t);
}

// @var("name[@file]"[, "module"]) of a user binary (the probed one unless
// a module names another), or in kernel context of the kernel or a module
// ("kernel", a name or a .ko path; no module: the DWARF site's module, else
// vmlinux).
bool dwarf_at_var_wanted(Lowerer& l, const ast::AtVar& n) {
  return l.context().dwarf() || n.module.find('/') != std::string::npos ||
         n.name.find('@') != std::string::npos;
}

ir::Node* dwarf_at_var(Lowerer& l, ast::AtVar& n) {
  std::string token = describe_expr(n);
  std::string why;
  const DwarfSite* d = l.context().dwarf();
  bool user_site = d && !d->kernel, kernel_site = d && d->kernel;
  const di::ProbeSite* site = d ? d->site : nullptr;
  di::Binary* bin = nullptr;
  std::optional<std::string> kernel_module;
  if (!user_site && !names_user_binary(n.module)) {
    kernel_module = n.module == "kernel" ? "" : n.module;
    if (n.module.empty() && kernel_site) kernel_module = site_module(l);
    bin = kernel_site && kernel_module == site_module(l) ? d->point->binary
                                                         : di::open_kernel_binary(*kernel_module, why);
  } else if (!n.module.empty()) {
    bin = module_binary(n.module, why);
  } else if (user_site) {
    bin = d->point->binary;
  }
  auto fail = [&](const std::string& message) {
    l.error(n.loc, message, token);
    return false;
  };
  if (!bin) {
    fail(kernel_module ? "@var(\"" + n.name + "\") cannot be read: " + why
                       : "cannot read module '" + n.module + "' for @var: " + why);
    return l.num(0);
  }
  // The site's load bias (and compilation unit) hold for its own binary only.
  if (!d || !d->point || bin != d->point->binary) site = nullptr;
  if (!bin->dwarf) {
    fail("@var(\"" + n.name + "\") cannot be read: " + bin->no_dwarf);
    return l.num(0);
  }
  size_t at = n.name.find('@');
  std::string name = n.name.substr(0, at);
  std::string file = at == std::string::npos ? "" : n.name.substr(at + 1);
  std::optional<di::DwarfVariable> var;
  if (file.empty() && site && site->fn) var = bin->dwarf->global_variable(name, &site->fn->cu);
  if (!var) var = bin->dwarf->global_variable(name, nullptr, file);
  if (!var) {
    fail("unable to find global '" + name + "' in " + bin->path +
         (file.empty() ? "" : ", in a unit matching '" + file + "'"));
    return l.num(0);
  }
  std::optional<di::Location> loc = bin->dwarf->global_location(*var, why);
  if (!loc) {
    fail("@var(\"" + n.name + "\") has no location: " + why);
    return l.num(0);
  }
  Place p;
  LocationBuilder build(l, *bin, site, n.loc, token, fail, kernel_module);
  if (!build.place(*loc, TType::of(var->type, kernel_module.has_value()), p)) return l.num(0);
  return finish_path(l, n, p, n.components, n.address_of, n.pretty, false);
}

// ---------------------------------------------------------------- kernel addresses

ir::Node* kernel_dwarf_address(Lowerer& l, const di::Binary& bin, const std::string& module_arg,
                               uint64_t address, SourceLoc loc, const std::string& token) {
  std::string module = module_arg.empty() ? "" : di::module_name_of(module_arg);
  const ElfSym* sym = symbol_at(bin, address);
  uint64_t runtime = sym ? kallsyms_address(sym->name, module) : 0;
  if (!runtime) {
    l.error(loc,
          token + " is at " + hex(address) + " in " + bin.path + ", " +
              (sym ? "in symbol " + sym->name + ", which /proc/kallsyms does not list"
                   : "which no symbol holds") +
              (module.empty() ? "" : " (module " + module + ")"),
          token);
    return nullptr;
  }
  return l.num(static_cast<int64_t>(runtime + (address - sym->address)));
}

}  // namespace stap::lower
