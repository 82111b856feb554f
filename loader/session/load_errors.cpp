#include "loader/session/load_errors.h"

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "base/lockdown.h"
#include "bpf_runtime/stap_layout.h"

namespace stap {

namespace {

// What the kernel refused: the probe whose program it was, or the object.
std::string refused_part(const std::string& probe) {
  return probe.empty() ? std::string("the compiled object") : "probe " + probe;
}

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

// The logs are searched with find, not std::regex: a verifier's log can
// run to megabytes, and libstdc++'s regex recurses per character.

// "libbpf: map 'stap_g0': failed to create: Cannot allocate memory(-12)"
std::string map_failure(const std::string& log, int rc, bpf_object* obj, const ir::Module& module) {
  size_t failed = log.find("': failed to create");
  if (failed == std::string::npos) return "";
  size_t open = log.rfind("map '", failed);
  if (open == std::string::npos) return "";
  std::string name = log.substr(open + 5, failed - open - 5);
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
  std::string helper;
  for (std::string_view lead : {"unknown func ", "cannot use helper "}) {
    size_t at = log.find(lead);
    if (at == std::string::npos) continue;
    at += lead.size();
    size_t hash = log.find('#', at);
    if (hash != std::string::npos && log.compare(at, 4, "bpf_") == 0 && hash - at < 64)
      helper = log.substr(at, hash - at);
    break;
  }
  if (helper.empty()) return "";
  std::string message = "ERROR: the kernel refused to load " +
                        refused_part(probe) +
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
  // Lines from the end back: the reason, then the nearest source note.
  std::string reason, where;
  size_t line_end = end;
  while (line_end > begin && where.empty()) {
    size_t start = log.rfind('\n', line_end - 1);
    if (start == std::string::npos || start < begin) break;
    std::string_view line(log.data() + start + 1, line_end - start - 1);
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    line_end = start;
    if (line.empty() || line.starts_with("processed ") || line.starts_with("verification time") ||
        line.starts_with("-- "))
      continue;
    if (reason.empty()) {
      reason = line;
      continue;
    }
    // ";  @ <input>:7": the object's line info for the code below it.
    size_t at = line.rfind(" @ ");
    if (line.starts_with(";") && at != std::string_view::npos) {
      std::string_view place = line.substr(at + 3);
      size_t colon = place.rfind(':');
      if (colon != std::string_view::npos && colon + 1 < place.size() &&
          place.find_first_not_of("0123456789", colon + 1) == std::string_view::npos)
        where = place;
    }
  }
  if (reason.empty()) return "";
  std::string message = "ERROR: the kernel's verifier refused " +
                        refused_part(probe);
  if (!where.empty()) message += " at " + where;
  message += ": " + reason + " (" + std::strerror(-rc) + ")";
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
  message += refused_part(probe);
  message += std::string(": ") + std::strerror(-rc);
  if (verbose < 3) message += " (run with -vvv for the verifier's log)";
  return message;
}

}  // namespace stap
