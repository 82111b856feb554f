// uprobe_support() and the raw uprobe.multi link (see uprobe_support.h).
// The feature probe follows the kernel's order of checks: a kernel that
// knows uprobe.multi opens the path before anything else and refuses "/"
// (a directory) with EBADF; an older one refuses the attach type itself
// (EINVAL) before it looks at the path.
#include "kernel/uprobe_support.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace stap::kernel {

namespace {

constexpr uint32_t kUprobeMultiReturn = 1;  // BPF_F_UPROBE_MULTI_RETURN

// union bpf_attr's link_create as 6.6+ lays it out for uprobe.multi: the
// installed linux/bpf.h (6.1) has no such member.
struct UprobeMultiAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  alignas(8) uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t multi_flags;
  uint32_t pid;
};
static_assert(offsetof(UprobeMultiAttr, path) == 16, "link_create's union starts at 16");

// r0 = 0; exit.
const bpf_insn kReturnZero[2] = {
    {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},
    {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
};

int link_create(const UprobeMultiAttr& attr) {
  return int(syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr));
}

std::string failed(const char* what, int err) {
  return std::string(what) + " failed: " + std::strerror(err);
}

UprobeSupport detect() {
  UprobeSupport s;
  const char* env = std::getenv("STAP_UPROBE_MECHANISM");
  if (env && std::strcmp(env, "uprobe.multi") != 0) {
    s.multi_why = std::string("not chosen (STAP_UPROBE_MECHANISM=") + env + ")";
    return s;
  }
  LIBBPF_OPTS(bpf_prog_load_opts, opts,
              .expected_attach_type = static_cast<bpf_attach_type>(kBpfTraceUprobeMulti));
  int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "stap_umulti", "GPL", kReturnZero, 2, &opts);
  if (prog < 0) {
    s.multi_why = failed("loading a uprobe.multi program", errno);
    return s;
  }
  uint64_t offset = 0;
  UprobeMultiAttr attr{};
  attr.prog_fd = uint32_t(prog);
  attr.attach_type = kBpfTraceUprobeMulti;
  attr.path = reinterpret_cast<uintptr_t>("/");
  attr.offsets = reinterpret_cast<uintptr_t>(&offset);
  attr.cnt = 1;
  int link = link_create(attr);
  int err = errno;
  if (link >= 0) close(link);  // not expected; the kernel took "/" after all
  close(prog);
  s.multi = link >= 0 || err == EBADF;
  if (!s.multi) s.multi_why = failed("creating a uprobe.multi link", err);
  return s;
}

}  // namespace

const UprobeSupport& uprobe_support() {
  static const UprobeSupport support = detect();
  return support;
}

int create_uprobe_multi_link(int prog_fd, const std::string& path,
                             const std::vector<uint64_t>& offsets,
                             const std::vector<uint64_t>& ref_ctr_offsets, bool is_return) {
  std::vector<uint64_t> cookies(offsets.size());
  for (size_t i = 0; i < cookies.size(); ++i) cookies[i] = i;
  UprobeMultiAttr attr{};
  attr.prog_fd = uint32_t(prog_fd);
  attr.attach_type = kBpfTraceUprobeMulti;
  attr.path = reinterpret_cast<uintptr_t>(path.c_str());
  attr.offsets = reinterpret_cast<uintptr_t>(offsets.data());
  if (!ref_ctr_offsets.empty()) {
    if (ref_ctr_offsets.size() != offsets.size()) {
      errno = EINVAL;
      return -1;
    }
    attr.ref_ctr_offsets = reinterpret_cast<uintptr_t>(ref_ctr_offsets.data());
  }
  attr.cookies = reinterpret_cast<uintptr_t>(cookies.data());
  attr.cnt = uint32_t(offsets.size());
  attr.multi_flags = is_return ? kUprobeMultiReturn : 0;
  return link_create(attr);
}

}  // namespace stap::kernel
