// User-space probes (ir::UprobeSpec): the probe's program attached
// at each site's file offset in UprobeSpec::binary, with the site's index as
// its cookie (probefunc() and pp() of a probe over many sites read it).
//
//   uprobe.multi (Linux 6.6+, kernel/uprobe_support.h): one link for all
//     the sites, made with the raw bpf(2) call (libbpf 1.1 has no API for
//     it).  The kernel refuses the whole link when one site fails; with
//     many sites the per-site program is loaded beside it, and then each
//     site is tried alone.
//   else a uprobe (uretprobe for .return) per site: a perf event and a
//     link each, much slower to attach and to detach.
//
// A USDT mark with a semaphore has its file offset as the uprobe's
// reference counter: the kernel then counts the semaphore up in every
// process that maps the binary while the probe is attached, and down
// again at detach, which is what <sys/sdt.h>'s *_ENABLED() tests read.
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "loader/attach/attach.h"
#include "bpf_runtime/stap_layout.h"
#include "kernel/uprobe_support.h"

namespace stap {

namespace {

bpf_program* multi_variant(bpf_object* obj, const ir::Probe& p) {
  return bpf_object__find_program_by_name(obj, (p.program_name + STAP_KFUNC_MULTI_SUFFIX).c_str());
}

double ms_since(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void say_attached(const ir::Probe& p, const char* mechanism, size_t attached,
                  const std::chrono::steady_clock::time_point& t0) {
  std::fprintf(stderr, "Pass 5: probe %s attached with %s (%zu site%s) in %.1f ms\n", p.pp.c_str(),
               mechanism, attached, attached == 1 ? "" : "s", ms_since(t0));
}

bool attach_multi(bpf_program* prog, const ir::Probe& p, std::string& error) {
  const ir::UprobeSpec& uprobe = std::get<ir::UprobeSpec>(p.spec);
  // The kernel reads a reference counter offset per site when given any.
  std::vector<uint64_t> ref_ctrs;
  if (std::any_of(uprobe.semaphores.begin(), uprobe.semaphores.end(), [](uint64_t s) { return s != 0; })) {
    ref_ctrs = uprobe.semaphores;
    ref_ctrs.resize(uprobe.offsets.size());
  }
  // Every process: process(PID)'s filter is in the program.
  int fd = kernel::create_uprobe_multi_link(bpf_program__fd(prog), uprobe.binary, uprobe.offsets, ref_ctrs,
                                            uprobe.is_return);
  if (fd < 0) {
    error = "cannot attach probe " + p.pp + " with uprobe.multi in " + uprobe.binary + ": " +
            std::strerror(errno);
    return false;
  }
  hold_link_fd(fd);
  return true;
}

// One uprobe per site.  As stap, a site that fails is a warning while
// others attached, an error when none did.
bool attach_per_site(bpf_program* prog, const ir::Probe& p, std::vector<bpf_link*>& links,
                     const AttachReport& report, size_t& attached, std::string& error) {
  const ir::UprobeSpec& uprobe = std::get<ir::UprobeSpec>(p.spec);
  raise_descriptor_limit(2 * (links.size() + uprobe.offsets.size()));
  // Every process: process(PID)'s filter is in the program (a uprobe
  // attached for a pid covers that one thread, not threads created later).
  pid_t pid = -1;
  int last_err = 0;
  std::vector<std::string> failures;
  for (size_t i = 0; i < uprobe.offsets.size(); ++i) {
    LIBBPF_OPTS(bpf_uprobe_opts, opts, .ref_ctr_offset = i < uprobe.semaphores.size() ? uprobe.semaphores[i] : 0,
                .bpf_cookie = i, .retprobe = uprobe.is_return);
    bpf_link* link = bpf_program__attach_uprobe_opts(prog, pid, uprobe.binary.c_str(),
                                                     static_cast<size_t>(uprobe.offsets[i]), &opts);
    if (link) {
      links.push_back(link);
      ++attached;
      continue;
    }
    last_err = errno;
    std::string site = i < uprobe.site_points.size() ? uprobe.site_points[i] : p.pp;
    char offset[32];
    std::snprintf(offset, sizeof offset, "0x%llx", static_cast<unsigned long long>(uprobe.offsets[i]));
    failures.push_back("probe " + site + " (" + uprobe.binary + "+" + offset +
                       ") registration error [man warning::pass5] (rc -" +
                       std::to_string(last_err) + ")");
  }
  if (attached == 0) {
    error = "cannot attach probe " + p.pp + " with " + (uprobe.is_return ? "uretprobe" : "uprobe") +
            " in " + uprobe.binary + ": " + std::strerror(last_err);
    return false;
  }
  for (const std::string& w : failures) report.warning(w);
  return true;
}

}  // namespace

void prepare_uprobe(bpf_object* obj, const ir::Probe& p, const ir::UprobeSpec& uprobe) {
  bool multi = kernel::uprobe_support().multi;
  bpf_program* plain = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  bpf_program* variant = multi_variant(obj, p);
  if (variant) {
    bpf_program__set_autoload(variant, multi);
    if (multi)
      bpf_program__set_expected_attach_type(
          variant, static_cast<bpf_attach_type>(kernel::kBpfTraceUprobeMulti));
  }
  // One site the multi link refuses is one uprobe refused: no fallback.
  if (plain) bpf_program__set_autoload(plain, !variant || !multi || uprobe.offsets.size() > 1);
}

bool attach_uprobe(bpf_object* obj, const ir::Probe& p, const ir::UprobeSpec& uprobe,
                   std::vector<bpf_link*>& links, const AttachReport& report, std::string& error) {
  bpf_program* plain = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  bpf_program* multi = multi_variant(obj, p);
  bool plain_loaded = plain && bpf_program__autoload(plain);
  bool verbose = report.verbose > 0;
  auto t0 = std::chrono::steady_clock::now();
  if (multi && bpf_program__autoload(multi)) {
    if (attach_multi(multi, p, error)) {
      const char* name = uprobe.is_return ? "uretprobe.multi" : "uprobe.multi";
      report.mechanism = name;
      if (verbose) say_attached(p, name, uprobe.offsets.size(), t0);
      return true;
    }
    if (!plain_loaded) return false;
    if (verbose)
      std::fprintf(stderr, "Pass 5: %s; trying a %s per site\n", error.c_str(),
                   uprobe.is_return ? "uretprobe" : "uprobe");
    error.clear();
  } else if (report.verbose > 1) {
    std::fprintf(stderr, "Pass 5: no uprobe.multi (%s)\n",
                 kernel::uprobe_support().multi_why.c_str());
  }
  if (!plain_loaded) {
    error = "the compiled object has no program for probe " + p.pp;
    return false;
  }
  size_t attached = 0;
  if (!attach_per_site(plain, p, links, report, attached, error)) return false;
  if (verbose) say_attached(p, uprobe.is_return ? "uretprobe" : "uprobe", attached, t0);
  return true;
}

}  // namespace stap
