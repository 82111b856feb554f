// kfunc_support(): which kernel-function mechanisms this kernel offers,
// found by loading and attaching a two-instruction program for each (as
// libbpf's own feature probes do), once per process.  The probes attach
// to a function that is never called in normal operation when the kernel
// has one (bpf_fentry_test1, from the BPF test-run code), so nothing else
// is disturbed for the microseconds each link lives.
#include "kernel/kfunc_support.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "base/lockdown.h"

namespace stap::kernel {

namespace {

// Candidates for the probes' target, most harmless first: the BPF test
// functions run only under BPF_PROG_TEST_RUN; the others exist everywhere.
constexpr const char* kTargets[] = {"bpf_fentry_test1", "vfs_getattr", "vfs_read"};

constexpr const char* kKprobePmu = "/sys/bus/event_source/devices/kprobe/type";

// A file descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// r0 = 0; exit.
const bpf_insn kReturnZero[2] = {
    {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},
    {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
};

std::string failed(const char* what, int err) {
  return std::string(what) + " failed: " + std::strerror(err);
}

// libbpf's messages (for example about BTF it cannot find) are not ours to
// show: the reason goes into the *_why strings.
int silent_print(enum libbpf_print_level, const char*, va_list) { return 0; }

// The BTF id of a probe target in vmlinux, or 0 with `why` set.
uint32_t target_btf_id(std::string& why) {
  btf* vmlinux = btf__load_vmlinux_btf();
  if (!vmlinux) {
    why = "the kernel has no BTF (CONFIG_DEBUG_INFO_BTF): " + std::string(std::strerror(errno));
    return 0;
  }
  uint32_t id = 0;
  for (const char* name : kTargets) {
    int r = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
    if (r > 0) {
      id = uint32_t(r);
      break;
    }
  }
  btf__free(vmlinux);
  if (!id) why = "no function to test fentry on in the kernel's BTF";
  return id;
}

bool probe_fentry(std::string& why) {
  uint32_t id = target_btf_id(why);
  if (!id) return false;
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY,
              .attach_btf_id = id);
  Fd prog(bpf_prog_load(BPF_PROG_TYPE_TRACING, "stap_fentry", "GPL", kReturnZero, 2, &opts));
  if (prog.fd < 0) {
    why = failed("loading a tracing program", errno);
    return false;
  }
  Fd link(bpf_link_create(prog.fd, 0, BPF_TRACE_FENTRY, nullptr));
  if (link.fd < 0) {
    why = failed("attaching a tracing program (BPF trampoline)", errno);
    return false;
  }
  return true;
}

int read_pmu_type() {
  std::ifstream in(kKprobePmu);
  int type = -1;
  if (!(in >> type)) return -1;
  return type;
}

// A kprobe through the perf kprobe PMU with a program on it, as libbpf
// attaches "kprobe/NAME" programs.
bool probe_kprobe(std::string& why) {
  int type = read_pmu_type();
  if (type < 0) {
    why = "CONFIG_KPROBES is not set (no kprobe event source in /sys/bus/event_source/devices)";
    return false;
  }
  Fd prog(bpf_prog_load(BPF_PROG_TYPE_KPROBE, "stap_kprobe", "GPL", kReturnZero, 2, nullptr));
  if (prog.fd < 0) {
    why = failed("loading a kprobe program", errno);
    return false;
  }
  int err = 0;
  for (const char* name : kTargets) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = uint32_t(type);
    attr.config1 = reinterpret_cast<uintptr_t>(name);
    Fd event(int(syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC)));
    if (event.fd < 0) {
      err = errno;
      continue;
    }
    Fd link(bpf_link_create(prog.fd, event.fd, BPF_PERF_EVENT, nullptr));
    if (link.fd < 0) {
      why = failed("attaching a program to a kprobe", errno);
      return false;
    }
    return true;
  }
  why = failed("creating a kprobe", err);
  if (std::string locked = lockdown::explain_kprobes(); err == EPERM && !locked.empty())
    why += ": " + locked;
  return false;
}

bool probe_kprobe_multi(std::string& why) {
  LIBBPF_OPTS(bpf_prog_load_opts, load_opts, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
  Fd prog(bpf_prog_load(BPF_PROG_TYPE_KPROBE, "stap_kmulti", "GPL", kReturnZero, 2, &load_opts));
  if (prog.fd < 0) {
    why = failed("loading a kprobe.multi program", errno);
    return false;
  }
  int err = 0;
  for (const char* name : kTargets) {
    const char* syms[1] = {name};
    LIBBPF_OPTS(bpf_link_create_opts, opts);
    opts.kprobe_multi.syms = syms;
    opts.kprobe_multi.cnt = 1;
    Fd link(bpf_link_create(prog.fd, 0, BPF_TRACE_KPROBE_MULTI, &opts));
    if (link.fd >= 0) return true;
    err = errno;
    // Only a missing symbol is worth another target.
    if (err != ENOENT && err != ESRCH) break;
  }
  why = failed("attaching a kprobe.multi link (CONFIG_FPROBE)", err);
  return false;
}

KfuncSupport detect() {
  KfuncSupport s;
  const char* env = std::getenv("STAP_KFUNC_MECHANISM");
  std::string only = env ? env : "";
  bool known = only.empty() || only == "fentry" || only == "kprobe.multi" || only == "kprobe";
  std::string off = known ? "not chosen (STAP_KFUNC_MECHANISM=" + only + ")"
                          : "STAP_KFUNC_MECHANISM=" + only +
                                " is none of fentry, kprobe.multi, kprobe";
  libbpf_print_fn_t previous = libbpf_set_print(silent_print);
  auto run = [&](const char* name, bool (*probe)(std::string&), bool& ok, std::string& why) {
    if (!known || (!only.empty() && only != name)) {
      why = off;
      return;
    }
    ok = probe(why);
  };
  run("kprobe", probe_kprobe, s.kprobe, s.kprobe_why);
  run("kprobe.multi", probe_kprobe_multi, s.kprobe_multi, s.kprobe_multi_why);
  run("fentry", probe_fentry, s.fentry, s.fentry_why);
  libbpf_set_print(previous);
  return s;
}

}  // namespace

const char* mechanism_name(KfuncMechanism m) {
  switch (m) {
    case KfuncMechanism::fentry: return "fentry";
    case KfuncMechanism::kprobe_multi: return "kprobe.multi";
    case KfuncMechanism::kprobe: return "kprobe";
  }
  return "?";
}

std::string KfuncSupport::missing_message() const {
  return "this kernel offers no mechanism for kernel.function probes (kprobes: " + kprobe_why +
         "; fentry: " + fentry_why + "; kprobe.multi: " + kprobe_multi_why + ")";
}

const KfuncSupport& kfunc_support() {
  static const KfuncSupport support = detect();
  return support;
}

}  // namespace stap::kernel
