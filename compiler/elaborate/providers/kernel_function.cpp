// Kernel code: kernel.function(PAT)[.call|.return|.inline|.exported ...],
// module(M).function(PAT)[...], kernel.statement(...), and the symbol-only
// kprobe.function(F)[.return], kprobe.module(M).function(F),
// kprobe.statement(ADDR).absolute.  PAT is "func[@file[:line]]" with
// wildcards.
//
// Which functions match is known only from the running kernel: pass 2
// resolves each point over its symbols (kallsyms, the traceable functions)
// and BTF, without DWARF.  So a point resolves to real, traceable
// functions by name, and `.inline` matches nothing (inlined copies have no
// symbol).  What needs DWARF (source files and lines "f@file.c:N",
// statements, function and statement addresses) is resolved over the
// kernel's or module's DWARF (debuginfo/kernel_dwarf.h) into sites at a
// function symbol + offset (DerivedProbe::user_point); without DWARF the
// message says what to install.  Labels and callees are refused.
#include <fnmatch.h>
#include <sys/utsname.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "debuginfo/kernel_dwarf.h"
#include "debuginfo/process_listing.h"
#include "elaborate/program.h"
#include "elaborate/providers/provider.h"
#include "kernel/kernel_btf.h"
#include "kernel/kernel_symbols.h"
#include "kernel/kfunc_support.h"

namespace stap {

namespace {

// The suffixes a function point takes, after "function(string)" (the
// numeric-address form takes fewer).
const char* const kFunctionSuffixes[] = {
    "", ".call", ".return", ".return.maxactive(number)", ".inline", ".exported",
    ".label(string)", ".callee(string)", ".callee(string).call", ".callee(string).return",
    ".callees", ".callees(number)",
};
const char* const kAddressSuffixes[] = {
    "", ".call", ".return", ".return.maxactive(number)", ".exported",
};
const char* const kKprobeSuffixes[] = {"", ".call", ".return", ".return.maxactive(number)"};

std::vector<std::string> kernel_patterns() {
  std::vector<std::string> out;
  for (std::string head : {"kernel", "module(string)"}) {
    for (const char* s : kFunctionSuffixes) out.push_back(head + ".function(string)" + s);
    for (const char* s : kAddressSuffixes) out.push_back(head + ".function(number)" + s);
    for (const char* kind : {"(string)", "(number)"}) {
      out.push_back(head + ".statement" + kind);
      out.push_back(head + ".statement" + kind + ".nearest");
    }
  }
  out.push_back("kernel.statement(number).absolute");
  for (const char* s : kKprobeSuffixes) {
    out.push_back(std::string("kprobe.function(string)") + s);
    out.push_back(std::string("kprobe.module(string).function(string)") + s);
  }
  out.push_back("kprobe.statement(number).absolute");
  return out;
}

// ---------------------------------------------------------------- kernel facts

struct KernelFacts {
  kernel::KernelBtf btf;
  kernel::KernelSymbols symbols;
  bool btf_loaded = false;
  bool symbols_loaded = false;
  std::string btf_why;
  std::string symbols_why;
  // Read when first needed: "module:name" of each exported function
  // (kallsyms' __ksymtab_NAME), and the loaded modules.
  bool exports_read = false;
  std::set<std::string> exported;
  bool modules_read = false;
  std::vector<std::string> modules;
};

// Read once per process: resolution, listing and lowering all ask.
KernelFacts& facts() {
  static KernelFacts k;
  static const bool loaded = [] {
    k.btf_loaded = k.btf.load(k.btf_why);
    k.symbols_loaded = k.symbols.load(k.symbols_why);
    return true;
  }();
  (void)loaded;
  return k;
}

// kallsyms line: "ADDR TYPE NAME [MODULE]".
const std::set<std::string>& exported_functions() {
  KernelFacts& k = facts();
  if (k.exports_read) return k.exported;
  k.exports_read = true;
  std::ifstream in("/proc/kallsyms");
  std::string line;
  const std::string prefix = "__ksymtab_";
  while (std::getline(in, line)) {
    size_t at = line.find(' ' + prefix);
    if (at == std::string::npos) continue;
    std::string rest = line.substr(at + 1 + prefix.size());
    std::string name = rest.substr(0, rest.find_first_of(" \t"));
    std::string module;
    size_t open = rest.find('[');
    if (open != std::string::npos) module = rest.substr(open + 1, rest.find(']') - open - 1);
    k.exported.insert(module + ":" + name);
  }
  return k.exported;
}

// The loaded modules (/proc/modules), for module("pattern").
const std::vector<std::string>& loaded_modules() {
  KernelFacts& k = facts();
  if (k.modules_read) return k.modules;
  k.modules_read = true;
  std::ifstream in("/proc/modules");
  std::string name, rest;
  while (in >> name && std::getline(in, rest)) k.modules.push_back(name);
  std::sort(k.modules.begin(), k.modules.end());
  return k.modules;
}

bool has_glob(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// ---------------------------------------------------------------- queries

// What a point asks for.
struct Query {
  bool has_module = false;
  std::string module;     // the module pattern, when has_module
  std::string pattern;    // the function pattern
  bool inline_only = false;
  bool exported_only = false;
  // A point resolved over DWARF: its pattern as a code point (kind,
  // spec or address, suffix).
  bool dwarf = false;
  debuginfo::ProcessPattern code;
  std::string dwarf_what;  // for the message without DWARF, at refusal_loc
  // Set when the point cannot be resolved without DWARF (or at all): what
  // to say, and where.
  std::string refusal;
  SourceLoc refusal_loc;
};

std::string kernel_release() {
  struct utsname u {};
  return uname(&u) == 0 ? u.release : "";
}

bool have_kernel_debuginfo() {
  std::error_code ec;
  std::string r = kernel_release();
  return std::filesystem::exists("/usr/lib/debug/boot/vmlinux-" + r, ec) ||
         std::filesystem::exists("/usr/lib/debug/lib/modules/" + r + "/vmlinux", ec);
}

// Why a point that needs DWARF cannot be resolved here.
std::string dwarf_refusal(const std::string& what) {
  if (have_kernel_debuginfo())
    return what + " needs the kernel's DWARF, which this engine does not read yet: use a "
                  "function name or wildcard (resolved from kallsyms and BTF)";
  // The package named as a command line works on any host (and keeps
  // the message the same on every kernel).
  return "missing kernel debuginfo: " + what +
         " needs the kernel's DWARF (BTF has no source files, lines or statements); install "
         "linux-image-$(uname -r)-dbg (Debian; kernel-debuginfo on Fedora), or use a function "
         "name or wildcard";
}

const char* const kDwarfSuffixes[] = {"label", "callee", "callees"};

// A point that needs DWARF: function("f@file[:N]"), function(ADDR),
// statement("f@file:N"), statement(ADDR).
void dwarf_query(Query& q, const ast::ProbePointComponent& c, const ast::ProbePoint& point) {
  q.dwarf = true;
  q.code.kind = c.functor;
  q.refusal_loc = c.loc;
  if (auto* s = dynamic_cast<const ast::StringLit*>(c.arg)) {
    q.code.spec = s->value;
    q.dwarf_what = c.functor == "statement" ? point.components[0].functor + ".statement"
                   : s->value.find('@') != std::string::npos
                       ? "a source-file pattern (\"" + s->value + "\")"
                       : "a function of a module named by path";
  } else if (auto* n = dynamic_cast<const ast::NumberLit*>(c.arg)) {
    q.code.has_address = true;
    q.code.address = static_cast<uint64_t>(n->value);
    q.dwarf_what = c.functor == "function" ? "a function address" : point.components[0].functor + ".statement";
  }
  const std::string& last = point.components.back().functor;
  if (&c != &point.components.back() && (last == "call" || last == "return" || last == "inline" ||
                                         last == "exported"))
    q.code.suffix = "." + last;
}

Query read_query(const ast::ProbePoint& point) {
  Query q;
  for (const ast::ProbePointComponent& c : point.components) {
    auto* s = dynamic_cast<const ast::StringLit*>(c.arg);
    if (c.functor == "module") {
      q.has_module = true;
      q.module = s ? s->value : "";
      // Module names use '_' where their files have '-' (nf-conntrack); an
      // out-of-tree module is named by the path of its .ko.
      if (q.module.find('/') == std::string::npos)
        std::replace(q.module.begin(), q.module.end(), '-', '_');
    } else if (c.functor == "function" && s) {
      q.pattern = s->value;
      if (q.pattern.find('@') != std::string::npos) dwarf_query(q, c, point);
    } else if (c.functor == "function" || c.functor == "statement") {
      bool absolute = point.components.back().functor == "absolute";
      if (absolute && q.refusal.empty()) {
        q.refusal_loc = c.loc;
        q.refusal = "probes at raw addresses (" + point.components[0].functor +
                    ".statement(ADDR).absolute) are not supported by this engine: name a function";
      } else if (point.components[0].functor != "kprobe") {
        dwarf_query(q, c, point);
      }
    } else if (c.functor == "inline") {
      q.inline_only = true;
    } else if (c.functor == "exported") {
      q.exported_only = true;
    }
    for (const char* d : kDwarfSuffixes)
      if (c.functor == d && q.refusal.empty()) {
        q.refusal = dwarf_refusal("." + c.functor);
        q.refusal_loc = c.loc;
      }
  }
  // An out-of-tree module named by its .ko path has no BTF: its functions
  // come from its DWARF.
  if (q.has_module && q.module.find('/') != std::string::npos && !q.dwarf && !q.pattern.empty()) {
    for (const ast::ProbePointComponent& c : point.components)
      if (c.functor == "function") dwarf_query(q, c, point);
  }
  return q;
}

// The functions of one module ("" = vmlinux) a query matches, sorted.
std::vector<std::string> module_matches(const Query& q, const std::string& module) {
  KernelFacts& k = facts();
  std::vector<std::string> names;
  if (k.symbols_loaded) {
    names = k.symbols.match_functions(q.pattern, module);
  } else if (k.btf_loaded) {
    // No kallsyms (not readable here): BTF still names the functions.
    for (const std::string& n : k.btf.function_names(module))
      if (fnmatch(q.pattern.c_str(), n.c_str(), 0) == 0) names.push_back(n);
  }
  if (q.exported_only) {
    const std::set<std::string>& exported = exported_functions();
    std::erase_if(names, [&](const std::string& n) { return !exported.count(module + ":" + n); });
  }
  return names;
}

std::vector<KernelFunctionRef> match(const Query& q) {
  std::vector<KernelFunctionRef> out;
  // Inlined copies have no symbol and no BTF: nothing to attach to.
  if (q.inline_only || q.pattern.empty()) return out;
  std::vector<std::string> modules;
  if (!q.has_module) {
    modules.push_back("");
  } else if (!has_glob(q.module)) {
    modules.push_back(q.module);
  } else {
    for (const std::string& m : loaded_modules())
      if (fnmatch(q.module.c_str(), m.c_str(), 0) == 0) modules.push_back(m);
  }
  for (const std::string& m : modules)
    for (std::string& name : module_matches(q, m)) out.push_back({m, std::move(name)});
  return out;
}

// The modules a DWARF query covers: vmlinux (""), one module (a name or
// a .ko path), or the loaded modules a glob matches.
std::vector<std::string> dwarf_modules(const Query& q) {
  if (!q.has_module) return {""};
  if (!has_glob(q.module) || q.module.find('/') != std::string::npos) return {q.module};
  std::vector<std::string> out;
  for (const std::string& m : loaded_modules())
    if (fnmatch(q.module.c_str(), m.c_str(), 0) == 0) out.push_back(m);
  return out;
}

// A DWARF query's sites, one ResolvedPoint per module; false with `why`
// when DWARF is missing.  With `loaded_only`, the sites the running kernel
// has and lets a kprobe on: each site's function symbol in kallsyms (a
// module's __init code is gone once it is loaded; a module not loaded has
// none) and traceable, as for functions by name (kprobe events refuse
// notrace code such as __exit functions with EINVAL).  Compiler clones
// ("f.isra.0"), which the traceable list leaves to names, are kept.
bool resolve_dwarf(const Query& q, std::vector<std::shared_ptr<debuginfo::ResolvedPoint>>& out,
                   std::string& why, bool loaded_only = false) {
  KernelFacts& k = facts();
  for (const std::string& m : dwarf_modules(q)) {
    auto point = std::make_shared<debuginfo::ResolvedPoint>();
    if (!debuginfo::resolve_kernel_point(q.code, m, *point, why, q.dwarf_what)) return false;
    std::string module = m.empty() ? "" : debuginfo::module_name_of(m);
    std::set<std::string> traceable;
    if (loaded_only && k.symbols_loaded) {
      for (std::string& f : k.symbols.match_functions("*", module.empty() ? "kernel" : module))
        traceable.insert(std::move(f));
      std::erase_if(point->sites, [&](const debuginfo::ProbeSite& s) {
        return !k.symbols.function(s.symbol, module) ||
               (!traceable.count(s.symbol) && s.symbol.find('.') == std::string::npos);
      });
    }
    if (!point->sites.empty()) out.push_back(std::move(point));
  }
  return true;
}

// stap's words for a point that resolves to nothing.
void report_no_match(const ast::ProbePoint& point, Diagnostics& diags) {
  const ast::ProbePointComponent& head = point.components[0];
  diags.semantic_error(head.loc, "while resolving probe point", "identifier '" + head.functor + "'");
  diags.semantic_error({}, "no match");
}

// ---------------------------------------------------------------- provider

class KernelFunctionProvider : public ProbeProvider {
 public:
  KernelFunctionProvider()
      : ProbeProvider("kernel.function", kernel_patterns(), /*resolved_later=*/true) {}

  // "kernel" is shared with the tracepoint family; everything else under
  // it ("kernel" alone included, for the truncation message) is ours.
  // Function arguments and locals ($x, $$parms, $return) come from BTF or
  // DWARF; the names are checked when the point is resolved.
  bool has_target_vars(const ast::ProbePoint&) const override { return true; }
  bool has_entry_values(const ast::ProbePoint& point) const override {
    return find(point, "return") != nullptr;
  }

  bool matches(const ast::ProbePoint& point) const override {
    if (point.components.empty()) return false;
    const std::string& head = point.components[0].functor;
    if (head == "kprobe") return true;
    if (head == "module")  // module("M").tracepoint is btf_tracepoint.cpp's
      return point.components.size() < 2 || point.components[1].functor != "tracepoint";
    if (head != "kernel") return false;
    // kernel.trace, kernel.tracepoint and kernel.lsm have providers of their own.
    if (point.components.size() < 2) return true;
    const std::string& family = point.components[1].functor;
    return family != "trace" && family != "tracepoint" && family != "lsm";
  }

  // The functions the point names here; none when the kernel cannot attach
  // them and the probe is to run (request.will_run).  -l and -p2 resolve
  // names only: listing is not attaching.
  size_t resolve(const ast::ProbePoint& point, const ResolveRequest& request, DerivedProbe& out,
                 Diagnostics& diags) const override {
    Query q = read_query(point);
    if (!q.refusal.empty()) {
      if (!request.quiet) value_error(point, q.refusal_loc, q.refusal, diags);
      return 0;
    }
    if (q.dwarf) return resolve_dwarf_point(point, q, request, out, diags);
    std::vector<KernelFunctionRef> found = match(q);
    if (found.empty()) {
      if (!request.quiet) report_no_match(point, diags);
      return 0;
    }
    if (request.will_run && !kernel::kfunc_support().any()) {
      if (!request.quiet) value_error(point, point.components[0].loc,
                                      kernel::kfunc_support().missing_message(), diags);
      return 0;
    }
    out.kernel_functions = std::move(found);
    return out.kernel_functions.size();
  }

  std::vector<std::string> list_points(const ast::ProbePoint& point) const override {
    Query q = read_query(point);
    if (!q.refusal.empty()) return {};
    std::vector<std::string> out;
    if (q.dwarf) {
      std::vector<std::shared_ptr<debuginfo::ResolvedPoint>> found;
      std::string why;
      if (!resolve_dwarf(q, found, why)) return {};
      std::set<std::string> names;
      for (const auto& r : found)
        for (const debuginfo::ProbeSite& s : r->sites) names.insert(s.point);
      return {names.begin(), names.end()};
    }
    for (const KernelFunctionRef& f : match(q)) out.push_back(kernel_function_point(point, f));
    return out;
  }

  // stap -L: the function's parameters with their C types from BTF, and
  // for .return first $return (when the function returns a value).
  std::vector<std::pair<std::string, std::string>> target_var_list(
      const ast::ProbePoint& point) const override {
    Query q = read_query(point);
    if (!q.refusal.empty()) return {};
    if (q.dwarf) return dwarf_var_list(q);
    if (has_glob(q.pattern) || has_glob(q.module)) return {};
    std::optional<kernel::Function> fn = running_kernel_btf().function(q.pattern, q.module);
    if (!fn) return {};
    std::vector<std::pair<std::string, std::string>> vars;
    if (find(point, "return") && fn->ret.id != 0)
      vars.emplace_back("return", kernel::KernelBtf::name(fn->ret));
    for (const kernel::Param& p : fn->params)
      if (!p.name.empty()) vars.emplace_back(p.name, kernel::KernelBtf::name(p.type));
    return vars;
  }

  // stap -L of a point placed from DWARF: the variables its first site
  // sees (the listing asks per listed point).
  static std::vector<std::pair<std::string, std::string>> dwarf_var_list(const Query& q) {
    std::vector<std::shared_ptr<debuginfo::ResolvedPoint>> found;
    std::string why;
    if (!resolve_dwarf(q, found, why) || found.empty()) return {};
    std::vector<std::pair<std::string, std::string>> vars;
    for (const std::string& v : debuginfo::site_vars(*found[0], found[0]->sites[0])) {
      size_t colon = v.find(':');
      vars.emplace_back(v.substr(1, colon - 1), v.substr(colon + 1));
    }
    return vars;
  }

  // A DWARF point: one DerivedProbe per module's resolved point would be
  // needed for several modules; a module glob is refused for now.
  size_t resolve_dwarf_point(const ast::ProbePoint& point, const Query& q,
                             const ResolveRequest& request, DerivedProbe& out,
                             Diagnostics& diags) const {
    std::vector<std::shared_ptr<debuginfo::ResolvedPoint>> found;
    std::string why;
    const ast::ProbePointComponent& head = point.components[0];
    if (!resolve_dwarf(q, found, why, request.will_run)) {
      if (!request.quiet) value_error(point, q.refusal_loc, why, diags);
      return 0;
    }
    if (found.size() > 1) {
      if (!request.quiet)
        value_error(point, head.loc, "a source-file or statement pattern over several modules "
                                     "is not supported: name one module", diags);
      return 0;
    }
    if (found.empty()) {
      if (!request.quiet) report_no_match(point, diags);
      return 0;
    }
    if (request.will_run && !kernel::kfunc_support().kprobe) {
      if (!request.quiet)
        value_error(point, head.loc, "probes placed from DWARF need kprobes: " +
                                         kernel::kfunc_support().kprobe_why, diags);
      return 0;
    }
    out.user_point = found[0];
    return found[0]->sites.size();
  }

 protected:
  bool check_values(ast::ProbePoint& point, const ProbePattern&,
                    Diagnostics& diags) const override {
    for (const ast::ProbePointComponent& c : point.components) {
      if (!dynamic_cast<const ast::StringLit*>(c.arg) || !string_arg(c).empty()) continue;
      value_error(point, c.arg->loc,
                  "empty " + c.functor + " name (expected a name or a wildcard pattern)",
                  diags);
      return false;
    }
    return true;
  }
};

}  // namespace

const ProbeProvider& kernel_function_provider() {
  static const KernelFunctionProvider provider;
  return provider;
}

kernel::KernelBtf& running_kernel_btf() { return facts().btf; }
kernel::KernelBtf* running_kernel_btf_if_loaded(std::string& why) {
  KernelFacts& k = facts();
  why = k.btf_why;
  return k.btf_loaded ? &k.btf : nullptr;
}
const kernel::KernelSymbols& running_kernel_symbols() { return facts().symbols; }

// Without DWARF there is no "@file:line" to add: where stap prints
// kernel.function("vfs_read@fs/read_write.c:450") this prints
// kernel.function("vfs_read"), the rest of the point as stap builds it.
std::string kernel_function_point(const ast::ProbePoint& point, const KernelFunctionRef& f) {
  ast::ProbePoint concrete;
  concrete.components = point.components;
  ast::StringLit name, module;
  name.value = f.name;
  module.value = f.module;
  for (ast::ProbePointComponent& c : concrete.components) {
    if (!dynamic_cast<const ast::StringLit*>(c.arg)) continue;
    if (c.functor == "function") c.arg = &name;
    else if (c.functor == "module") c.arg = &module;
  }
  return concrete.to_string();
}

}  // namespace stap
