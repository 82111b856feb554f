// kernel.tracepoint("NAME"): a tp_btf program, whose tracepoint libbpf
// found in the kernel's (or the module's) BTF when it loaded the program;
// attaching opens its raw-tracepoint link.
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "loader/attach/attach.h"

namespace stap {

bool attach_btf_tracepoint(bpf_program* prog, const ir::Probe& p, const ir::BtfTracepointSpec& tp,
                           std::vector<bpf_link*>& links, std::string& error) {
  bpf_link* link = bpf_program__attach_trace(prog);
  if (!link) {
    error = "cannot attach probe " + p.pp + " to BTF tracepoint " + tp.name + ": " +
            std::strerror(errno);
    return false;
  }
  links.push_back(link);
  return true;
}

}  // namespace stap
