#include "loader/session/load_errors.h"

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <vector>

#include "base/lockdown.h"
#include "bpf_runtime/stap_layout.h"

namespace stap {

namespace {

std::string what_map_is(const std::string& name, const ir::Module& module) {
  for (const ir::Global& g : module.globals)
    if (g.map_name == name) return "the map of global '" + g.name + "'";
  if (name == STAP_EVENTS_MAP) return "the ring buffer (-s)";
  return "the runtime's map " + name;
}

std::string what_to_change(const std::string& name, const ir::Module& module) {
  for (const ir::Global& g : module.globals)
    if (g.map_name == name)
      return g.max_entries > 0 ? "give '" + g.name + "' fewer entries (global " + g.name + "[N])"
                               : "give '" + g.name + "' fewer entries (global " + g.name +
                                     "[N], or -D MAXMAPENTRIES=N for every array)";
  if (name == STAP_EVENTS_MAP) return "give a smaller -s";
  return "";
}

// "libbpf: map 'stap_g0': failed to create: Cannot allocate memory(-12)"
std::string map_failure(const std::string& log, int rc, bpf_object* obj, const ir::Module& module) {
  static const std::regex failed("map '([^']+)': failed to create");
  std::smatch m;
  if (!std::regex_search(log, m, failed)) return "";
  std::string name = m[1];
  std::string message = "ERROR: the kernel could not create " + what_map_is(name, module);
  if (const bpf_map* map = obj ? bpf_object__find_map_by_name(obj, name.c_str()) : nullptr) {
    uint64_t entries = bpf_map__max_entries(map);
    uint64_t bytes = entries * (uint64_t(bpf_map__key_size(map)) + bpf_map__value_size(map));
    message += " (" + std::to_string(entries) + " entries";
    if (bpf_map__type(map) != BPF_MAP_TYPE_RINGBUF)
      message += " of " + std::to_string(bpf_map__key_size(map)) + "-byte keys and " +
                 std::to_string(bpf_map__value_size(map)) + "-byte values, " +
                 std::to_string(bytes >> 20) + " MiB at the least";
    message += ")";
  }
  message += std::string(": ") + std::strerror(-rc);
  if (rc == -ENOMEM)
    message += ": the kernel charges BPF maps to the memory cgroup of the process (before "
               "Linux 5.11, to its locked-memory limit, ulimit -l)";
  else if (rc == -E2BIG)
    message += ": the kernel takes no map that large";
  if (std::string change = what_to_change(name, module); !change.empty())
    message += "; " + change;
  return message;
}

// "unknown func bpf_probe_read_kernel_str#115" (the verifier, no such
// helper for this program) or "program of this type cannot use helper ...".
std::string helper_failure(const std::string& log, const std::string& probe) {
  static const std::regex refused("(?:unknown func|cannot use helper) (bpf_[a-z0-9_]+)#[0-9]+");
  std::smatch m;
  if (!std::regex_search(log, m, refused)) return "";
  std::string helper = m[1];
  std::string message = "ERROR: the kernel refused to load " +
                        (probe.empty() ? std::string("the compiled object") : "probe " + probe) +
                        ": ";
  std::string locked = lockdown::explain_helper(helper);
  message += !locked.empty() ? locked
                             : "the kernel offers no BPF helper " + helper +
                                   " to this probe's program type (a newer kernel may)";
  return message;
}

// The verifier's reason, from its log between libbpf's BEGIN and END
// lines: the line before its closing "processed N insns" tally, and the
// script line of the last source note (";  @ FILE:LINE", from the
// object's line info) before it.
std::string verifier_failure(const std::string& log, int rc, const std::string& probe,
                             int verbose) {
  size_t begin = log.rfind("-- BEGIN PROG LOAD LOG --");
  size_t end = log.rfind("-- END PROG LOAD LOG --");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return "";
  std::vector<std::string> lines;
  size_t at = log.find('\n', begin);
  while (at != std::string::npos && at < end) {
    size_t next = log.find('\n', at + 1);
    std::string line = log.substr(at + 1, std::min(next, end) - at - 1);
    if (!line.empty() && !line.starts_with("verification time")) lines.push_back(line);
    at = next;
  }
  size_t reason = lines.size();
  while (reason > 0 && (lines[reason - 1].starts_with("processed ") ||
                        lines[reason - 1].starts_with("-- END")))
    --reason;
  if (reason == 0) return "";
  std::string where;
  static const std::regex note(";.* @ (\\S+:[0-9]+)$");
  for (size_t i = reason - 1; i-- > 0 && where.empty();) {
    std::smatch m;
    if (std::regex_search(lines[i], m, note)) where = m[1];
  }
  std::string message = "ERROR: the kernel's verifier refused " +
                        (probe.empty() ? std::string("the compiled object") : "probe " + probe);
  if (!where.empty()) message += " at " + where;
  message += ": " + lines[reason - 1] + " (" + std::strerror(-rc) + ")";
  if (verbose < 3) message += "; -vvv shows its whole log";
  return message;
}

}  // namespace

std::string explain_load_failure(const std::string& log, int rc, bpf_object* obj,
                                 const ir::Module& module, const std::string& probe,
                                 int verbose) {
  std::string message = map_failure(log, rc, obj, module);
  if (message.empty()) message = helper_failure(log, probe);
  if (message.empty()) message = verifier_failure(log, rc, probe, verbose);
  if (!message.empty()) return message;
  message = "ERROR: the kernel refused to load ";
  message += probe.empty() ? std::string("the compiled object") : "probe " + probe;
  message += std::string(": ") + std::strerror(-rc);
  if (verbose < 3) message += " (run with -vvv for the verifier's log)";
  return message;
}

}  // namespace stap
