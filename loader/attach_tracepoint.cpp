// kernel.trace("system:event"): the program reads the event's record
// (tracefs format offsets, resolved by the compiler), so it attaches as a
// classic tracepoint program.  libbpf finds the event's id in tracefs,
// which is mounted first when nothing has mounted it.
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "attach.h"
#include "base/tracefs.h"

namespace stap {

bool attach_tracepoint(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                       std::string& error) {
  if (tracefs::find_root(error).empty()) return false;
  bpf_link* link = bpf_program__attach_tracepoint(prog, p.system.c_str(), p.event.c_str());
  if (!link) {
    error = "cannot attach probe " + p.pp + " to tracepoint " + p.system + ":" + p.event +
            ": " + std::strerror(errno);
    return false;
  }
  links.push_back(link);
  return true;
}

}  // namespace stap

namespace stap {

// Syscall probes: the dispatching program of their direction, on the raw
// tracepoint (no tracefs needed; detaching it is immediate, where each
// perf-event tracepoint waits for RCU grace periods).
bool attach_syscall(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                    std::string& error) {
  const char* raw = p.event.starts_with("sys_exit") ? "sys_exit" : "sys_enter";
  bpf_link* link = bpf_program__attach_raw_tracepoint(prog, raw);
  if (!link) {
    error = "cannot attach probe " + p.pp + " to raw tracepoint " + raw + ": " +
            std::strerror(errno);
    return false;
  }
  links.push_back(link);
  return true;
}

}  // namespace stap
