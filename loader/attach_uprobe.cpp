// User-space probes (ir::ProbeKind::uprobe): the probe's one program is
// attached as a uprobe (uretprobe for .return) at each site's file offset
// in Probe::binary, with the site's index as its cookie (probefunc() and
// pp() of a probe over many sites read it).  A USDT mark with a semaphore
// has its file offset as the uprobe's reference counter: the kernel then
// counts the semaphore up in every process that maps the binary while the
// probe is attached, and down again at detach, which is what <sys/sdt.h>'s
// *_ENABLED() tests read.
#include <bpf/libbpf.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "attach.h"

namespace stap {

bool attach_uprobe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                   const AttachReport& report, std::string& error) {
  bpf_program* prog = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  if (!prog) {
    error = "the compiled object has no program for probe " + p.pp;
    return false;
  }
  auto t0 = std::chrono::steady_clock::now();
  raise_descriptor_limit(2 * (links.size() + p.offsets.size()));
  // Every process: process(PID)'s filter is in the program (a uprobe
  // attached for a pid covers that one thread, not threads created later).
  pid_t pid = -1;
  size_t attached = 0;
  int last_err = 0;
  std::vector<std::string> failures;
  for (size_t i = 0; i < p.offsets.size(); ++i) {
    LIBBPF_OPTS(bpf_uprobe_opts, opts, .ref_ctr_offset = i < p.semaphores.size() ? p.semaphores[i] : 0,
                .bpf_cookie = i, .retprobe = p.is_return);
    bpf_link* link = bpf_program__attach_uprobe_opts(prog, pid, p.binary.c_str(),
                                                     static_cast<size_t>(p.offsets[i]), &opts);
    if (link) {
      links.push_back(link);
      ++attached;
      continue;
    }
    last_err = errno;
    std::string site = i < p.site_points.size() ? p.site_points[i] : p.pp;
    char offset[32];
    std::snprintf(offset, sizeof offset, "0x%llx", static_cast<unsigned long long>(p.offsets[i]));
    failures.push_back("probe " + site + " (" + p.binary + "+" + offset +
                       ") registration error [man warning::pass5] (rc -" +
                       std::to_string(last_err) + ")");
  }
  // As stap: a site that fails is a warning while others attached, an
  // error when none did.
  if (attached == 0) {
    error = "cannot attach probe " + p.pp + " with " + (p.is_return ? "uretprobe" : "uprobe") +
            " in " + p.binary + ": " + std::strerror(last_err);
    return false;
  }
  for (const std::string& w : failures) {
    if (report.warn) report.warn(w);
    else std::fprintf(stderr, "WARNING: %s\n", w.c_str());
  }
  if (report.verbose > 0) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "Pass 5: probe %s attached with %s (%zu site%s) in %.1f ms\n", p.pp.c_str(),
                 p.is_return ? "uretprobe" : "uprobe", attached, attached == 1 ? "" : "s", ms);
  }
  return true;
}

}  // namespace stap
