// System call probes: the dispatching program of their direction (every
// syscall probe of a direction names it; it is attached once), on the raw
// tracepoint: no tracefs needed, and detaching it is immediate, where each
// perf-event tracepoint waits for RCU grace periods.
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "loader/attach/attach.h"

namespace stap {

bool attach_syscall(bpf_program* prog, const ir::Probe& p, const ir::SyscallSpec& sc,
                    std::vector<bpf_link*>& links, std::string& error) {
  const char* raw = sc.is_exit() ? "sys_exit" : "sys_enter";
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
