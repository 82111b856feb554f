// netfilter.hook(...) probes: BPF netfilter programs (Linux 6.4+,
// CONFIG_NETFILTER_BPF_LINK), attached with a netfilter link each.
// Debian 12's libbpf (1.1) and its linux/bpf.h predate them, so the
// program's type is set here by number and the link is made with the raw
// bpf(2) call.  A link hooks the network namespace of the process that
// makes it and lasts as long as its descriptor (hold_link_fd).
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "loader/attach/attach.h"

namespace stap {

namespace {

// The values of linux/bpf.h (6.4+).
constexpr uint32_t kProgTypeNetfilter = 32;   // BPF_PROG_TYPE_NETFILTER
constexpr uint32_t kAttachNetfilter = 45;     // BPF_NETFILTER
constexpr int kMaxPriorityTries = 64;

// union bpf_attr's link_create for netfilter links.
struct NetfilterLinkAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint32_t pf;
  uint32_t hooknum;
  int32_t priority;
  uint32_t nf_flags;
};
static_assert(offsetof(NetfilterLinkAttr, pf) == 16, "link_create's union starts at 16");

int netfilter_link(int prog_fd, const ir::NetfilterSpec& nf, int32_t priority) {
  NetfilterLinkAttr attr{};
  attr.prog_fd = uint32_t(prog_fd);
  attr.attach_type = kAttachNetfilter;
  attr.pf = uint32_t(nf.pf);
  attr.hooknum = uint32_t(nf.hook);
  attr.priority = priority;
  return int(syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr));
}

// Whether the kernel loads BPF netfilter programs: a two-instruction one
// (r0 = NF_ACCEPT; exit), loaded once per process and closed.  Empty when
// it does, else why not.
const std::string& netfilter_missing() {
  static const std::string why = [] {
    const bpf_insn accept[2] = {
        {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1},
        {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
    };
    LIBBPF_OPTS(bpf_prog_load_opts, opts,
                .expected_attach_type = static_cast<bpf_attach_type>(kAttachNetfilter));
    int fd = bpf_prog_load(static_cast<bpf_prog_type>(kProgTypeNetfilter), "stap_nf", "GPL",
                           accept, 2, &opts);
    if (fd >= 0) {
      close(fd);
      return std::string();
    }
    int err = errno;
    utsname u{};
    uname(&u);
    return std::string("this kernel (") + u.release + ") has no BPF netfilter programs " +
           "(BPF_PROG_TYPE_NETFILTER needs Linux 6.4 or later with CONFIG_NETFILTER_BPF_LINK; " +
           "loading one failed: " + std::strerror(err) + ")";
  }();
  return why;
}

std::string family_name(int64_t pf) {
  switch (pf) {
    case 2: return "NFPROTO_IPV4";
    case 3: return "NFPROTO_ARP";
    case 7: return "NFPROTO_BRIDGE";
    case 10: return "NFPROTO_IPV6";
    default: return "protocol family " + std::to_string(pf);
  }
}

}  // namespace

bool prepare_netfilter(bpf_object* obj, const ir::Probe& p, const ir::NetfilterSpec&,
                       std::string& error) {
  if (const std::string& why = netfilter_missing(); !why.empty()) {
    error = "cannot attach probe " + p.pp + ": " + why;
    return false;
  }
  bpf_program* prog = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  if (!prog) {
    error = "the compiled object has no program for probe " + p.pp;
    return false;
  }
  bpf_program__set_type(prog, static_cast<bpf_prog_type>(kProgTypeNetfilter));
  bpf_program__set_expected_attach_type(prog, static_cast<bpf_attach_type>(kAttachNetfilter));
  return true;
}

// The kernel refuses a second BPF program at one hook's priority (EBUSY):
// probes sharing a priority (stap's default is 0 for all) take the next
// free one above it, in the order they attach.
bool attach_netfilter(bpf_program* prog, const ir::Probe& p, const ir::NetfilterSpec& nf,
                      const AttachReport& report, std::string& error) {
  int32_t priority = int32_t(nf.priority);
  int fd = -1;
  for (int tries = 0; tries < kMaxPriorityTries && priority < INT_MAX; ++tries, ++priority) {
    fd = netfilter_link(bpf_program__fd(prog), nf, priority);
    if (fd >= 0 || errno != EBUSY) break;
  }
  if (fd < 0) {
    int err = errno;
    error = "cannot attach probe " + p.pp + ": ";
    if (err == EAFNOSUPPORT)
      error += "the kernel's BPF netfilter hooks take NFPROTO_IPV4 and NFPROTO_IPV6 only, not " +
               family_name(nf.pf);
    else if (err == EPROTO)
      error += "no hook " + std::to_string(nf.hook) + " in " + family_name(nf.pf);
    else if (err == EBUSY)
      error += "priorities " + std::to_string(nf.priority) + " and the " +
               std::to_string(kMaxPriorityTries - 1) + " above it are taken by other BPF " +
               "netfilter programs";
    else
      error += std::string("creating the netfilter link failed: ") + std::strerror(err);
    return false;
  }
  hold_link_fd(fd);
  if (report.verbose > 0 && priority != nf.priority)
    std::fprintf(stderr, "Pass 5: %s runs at priority %d (other BPF programs hold %lld to %d)\n",
                 p.pp.c_str(), priority, static_cast<long long>(nf.priority), priority - 1);
  return true;
}

}  // namespace stap
