#include "loader/session/session_load.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <list>

#include "loader/attach/attach.h"
#include "loader/session/load_errors.h"
#include "bpf_runtime/stap_layout.h"
#include "loader/symbols/stack_glue.h"

namespace stap {

namespace {

// libbpf reports through one process-wide callback: collect into the
// session's buffer while it opens and loads, print at -vvv.
std::string* g_log = nullptr;
int g_verbose = 0;

int collect_libbpf_message(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG && g_verbose < 4) return 0;
  // The verifier's log comes as one message of any length: its end says
  // why the program was refused ("BPF program is too large ...").
  va_list again;
  va_copy(again, args);
  int n = std::vsnprintf(nullptr, 0, format, again);
  va_end(again);
  if (n <= 0) return n;
  std::string text(static_cast<size_t>(n), '\0');
  std::vsnprintf(text.data(), text.size() + 1, format, args);
  if (g_verbose >= 3) std::fputs(text.c_str(), stderr);
  if (g_log) g_log->append(text);
  return n;
}

class LibbpfLogScope {
 public:
  LibbpfLogScope(std::string& log, int verbose) {
    g_log = &log;
    g_verbose = verbose;
    previous_ = libbpf_set_print(collect_libbpf_message);
  }
  ~LibbpfLogScope() {
    libbpf_set_print(previous_);
    g_log = nullptr;
  }

 private:
  libbpf_print_fn_t previous_;
};

bool resize_maps(bpf_object* obj, const ir::Module& module, const LoadOptions& options,
                 std::string& error) {
  if (options.buffer_mb > 0) {
    bpf_map* events = bpf_object__find_map_by_name(obj, STAP_EVENTS_MAP);
    if (!events) {
      error = "the object has no " STAP_EVENTS_MAP " map";
      return false;
    }
    // max_entries is 32 bits: 2048 MiB is the largest power of two it holds.
    uint64_t bytes = ring_buffer_bytes(options.buffer_mb);
    if (bytes > (uint64_t(1) << 31)) {
      error = "-s " + std::to_string(options.buffer_mb) +
              ": a BPF ring buffer holds at most 2048 MiB";
      return false;
    }
    bpf_map__set_max_entries(events, static_cast<uint32_t>(bytes));
  }
  for (const ir::Global& g : module.globals) {
    if (!g.is_array()) continue;  // scalars and scalar statistics have one entry
    bpf_map* map = bpf_object__find_map_by_name(obj, g.map_name.c_str());
    if (!map) {
      error = "the object has no map " + g.map_name + " for global '" + g.name + "'";
      return false;
    }
    int64_t entries = g.max_entries > 0 ? g.max_entries : module.limits.maxmapentries;
    if (bpf_map__set_max_entries(map, static_cast<uint32_t>(entries)) != 0) {
      error = "cannot size the map of global '" + g.name + "'";
      return false;
    }
  }
  return true;
}

// The probe whose program the kernel refused: libbpf loads programs in
// order and stops at the first failure, which is left without an fd.
std::string failed_probe(bpf_object* obj, const ir::Module& module) {
  bpf_program* prog;
  bpf_object__for_each_program(prog, obj) {
    if (!bpf_program__autoload(prog) || bpf_program__fd(prog) >= 0) continue;
    for (const ir::Probe& p : module.probes)
      if (std::string_view(bpf_program__name(prog)).starts_with(p.program_name + "_") ||
          p.program_name == bpf_program__name(prog))
        return p.pp;
    return bpf_program__name(prog);
  }
  return {};
}

}  // namespace

std::string missing_bpf_privileges() {
  constexpr int kCapSysAdmin = 21, kCapPerfmon = 38, kCapBpf = 39;
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return {};  // cannot tell: let the kernel decide
  unsigned long long effective = 0;
  bool found = false;
  char line[256];
  while (!found && std::fgets(line, sizeof line, f))
    found = std::sscanf(line, "CapEff: %llx", &effective) == 1;
  std::fclose(f);
  if (!found) return {};
  auto has = [&](int cap) { return (effective >> cap) & 1; };
  if (has(kCapSysAdmin) || (has(kCapBpf) && has(kCapPerfmon))) return {};
  std::string lacking = has(kCapBpf) ? "CAP_PERFMON" : has(kCapPerfmon) ? "CAP_BPF" : "CAP_BPF and CAP_PERFMON";
  return "running the probes needs root, or the capabilities CAP_BPF and CAP_PERFMON "
         "(CAP_SYS_ADMIN also serves); this process lacks " + lacking +
         ": run it with sudo, or give them to it (setcap cap_bpf,cap_perfmon+ep, or a "
         "container's --cap-add)";
}

uint64_t ring_buffer_bytes(int64_t megabytes) {
  uint64_t want = static_cast<uint64_t>(megabytes) << 20;
  uint64_t size = 1;
  while (size < want) size <<= 1;
  return size;
}

// At -vvvv, what the verifier walked for each program (its "processed N
// insns" line): how near a program is to the million it allows.
class VerifierStats {
 public:
  VerifierStats(bpf_object* obj, bool on) {
    if (!on) return;
    bpf_program* prog;
    bpf_object__for_each_program(prog, obj) {
      if (!bpf_program__autoload(prog)) continue;
      logs_.emplace_back(bpf_program__name(prog), std::string(1 << 20, '\0'));
      bpf_program__set_log_level(prog, 4);  // BPF_LOG_STATS
      bpf_program__set_log_buf(prog, logs_.back().second.data(), logs_.back().second.size());
    }
  }
  void print() const {
    for (const auto& [name, log] : logs_) {
      size_t at = log.find("processed ");
      if (at == std::string::npos) continue;
      std::string line = log.substr(at, log.find('\n', at) - at);
      std::fprintf(stderr, "verifier: %s: %s\n", name.c_str(), line.c_str());
    }
  }

 private:
  std::list<std::pair<std::string, std::string>> logs_;  // stable buffers
};

bpf_object* load_object(std::string_view object, const ir::Module& module,
                        const LoadOptions& options, std::string& error) {
  std::string log;
  LibbpfLogScope scope(log, options.verbose);
  LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = "stap");
  bpf_object* obj = bpf_object__open_mem(object.data(), object.size(), &open_opts);
  if (!obj) {
    error = std::string("ERROR: cannot open the compiled object: ") + std::strerror(errno);
    if (options.verbose < 3 && !log.empty()) error += " (run with -vvv for libbpf's log)";
    return nullptr;
  }
  if (!resize_maps(obj, module, options, error)) {
    error = "ERROR: " + error;
    bpf_object__close(obj);
    return nullptr;
  }
  for (const ir::Probe& p : module.probes) {
    if (!prepare_probe(obj, p, error)) {
      error = "ERROR: " + error;
      bpf_object__close(obj);
      return nullptr;
    }
  }
  UnwindTables unwind;
  unwind.prepare(obj, module, options.unwind, options.verbose);
  size_stack_glue(obj);  // filled after attach (session_run.cpp)
  VerifierStats stats(obj, options.verbose >= 4);
  int rc = bpf_object__load(obj);
  stats.print();
  if (rc != 0) {
    error = explain_load_failure(log, rc, obj, module, failed_probe(obj, module), options.verbose);
    bpf_object__close(obj);
    return nullptr;
  }
  if (!unwind.fill(obj, error)) {
    error = "ERROR: " + error;
    bpf_object__close(obj);
    return nullptr;
  }
  return obj;
}

}  // namespace stap
