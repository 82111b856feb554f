// kernel.trace("system:event"): the program reads the event's record
// (tracefs format offsets, resolved by the compiler), so it attaches as a
// classic tracepoint program.
#include <bpf/libbpf.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "attach.h"

namespace stap {

namespace {

bool is_dir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string tracefs_dir(std::string& error) {
  const std::string tracing = "/sys/kernel/tracing";
  if (is_dir(tracing + "/events")) return tracing;
  if (is_dir("/sys/kernel/debug/tracing/events")) return "/sys/kernel/debug/tracing";
  if (mount("nodev", tracing.c_str(), "tracefs", 0, nullptr) == 0 && is_dir(tracing + "/events"))
    return tracing;
  error = "tracefs is not mounted on " + tracing + " and mounting it failed: " +
          std::strerror(errno);
  return {};
}

bool attach_tracepoint(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                       std::string& error) {
  if (tracefs_dir(error).empty()) return false;
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
