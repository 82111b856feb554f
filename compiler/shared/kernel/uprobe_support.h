// Whether the running kernel offers uprobe.multi links (Linux 6.6+): one
// BPF link that attaches a program at many offsets of one file, instead of
// a perf event and a link per site.  Attaching and, above all, detaching
// many sites is much faster with one link (each perf event's close waits
// for its own grace periods).  Debian 12's libbpf (1.1) predates the API,
// so the link is created with the raw bpf(2) call, here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stap::kernel {

// enum bpf_attach_type's value (linux/bpf.h of 6.6+): the load-time
// expected attach type of a program for uprobe.multi links.
constexpr uint32_t kBpfTraceUprobeMulti = 48;

struct UprobeSupport {
  bool multi = false;
  std::string multi_why;  // why not, for -v: "... failed: Invalid argument"
};

// Probed once per process with a two-instruction program and a link that
// the kernel must refuse for its path (nothing is attached).
// STAP_UPROBE_MECHANISM=uprobe (tests, measurements) turns uprobe.multi off.
const UprobeSupport& uprobe_support();

// A uprobe.multi link of the loaded program `prog_fd` (loaded with
// kBpfTraceUprobeMulti) at `offsets` of `path`; `ref_ctr_offsets` empty or
// one per offset (USDT semaphores), cookie i for offset i.  The link's
// descriptor, or -1 with errno set.
int create_uprobe_multi_link(int prog_fd, const std::string& path,
                             const std::vector<uint64_t>& offsets,
                             const std::vector<uint64_t>& ref_ctr_offsets, bool is_return);

}  // namespace stap::kernel
