#include "debuginfo/process_points.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "debuginfo/binary_path.h"
#include "debuginfo/dwarf_lines.h"
#include "debuginfo/symbol_match.h"

namespace stap::debuginfo {

namespace {

bool glob(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::string quoted(const std::string& kind, const std::string& arg) {
  return "." + kind + "(\"" + arg + "\")";
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The executable of process(PID), canonical.
std::string pid_executable(int64_t pid, std::string& why) {
  std::string link = "/proc/" + std::to_string(pid) + "/exe";
  char buf[4096];
  ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) {
    why = "cannot find the executable of process " + std::to_string(pid) + " (" + link + ")";
    return {};
  }
  return std::string(buf, static_cast<size_t>(n));
}

class Resolver {
 public:
  Resolver(const ProcessPattern& p, ResolvedPoint& out, std::string prefix, bool kernel = false)
      : p_(p), out_(out), bin_(*out.binary), prefix_(std::move(prefix)), kernel_(kernel) {}

  bool run(std::string& why) {
    if (p_.kind == "function" && p_.has_address) return at_address("function", why);
    if (p_.kind == "statement" && p_.has_address) return at_address("statement", why);
    if (p_.kind == "function" && p_.callee_depth > 0) callees();
    else if (p_.kind == "function") functions();
    if (p_.kind == "statement") statements();
    if (!why_.empty()) {
      why = why_;
      return true;  // no sites: the caller reports why
    }
    if (p_.kind == "mark") marks();
    if (p_.kind == "plt") plt();
    // Kernel code has no file offsets: kernel_dwarf.cpp places each site.
    for (const ProbeSite& s : out_.sites) {
      if (kernel_ || s.offset != 0 || s.pc == 0) continue;
      why = "cannot place a uprobe at " + hex(s.pc) + " in " + bin_.path +
            " (outside its loaded segments)";
      return false;
    }
    if (out_.sites.empty() && p_.kind == "statement") why = bin_.no_dwarf;
    return true;
  }

 private:
  // A site at `pc`, its uprobe offset from the file's segments (0 marks
  // an address no segment holds; run() reports it).
  ProbeSite& add(std::string point, std::string function, uint64_t pc) {
    ProbeSite s;
    s.point = std::move(point);
    s.function = std::move(function);
    s.pc = pc;
    if (auto off = bin_.elf->file_offset(pc)) s.offset = *off;
    out_.sites.push_back(std::move(s));
    return out_.sites.back();
  }

  bool at_address(const std::string& kind, std::string& why) {
    uint64_t pc = p_.address;
    const ElfSymbol* sym = bin_.elf->function_at(pc);
    const DwarfFunction* fn = bin_.dwarf ? bin_.dwarf->function_at(pc) : nullptr;
    std::string name = fn ? fn->name : sym ? sym->name : hex(pc);
    std::string point = prefix_ + "." + kind + "(" + hex(pc) + ")" + p_.suffix;
    ProbeSite& s = add(point, name, pc);
    s.fn = fn;
    if (s.offset == 0 && !kernel_) {
      why = "address " + hex(pc) + " is not in a loaded segment of " + bin_.path;
      return false;
    }
    return true;
  }

  // "f@file.c:LINE", as a point names a DWARF function.
  std::string function_name(const DwarfFunction& fn) const {
    // Assembly functions have no declaration: the line table says where.
    std::string file = fn.decl_file;
    int line = fn.decl_line;
    if (file.empty())
      if (auto at = bin_.dwarf->line_at(fn.entry_pc)) std::tie(file, line) = std::tie(at->file, at->line);
    return fn.name + "@" + file + ":" + std::to_string(line);
  }

  // Functions that do not return through the normal ABI, which stap's
  // blacklist keeps from .return probes: _start, the PIC pc thunks.
  static bool no_return_probe(const std::string& name) {
    return name == "_start" ||
           (name.starts_with("__") && name.find(".get_pc_thunk.") != std::string::npos);
  }

  void add_function(const DwarfFunction& fn) {
    if (p_.suffix == ".return" && no_return_probe(fn.name)) return;
    if (!added_.insert({fn.entry_pc, &fn}).second) return;
    covered_.insert(fn.entry_pc);
    std::string point = prefix_ + quoted("function", function_name(fn)) + p_.suffix;
    // A .return's uretprobe must be where the return address is still on
    // top of the stack: the function's first instruction.
    bool at_entry = fn.inlined || p_.suffix == ".return";
    uint64_t pc = at_entry ? fn.entry_pc : bin_.dwarf->function_probe_pc(fn);
    add(point, symbol_at(pc, fn.name), pc).fn = &fn;
  }

  void functions() {
    const std::string& sfx = p_.suffix;
    bool want_inlined = sfx.empty() || sfx == ".inline";
    bool want_outlined = sfx != ".inline";
    bool exported_only = sfx == ".exported";
    if (bin_.dwarf) {
      if (want_outlined)
        for (const auto* fn : bin_.dwarf->match_functions(p_.spec))
          if ((!exported_only || fn->external) && !partial_copy(*fn)) add_function(*fn);
      if (want_inlined)
        for (const auto* fn : bin_.dwarf->match_inlined(p_.spec)) add_function(*fn);
    }
    if (p_.spec.find('@') != std::string::npos || !want_outlined) return;
    // Symbols: an alias of a DWARF function (malloc for __libc_malloc)
    // is that function; a symbol where no DWARF function starts (a .cold
    // part, assembly, no debuginfo at all) is the site itself.
    std::map<uint64_t, const DwarfFunction*> starts;
    if (bin_.dwarf)
      for (const auto& fn : bin_.dwarf->functions()) starts.emplace(fn.entry_pc, &fn);
    for (const auto* sym : match_symbols(*bin_.elf, p_.spec)) {
      // An IFUNC symbol's address is its resolver's, not the function's
      // (stap reads STT_FUNC only).
      if (sym->ifunc || (exported_only && !sym->global)) continue;
      auto fn = starts.find(sym->address);
      if (fn != starts.end()) {
        if (!partial_copy(*fn->second)) add_function(*fn->second);
      }
      else if (p_.suffix == ".return" && no_return_probe(sym->name))
        continue;
      else if (!covered_.count(sym->address))  // aliases: each name (lowering keeps one per address)
        add(prefix_ + quoted("function", sym->name) + p_.suffix, sym->name, sym->address);
    }
  }

  // .function("F").callee("G"), .callees(N): a site at the first
  // instruction of each function G that F calls (through N calls), which
  // runs only when the stack holds the chain of calls from F (its
  // callers' return addresses, ProbeSite::callers), as stap's caller
  // check.  An inlined copy is a site where the copy starts, and adds no
  // return address.  Calls into another file (a library) are not sites.
  void callees() {
    if (!bin_.dwarf) {
      why_ = bin_.no_dwarf;
      return;
    }
    size_t calls = 0;
    for (const DwarfFunction* caller : bin_.dwarf->match_functions(p_.spec)) {
      if (partial_copy(*caller)) continue;
      std::vector<uint64_t> chain;
      calls += add_callees(*caller, quoted("function", function_name(*caller)), chain,
                           p_.callee_depth);
    }
    if (calls == 0 && out_.sites.empty())
      why_ = "no call recorded in the DWARF of the functions matching \"" + p_.spec + "\" in " +
             bin_.path + " (GCC records calls for optimized code only: build with -O1 or more)";
  }

  size_t add_callees(const DwarfFunction& caller, const std::string& caller_point,
                     std::vector<uint64_t>& chain, int64_t depth) {
    std::vector<DwarfCall> calls = bin_.dwarf->calls(caller);
    for (const DwarfCall& call : calls) {
      if (!glob(p_.callee, call.callee)) continue;
      const DwarfFunction* callee = bin_.dwarf->called(call);
      if (!callee) continue;
      std::string point =
          prefix_ + caller_point + quoted("callee", function_name(*callee)) + p_.suffix;
      if (!call.inlined) chain.push_back(call.return_pc);
      ProbeSite& site = add(point, callee->name, callee->entry_pc);
      site.fn = callee;
      site.callers.assign(chain.rbegin(), chain.rend());
      if (call.tail)
        out_.warnings.push_back("callee \"" + callee->name + "\" in function \"" + caller.name +
                                "\" is a tail call: its probe " + point +
                                " may not fire (probe the callee itself instead)");
      if (depth > 1) add_callees(*callee, caller_point, chain, depth - 1);
      if (!call.inlined) chain.pop_back();
    }
    return calls.size();
  }

  // .statement("F@FILE:LINES"): stap's lines (dwarf_lines.h), each
  // address a site for every matching function whose code holds it (an
  // inlined copy's lines are its caller's too).  Without LINES, each
  // function's entry, named by its declaration line.
  void statements() {
    if (!bin_.dwarf) return;
    FunctionSpec spec = parse_function_spec(p_.spec);
    std::vector<const DwarfFunction*> fns;
    for (const auto* fn : bin_.dwarf->match_functions(p_.spec))
      if (!partial_copy(*fn)) fns.push_back(fn);
    for (const auto* fn : bin_.dwarf->match_inlined(p_.spec)) fns.push_back(fn);
    if (spec.file.empty() || spec.line.empty()) {
      for (const auto* fn : fns) add_statement(*fn, fn->decl_line, fn->entry_pc);
      return;
    }
    std::optional<LineSpec> lines = parse_line_spec(spec.line);
    if (!lines) {
      why_ = "malformed specification '" + p_.spec + "'";
      return;
    }
    // By unit, in DWARF order; out-of-line functions before inlined copies.
    std::map<Dwarf_Off, std::vector<const DwarfFunction*>> units;
    for (const auto* fn : fns) {
      Dwarf_Die cu = fn->cu;
      units[dwarf_dieoffset(&cu)].push_back(fn);
    }
    for (auto& [offset, in_unit] : units) {
      // Inlined copies in DIE order: an enclosing copy's walk before the
      // copies inlined into it, so a shared address keeps the outer line.
      auto first_inlined = std::stable_partition(in_unit.begin(), in_unit.end(),
                                                 [](const DwarfFunction* f) { return !f->inlined; });
      std::stable_sort(first_inlined, in_unit.end(), [](const DwarfFunction* a, const DwarfFunction* b) {
        Dwarf_Die x = a->die, y = b->die;
        return dwarf_dieoffset(&x) < dwarf_dieoffset(&y);
      });
      if (!unit_statements(in_unit, spec.file, *lines)) return;
    }
  }

  // False (with why_, and no sites) when a line has no code: stap's error.
  bool unit_statements(const std::vector<const DwarfFunction*>& fns, const std::string& file,
                       const LineSpec& lines) {
    const Dwarf_Die& cu = fns.front()->cu;
    for (const std::string& srcfile : cu_source_files(cu, file)) {
      std::vector<const DwarfFunction*> declared;
      for (const auto* fn : fns)
        if (fn->decl_file == srcfile) declared.push_back(fn);
      if (declared.empty()) continue;
      auto found = statement_lines(cu, srcfile, declared, lines);
      if (found.empty() && lines.kind != LineSpec::wildcard && lines.kind != LineSpec::enumerated) {
        int line = lines.lines.at(0) +
                   (lines.kind == LineSpec::relative ? declared.front()->decl_line : 0);
        no_line_records(cu, srcfile, declared, line);
        return false;
      }
      for (const StatementLine& l : found)
        for (const auto* fn : fns) {
          Dwarf_Die die = fn->die;
          if (dwarf_haspc(&die, l.addr) == 1) add_statement(*fn, l.line, l.addr).in_block = true;
        }
    }
    return true;
  }

  void no_line_records(const Dwarf_Die& cu, const std::string& srcfile,
                       const std::vector<const DwarfFunction*>& fns, int line) {
    out_.sites.clear();
    why_ = "no line records for " + srcfile + ":" + std::to_string(line) + " [man error::dwarf]";
    auto [below, above] = nearest_lines(cu, srcfile, fns, line);
    if (below < 0 && above < 0) return;
    why_ += " (try ";
    if (below > 0) why_ += ":" + std::to_string(below);
    if (below > 0 && above > 0) why_ += " or ";
    if (above > 0) why_ += ":" + std::to_string(above);
    why_ += ")";
  }

  ProbeSite& add_statement(const DwarfFunction& fn, int line, uint64_t pc) {
    std::string point = prefix_ +
                        quoted("statement", fn.name + "@" + fn.decl_file + ":" + std::to_string(line)) +
                        p_.suffix;
    ProbeSite& s = add(point, symbol_at(pc, fn.name), pc);
    s.fn = &fn;
    return s;
  }

  // GCC's partial inlining leaves the tail of a function as "f.part.N",
  // whose DWARF looks like f's own code; stap (PR12609) skips it, as the
  // copies inlined into callers are the entries.
  bool partial_copy(const DwarfFunction& fn) const {
    if (fn.inlined) return false;
    const ElfSymbol* sym = bin_.elf->function_at(fn.entry_pc);
    return sym && sym->name.find(".part.") != std::string::npos;
  }

  // probefunc() as stap computes it, usymname(uaddr()) (symname(addr())
  // in the kernel): the symbol holding the probed address, so an inlined
  // copy's caller; the DWARF name where no symbol holds it.
  std::string symbol_at(uint64_t pc, const std::string& fallback) const {
    const ElfSymbol* sym = bin_.elf->function_at(pc);
    return sym ? sym->name : fallback;
  }

  void marks() {
    for (const auto& mark : bin_.marks) {
      if (!glob(p_.spec, mark.name) || (!p_.provider.empty() && !glob(p_.provider, mark.provider)))
        continue;
      std::string point = prefix_ + (p_.provider.empty() ? "" : quoted("provider", mark.provider)) +
                          quoted("mark", mark.name);
      ProbeSite& s = add(point, mark.name, mark.pc);
      s.mark = &mark;
      if (mark.semaphore)
        if (auto off = bin_.elf->file_offset(mark.semaphore)) s.semaphore = *off;
    }
  }

  void plt() {
    std::string pattern = p_.spec.empty() ? "*" : p_.spec;
    for (const auto& entry : bin_.elf->plt_entries())
      if (glob(pattern, entry.name))
        add(prefix_ + quoted("plt", entry.name) + p_.suffix, entry.name, entry.address);
  }

  const ProcessPattern& p_;
  ResolvedPoint& out_;
  Binary& bin_;
  std::string prefix_;
  bool kernel_;
  std::set<std::pair<uint64_t, const DwarfFunction*>> added_;
  std::set<uint64_t> covered_;  // entry pcs that have a site
  std::string why_;             // why statements() matched nothing
};

}  // namespace

Binary* open_binary(const std::string& path, std::string& why) {
  static std::map<std::string, std::unique_ptr<Binary>> cache;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second.get();
  auto b = std::make_unique<Binary>();
  b->path = path;
  b->elf = ElfFile::open(path, why);
  if (!b->elf) return nullptr;
  b->dwarf = DwarfFile::open(*b->elf, b->no_dwarf);
  if (b->dwarf) b->elf->add_debug_symbols(b->dwarf->debug_elf());
  b->marks = read_sdt_marks(*b->elf);
  return cache.emplace(path, std::move(b)).first->second.get();
}

bool resolve_process_point(const ProcessPattern& p, ResolvedPoint& out, std::string& why) {
  std::string exe = p.pid > 0 ? pid_executable(p.pid, why) : find_executable(p.process, why);
  if (exe.empty()) return false;
  out.process = exe;
  out.is_return = p.suffix == ".return";
  std::string prefix = p.pid > 0 ? "process(" + std::to_string(p.pid) + ")"
                                 : "process(\"" + exe + "\")";
  std::string path = exe;
  if (!p.library.empty()) {
    path = find_library(p.library, exe, why);
    if (path.empty()) return false;
    prefix += ".library(\"" + path + "\")";
  }
  out.binary = open_binary(path, why);
  if (!out.binary) return false;
  why.clear();
  return Resolver(p, out, prefix).run(why);
}

bool resolve_code_point(const ProcessPattern& p, const std::string& prefix, ResolvedPoint& out,
                        std::string& why) {
  return Resolver(p, out, prefix, /*kernel=*/true).run(why);
}

}  // namespace stap::debuginfo
