// generate_object(): the module's maps, one program per kernel-context
// probe, the bpf_runtime bitcode, O2, and the ELF bytes with the
// serialised module in its metadata section.
#include "codegen/codegen.h"

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>

#include "bpf_runtime/stap_layout.h"
#include "codegen/bpf_module.h"
#include "codegen/emitter.h"
#include "ir/serialize.h"

using namespace llvm;

namespace stap {

namespace {

using namespace codegen;

// LLVM reports backend errors (say, an unsupported instruction) through
// the context; the default handler would exit the process.
struct DiagnosticCollector : DiagnosticHandler {
  std::string* errors;
  explicit DiagnosticCollector(std::string* e) : errors(e) {}
  bool handleDiagnostics(const DiagnosticInfo& di) override {
    if (di.getSeverity() == DS_Error) {
      std::string text;
      raw_string_ostream os(text);
      DiagnosticPrinterRawOStream printer(os);
      di.print(printer);
      os.flush();
      // The BPF backend reports some errors once per instruction at fault
      // (thousands for one large program): each message once is enough.
      if (seen.insert(text).second) *errors += text + "\n";
    }
    return true;
  }
  std::set<std::string> seen;
};

// The compiling machine's possible CPUs (STAP_NR_CPUS_VAR's default).
uint32_t possible_cpus() {
  std::ifstream in("/sys/devices/system/cpu/possible");
  std::string text;
  std::getline(in, text);
  size_t sep = text.find_last_of("-,");
  try {
    return uint32_t(std::stoul(sep == std::string::npos ? text : text.substr(sep + 1)) + 1);
  } catch (...) {
    return 256;
  }
}

GlobalVariable* placeholder(Module& m, const char* name) {
  return new GlobalVariable(m, Type::getInt8Ty(m.getContext()), false, GlobalValue::ExternalLinkage,
                            nullptr, name);
}

void add_global_maps(ModuleState& ms) {
  const ir::Module& m = ms.ir;
  ms.global_maps.assign(m.globals.size(), nullptr);
  for (size_t i = 0; i < m.globals.size(); ++i) {
    const ir::Global& g = m.globals[i];
    if (g.in_globals_map()) continue;
    MapSpec spec;
    spec.name = g.map_name;
    spec.value_size = g.value_size;
    if (g.type == ir::Type::stats && !g.is_array()) {
      spec.type = kMapPercpuArray;
      spec.max_entries = 1;
      spec.key_size = 4;
    } else {
      spec.type = g.type == ir::Type::stats ? kMapPercpuHash : g.wrap ? kMapLruHash : kMapHash;
      spec.max_entries = unsigned(g.max_entries ? g.max_entries : m.limits.maxmapentries);
      spec.key_size = g.key_size;
    }
    ms.global_maps[i] = ms.bpf.add_map(spec);
  }
}

// Locations compare by text: each expanded probe gets its own location
// entries, and a shared program reports the first probe's (same text).
bool same_tree(const ir::Module& m, const ir::Node* x, const ir::Node* y) {
  if (x == y) return true;
  if (!x || !y || x->op != y->op || x->type != y->type || x->a != y->a || x->b != y->b ||
      x->c != y->c || x->s != y->s || x->ints != y->ints || x->kids.size() != y->kids.size())
    return false;
  if (x->loc != y->loc &&
      (x->loc >= m.locations.size() || y->loc >= m.locations.size() ||
       m.locations[x->loc].text != m.locations[y->loc].text))
    return false;
  for (size_t i = 0; i < x->kids.size(); ++i)
    if (!same_tree(m, x->kids[i], y->kids[i])) return false;
  return true;
}

// Whether the code depends on which probe runs it: pp() and pn(), here or
// in a function it calls.
bool uses_probe_name(const ir::Module& m, const ir::Node* n, int depth = 0) {
  if (!n || depth > 64) return depth > 64;
  if (n->op == ir::Op::builtin && (n->s == "pp" || n->s == "pn")) return true;
  if (n->op == ir::Op::call && size_t(n->a) < m.functions.size() &&
      uses_probe_name(m, m.functions[size_t(n->a)].body, depth + 1))
    return true;
  for (const ir::Node* k : n->kids)
    if (uses_probe_name(m, k, depth)) return true;
  return false;
}

}  // namespace

// Shared by kinds whose probes attach one program each to their own event
// (tracepoints, syscall bodies): a wildcard such as
// kernel.trace("syscalls:sys_enter_*") then makes one program attached to
// ~350 tracepoints instead of 350 programs (553 ms of codegen, measured).
const ir::Probe* codegen::shared_program(const ir::Module& m, size_t index) {
  if (m.timing) return nullptr;  // -t counts each probe's hits in its own program
  const ir::Probe& p = m.probes[index];
  bool named = uses_probe_name(m, p.body);
  auto direction = [](const ir::Probe& q) {
    const auto* sc = q.as<ir::SyscallSpec>();
    return sc && sc->is_exit();
  };
  for (size_t j = 0; j < index; ++j) {
    const ir::Probe& q = m.probes[j];
    if (q.program_name.empty() || q.spec.index() != p.spec.index() ||
        direction(q) != direction(p) || q.slots != p.slots ||
        (named && (q.pp != p.pp || q.pn != p.pn)))
      continue;
    // (a body that may wait for its call's exit keeps its run in a place
    // of its own, deferral_slot, so it shares with none)
    if (same_tree(m, q.body, p.body) && deferral_of(m, q) == ProgramContext::Deferral::none &&
        deferral_of(m, p) == ProgramContext::Deferral::none)
      return &q;
  }
  return nullptr;
}

namespace {

// The table of probe kinds: each kernel-context probe's programs, built by
// its kind's emit function (emit_<kind>.cpp).  False with `error` set when
// one uses what kernel context cannot run.
bool emit_programs(ModuleState& ms, std::string& error) {
  for (ir::Probe& p : ms.ir.probes) p.program_name.clear();
  for (size_t i = 0; i < ms.ir.probes.size(); ++i) {
    ir::Probe& p = ms.ir.probes[i];
    if (p.context != ir::Context::kernel) continue;
    auto user_context = [&](const auto&) {
      error = std::string("no kernel-context code for ") + p.kind_name() + " probes";
      return false;
    };
    bool ok = ir::visit_spec(
        p.spec, [&](const ir::SessionSpec& s) { return user_context(s); },
        [&](const ir::TimerSpec& s) { return user_context(s); },
        [&](const ir::ProcfsSpec& s) { return user_context(s); },
        [&](const ir::RunningTasksSpec& s) { return user_context(s); },
        [&](const ir::TracepointSpec& tp) { return emit_tracepoint_program(ms, p, tp, i, error); },
        [&](const ir::SyscallSpec& sc) { return emit_syscall_body(ms, p, sc, i, error); },
        [&](const ir::KfuncSpec& k) { return emit_kfunc_programs(ms, p, k, i, error); },
        [&](const ir::PerfSpec&) { return emit_perf_program(ms, p, i, error); },
        [&](const ir::WatchpointSpec&) { return emit_perf_program(ms, p, i, error); },
        [&](const ir::UprobeSpec& u) { return emit_uprobe_program(ms, p, u, i, error); },
        [&](const ir::BtfTracepointSpec& tp) {
          return emit_btf_tracepoint_program(ms, p, tp, i, error);
        },
        [&](const ir::LsmSpec& lsm) { return emit_lsm_program(ms, p, lsm, i, error); },
        [&](const ir::NetfilterSpec& nf) { return emit_netfilter_program(ms, p, nf, i, error); });
    if (!ok) return false;
  }
  return emit_syscall_dispatchers(ms, error) && emit_deferred_runs(ms, error);
}

// Replaces the placeholders with the scratch map, sized now that every
// program is built, and the literal table.
void add_late_globals(ModuleState& ms) {
  GlobalVariable* scratch = ms.bpf.add_map(
      {STAP_SCRATCH_MAP, kMapPercpuArray, 1, 0, 4, (ms.scratch_size + 7) & ~7u});
  ms.scratch_map->replaceAllUsesWith(scratch);
  ms.scratch_map->eraseFromParent();
  if (ms.rodata_bytes.empty()) ms.rodata_bytes.push_back('\0');
  GlobalVariable* rodata = ms.bpf.add_rodata("stap_rodata", ms.rodata_bytes);
  ms.rodata->replaceAllUsesWith(rodata);
  ms.rodata->eraseFromParent();
}

std::string probe_ir_text(const ir::Module& m, Module& llvm_module) {
  std::string text;
  raw_string_ostream os(text);
  std::set<std::string> shown;
  for (const ir::Probe& p : m.probes) {
    if (p.program_name.empty()) continue;
    os << "; probe " << p.pp << "\n";
    if (!shown.insert(p.program_name).second) {
      os << "; runs " << p.program_name << ", shown above\n\n";
      continue;
    }
    if (Function* f = llvm_module.getFunction(p.program_name)) f->print(os);
    os << "\n";
  }
  return text;
}

}  // namespace

// LLVM's backend ends the process on some errors ("Branch target out of
// insn range" for a program too long for BPF's 16-bit jumps).  Nothing is
// attached during code generation, so ending is safe; but it ends as a
// pass-4 failure with the reason, not as an abort with a stack dump.
void report_llvm_fatal(void*, const char* reason, bool) {
  std::fprintf(stderr, "ERROR: the BPF code generator failed: %s\n", reason);
  std::fprintf(stderr, "Pass 4: compilation failed.  [man error::pass4]\n");
  std::_Exit(1);
}

CodegenResult generate_object(ir::Module& module, const CodegenOptions& options) {
  static std::once_flag handler_installed;
  std::call_once(handler_installed, [] { install_fatal_error_handler(report_llvm_fatal); });
  CodegenResult res;
  uint32_t globals_size = ir::assign_layout(module);
  LLVMContext ctx;
  std::string llvm_errors;
  ctx.setDiagnosticHandler(std::make_unique<DiagnosticCollector>(&llvm_errors));
  BpfModule bpf(ctx, module.script_name.empty() ? "<input>" : module.script_name);
  ModuleState ms{module, bpf, module.limits.maxstringlen};
  if (ms.maxlen < 2 || ms.maxlen > 4096) {
    res.error = "MAXSTRINGLEN must be between 2 and 4096 for kernel context";
    return res;
  }
  ms.globals_map = bpf.add_map({STAP_GLOBALS_MAP, kMapArray, 1, kMapFlagMmapable, 4, globals_size});
  ms.events_map = bpf.add_map({STAP_EVENTS_MAP, kMapRingbuf, 4u << 20, 0, 0, 0});
  ms.nr_cpus = bpf.add_rodata_u32(STAP_NR_CPUS_VAR, possible_cpus());
  add_global_maps(ms);
  if (module.timing)
    ms.timing_map = bpf.add_map({STAP_TIMING_MAP, kMapPercpuArray,
                                 unsigned(std::max<size_t>(1, module.probes.size())), 0, 4,
                                 unsigned(sizeof(stap_stat))});
  ms.scratch_map = placeholder(bpf.module(), "stap_scratch.placeholder");
  ms.rodata = placeholder(bpf.module(), "stap_rodata.placeholder");
  if (!emit_programs(ms, res.error)) return res;
  add_late_globals(ms);
  bpf.add_license("GPL");
  bpf.add_blob_section(ir::kMetaSection, ir::serialize(module));
  if (!bpf.finish(res.error)) return res;
  bpf.optimize();
  if (options.want_ir_text) res.ir_text = probe_ir_text(module, bpf.module());
  if (!bpf.emit_object(res.object, res.error)) return res;
  if (!llvm_errors.empty()) {
    res.error = "LLVM: " + llvm_errors;
    res.object.clear();
    return res;
  }
  res.ok = true;
  return res;
}

}  // namespace stap
