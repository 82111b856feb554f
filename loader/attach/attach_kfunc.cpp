// kernel.function probes: the mechanism each probe uses, chosen from what
// this kernel offers (compiler/kernel/kfunc_support.h), before load (only
// the chosen program variants are loaded: an fentry program names its
// target's BTF at load), then attached.  The variants are described in
// compiler/codegen/emit_kfunc.cpp.
//
//   one function:   fentry/fexit when the probe has that variant (BTF, at
//                   most 6 parameters); else kprobe/kretprobe; else the
//                   kprobe program loaded as kprobe.multi for that function
//   many functions: kprobe.multi (the plain kprobe program loaded beside it
//                   when kprobes work, in case the multi link is refused);
//                   else one kprobe per function
// Each function's index in KfuncSpec::functions is its attach cookie (fn_name).
#include <bpf/libbpf.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "loader/attach/attach.h"
#include "bpf_runtime/stap_layout.h"
#include "kernel/kernel_symbols.h"
#include "kernel/kfunc_support.h"

namespace stap {

namespace {

using kernel::KfuncMechanism;

bpf_program* variant(bpf_object* obj, const ir::Probe& p, const char* suffix) {
  return bpf_object__find_program_by_name(obj, (p.program_name + suffix).c_str());
}

// The mechanism for `p`, or false with `why` when this kernel offers none.
bool choose(const ir::Probe& p, bool has_fentry, KfuncMechanism& m, std::string& why) {
  const ir::KfuncSpec& kfunc = std::get<ir::KfuncSpec>(p.spec);
  const kernel::KfuncSupport& s = kernel::kfunc_support();
  // Sites inside functions (placed from DWARF: KfuncSpec::offsets) take kprobes.
  if (std::any_of(kfunc.offsets.begin(), kfunc.offsets.end(), [](uint64_t o) { return o != 0; })) {
    if (s.kprobe) m = KfuncMechanism::kprobe;
    else why = "a probe inside a function (symbol+offset) needs kprobes: " + s.kprobe_why;
    return why.empty();
  }
  if (kfunc.functions.size() == 1) {
    if (has_fentry && s.fentry) m = KfuncMechanism::fentry;
    else if (s.kprobe) m = KfuncMechanism::kprobe;
    else if (s.kprobe_multi) m = KfuncMechanism::kprobe_multi;
    else if (s.fentry)
      why = "fentry needs the function's BTF (with at most 6 parameters), "
            "and kprobes do not work: " + s.kprobe_why;
    else why = s.missing_message();
    return why.empty();
  }
  if (s.kprobe_multi) m = KfuncMechanism::kprobe_multi;
  else if (s.kprobe) m = KfuncMechanism::kprobe;
  else if (s.fentry)
    why = "a probe on many functions needs kprobe.multi or kprobes (kprobe.multi: " +
          s.kprobe_multi_why + "; kprobes: " + s.kprobe_why + ")";
  else why = s.missing_message();
  return why.empty();
}

std::string errno_text(int err) { return std::strerror(err < 0 ? -err : err); }

double ms_since(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void say_mechanism(const ir::Probe& p, const char* mechanism, size_t attached,
                   const std::chrono::steady_clock::time_point& t0) {
  std::fprintf(stderr, "Pass 5: probe %s attached with %s (%zu function%s) in %.1f ms\n",
               p.pp.c_str(), mechanism, attached, attached == 1 ? "" : "s", ms_since(t0));
}

bool attach_fentry(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                   std::string& error) {
  const ir::KfuncSpec& kfunc = std::get<ir::KfuncSpec>(p.spec);
  bpf_link* link = bpf_program__attach_trace(prog);
  if (!link) {
    error = "cannot attach probe " + p.pp + " to " + kfunc.functions[0] + " with " +
            (kfunc.is_return ? "fexit: " : "fentry: ") + errno_text(errno);
    return false;
  }
  links.push_back(link);
  return true;
}

// A module's functions go by address: before 6.3 the kernel looks names
// up in vmlinux's symbols only (ftrace_lookup_symbols).
bool module_addresses(const ir::Probe& p, std::vector<unsigned long>& addrs, std::string& error) {
  const ir::KfuncSpec& kfunc = std::get<ir::KfuncSpec>(p.spec);
  kernel::KernelSymbols symbols;
  std::string why;
  if (!symbols.load(why)) {
    error = "cannot read the kernel's symbols for probe " + p.pp + ": " + why;
    return false;
  }
  for (const std::string& f : kfunc.functions) {
    std::optional<kernel::Symbol> s = symbols.function(f, kfunc.module);
    if (!s || !s->address) {
      error = "cannot attach probe " + p.pp + ": no address for " + f + " in module " + kfunc.module;
      return false;
    }
    addrs.push_back(static_cast<unsigned long>(s->address));
  }
  return true;
}

bool attach_multi(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                  std::string& error) {
  const ir::KfuncSpec& kfunc = std::get<ir::KfuncSpec>(p.spec);
  std::vector<const char*> syms;
  std::vector<unsigned long> addrs;
  std::vector<__u64> cookies;
  for (size_t i = 0; i < kfunc.functions.size(); ++i) {
    syms.push_back(kfunc.functions[i].c_str());
    cookies.push_back(i);
  }
  if (!kfunc.module.empty() && !module_addresses(p, addrs, error)) return false;
  LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .cookies = cookies.data(), .cnt = syms.size(),
              .retprobe = kfunc.is_return);
  if (addrs.empty()) opts.syms = syms.data();
  else opts.addrs = addrs.data();
  bpf_link* link = bpf_program__attach_kprobe_multi_opts(prog, nullptr, &opts);
  if (!link) {
    error = "cannot attach probe " + p.pp + " with kprobe.multi: " + errno_text(errno);
    return false;
  }
  links.push_back(link);
  return true;
}

// One kprobe per function.  As stap, a function that fails is a warning
// while others attached ("registration error"), an error when none did.
bool attach_kprobes(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                    const AttachReport& report, size_t& attached, std::string& error) {
  const ir::KfuncSpec& kfunc = std::get<ir::KfuncSpec>(p.spec);
  raise_descriptor_limit(2 * (links.size() + kfunc.functions.size()));
  std::vector<std::string> failures;
  int last_err = 0;
  for (size_t i = 0; i < kfunc.functions.size(); ++i) {
    LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = i,
                .offset = i < kfunc.offsets.size() ? kfunc.offsets[i] : 0, .retprobe = kfunc.is_return);
    bpf_link* link = bpf_program__attach_kprobe_opts(prog, kfunc.functions[i].c_str(), &opts);
    if (link) {
      links.push_back(link);
      ++attached;
      continue;
    }
    last_err = errno;
    failures.push_back("probe " + p.pp + " (" + kfunc.functions[i] + "+" +
                       std::to_string(i < kfunc.offsets.size() ? kfunc.offsets[i] : 0) +
                       ") registration error [man warning::pass5] (rc -" +
                       std::to_string(last_err) + ")");
  }
  if (attached == 0) {
    error = "cannot attach probe " + p.pp + " to " +
            (kfunc.functions.size() == 1 ? kfunc.functions[0] : "any of its functions") + " with " +
            (kfunc.is_return ? "kretprobe: " : "kprobe: ") + errno_text(last_err);
    return false;
  }
  for (const std::string& w : failures) report.warning(w);
  return true;
}

}  // namespace

bool prepare_kfunc(bpf_object* obj, const ir::Probe& p, const ir::KfuncSpec& kfunc,
                   std::string& error) {
  bpf_program* kprobe = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  bpf_program* fentry = variant(obj, p, STAP_KFUNC_FENTRY_SUFFIX);
  bpf_program* multi = variant(obj, p, STAP_KFUNC_MULTI_SUFFIX);
  if (!kprobe || (kfunc.functions.size() > 1 && !multi)) {
    error = "the compiled object has no program for probe " + p.pp;
    return false;
  }
  KfuncMechanism mech = KfuncMechanism::kprobe;
  std::string why;
  if (!choose(p, fentry != nullptr, mech, why)) {
    error = "cannot attach probe " + p.pp + ": " + why;
    return false;
  }
  const kernel::KfuncSupport& s = kernel::kfunc_support();
  bool one = kfunc.functions.size() == 1;
  if (fentry) bpf_program__set_autoload(fentry, mech == KfuncMechanism::fentry);
  if (multi) bpf_program__set_autoload(multi, mech == KfuncMechanism::kprobe_multi);
  // The plain kprobe program: the mechanism itself, the fallback beside
  // kprobe.multi, or (one function, kprobe.multi only) loaded as that.
  bool plain = mech == KfuncMechanism::kprobe || (!one && s.kprobe) ||
               (one && mech == KfuncMechanism::kprobe_multi);
  bpf_program__set_autoload(kprobe, plain);
  if (one && mech == KfuncMechanism::kprobe_multi)
    bpf_program__set_expected_attach_type(kprobe, BPF_TRACE_KPROBE_MULTI);
  return true;
}

bool attach_kfunc(bpf_object* obj, const ir::Probe& p, const ir::KfuncSpec& kfunc,
                  std::vector<bpf_link*>& links, const AttachReport& report, std::string& error) {
  bpf_program* kprobe = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  bpf_program* fentry = variant(obj, p, STAP_KFUNC_FENTRY_SUFFIX);
  bpf_program* multi = variant(obj, p, STAP_KFUNC_MULTI_SUFFIX);
  bool verbose = report.verbose > 0;
  auto t0 = std::chrono::steady_clock::now();
  if (fentry && bpf_program__autoload(fentry)) {
    if (!attach_fentry(fentry, p, links, error)) return false;
    report.mechanism = kfunc.is_return ? "fexit" : "fentry";
    if (verbose) say_mechanism(p, report.mechanism.c_str(), 1, t0);
    return true;
  }
  bool kprobe_loaded = kprobe && bpf_program__autoload(kprobe);
  bpf_program* as_multi = multi && bpf_program__autoload(multi) ? multi : nullptr;
  if (!as_multi && kprobe_loaded &&
      bpf_program__expected_attach_type(kprobe) == BPF_TRACE_KPROBE_MULTI)
    as_multi = kprobe;
  const char* kind = kfunc.is_return ? "kretprobe" : "kprobe";
  if (as_multi) {
    if (attach_multi(as_multi, p, links, error)) {
      const char* name = kfunc.is_return ? "kretprobe.multi" : "kprobe.multi";
      report.mechanism = name;
      if (verbose) say_mechanism(p, name, kfunc.functions.size(), t0);
      return true;
    }
    if (as_multi == kprobe || !kprobe_loaded) return false;
    // One function the multi link refuses fails them all: with kprobes,
    // each function is tried alone.
    if (verbose)
      std::fprintf(stderr, "Pass 5: %s; trying a %s per function\n", error.c_str(), kind);
    error.clear();
  }
  if (!kprobe_loaded) {
    error = "probe " + p.pp + " has no loaded program";
    return false;
  }
  size_t attached = 0;
  if (!attach_kprobes(kprobe, p, links, report, attached, error)) return false;
  report.mechanism = kind;
  if (verbose) say_mechanism(p, kind, attached, t0);
  return true;
}

}  // namespace stap
