// kernel.trace("system:event"): the program reads the event's record
// (tracefs format offsets, resolved by the compiler), so it attaches as a
// classic tracepoint program.  libbpf finds the event's id in tracefs,
// which is mounted first when nothing has mounted it.
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "loader/attach/attach.h"
#include "base/tracefs.h"

namespace stap {

bool attach_tracepoint(bpf_program* prog, const ir::Probe& p, const ir::TracepointSpec& tp,
                       std::vector<bpf_link*>& links, std::string& error) {
  if (tracefs::find_root(error).empty()) return false;
  bpf_link* link = bpf_program__attach_tracepoint(prog, tp.system.c_str(), tp.event.c_str());
  if (!link) {
    error = "cannot attach probe " + p.pp + " to tracepoint " + tp.system + ":" + tp.event + ": " +
            std::strerror(errno);
    return false;
  }
  links.push_back(link);
  return true;
}

}  // namespace stap
