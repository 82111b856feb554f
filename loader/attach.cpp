#include "attach.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace stap {

bool attach_probe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                  std::string& error) {
  bpf_program* prog = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  if (!prog) {
    error = "the compiled object has no program for probe " + p.pp;
    return false;
  }
  switch (p.kind) {
    case ir::ProbeKind::tracepoint: return attach_tracepoint(prog, p, links, error);
    case ir::ProbeKind::begin:
    case ir::ProbeKind::end:
    case ir::ProbeKind::error:
    case ir::ProbeKind::never:
    case ir::ProbeKind::timer: break;
  }
  error = std::string("probe ") + p.pp + " of kind " + ir::probe_kind_name(p.kind) +
          " cannot run in the kernel";
  return false;
}

void destroy_links(std::vector<bpf_link*>& links) {
  // Detaching a perf-event tracepoint waits for an RCU grace period
  // (tens of ms each); many links are detached from a few threads at once.
  constexpr size_t kPerThread = 8;
  if (links.size() <= kPerThread) {
    for (bpf_link* l : links) bpf_link__destroy(l);
  } else {
    size_t threads = std::min<size_t>(16, (links.size() + kPerThread - 1) / kPerThread);
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t)
      workers.emplace_back([&links, t, threads] {
        for (size_t i = t; i < links.size(); i += threads) bpf_link__destroy(links[i]);
      });
    for (std::thread& w : workers) w.join();
  }
  links.clear();
}

}  // namespace stap
