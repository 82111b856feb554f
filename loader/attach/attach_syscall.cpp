// System call probes: the dispatching program of their direction (every
// syscall probe of a direction names it; it is attached once), on the raw
// tracepoint: no tracefs needed, and detaching it is immediate, where each
// perf-event tracepoint waits for RCU grace periods.  Also the programs
// that run entry bodies again at a call's exit (STAP_DEFERRED_PROG).
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "bpf_runtime/stap_layout.h"
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

bool attach_deferred_runs(bpf_object* obj, std::vector<bpf_link*>& links, std::string& error) {
  for (int part = 0;; ++part) {
    std::string name = std::string(STAP_DEFERRED_PROG) + (part ? "_" + std::to_string(part) : "");
    bpf_program* prog = bpf_object__find_program_by_name(obj, name.c_str());
    if (!prog) return true;
    bpf_link* link = bpf_program__attach_raw_tracepoint(prog, "sys_exit");
    if (!link) {
      error = "cannot attach " + name + " (the entry bodies that wait for a system call's exit) "
              "to raw tracepoint sys_exit: " + std::strerror(errno);
      return false;
    }
    links.push_back(link);
  }
}

}  // namespace stap
