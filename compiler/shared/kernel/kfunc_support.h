// Which mechanisms the running kernel offers for kernel-function probes,
// found once per process by asking it (a tiny program loaded and attached
// for each, the way libbpf's feature probes do):
//   fentry/fexit   BPF trampolines: cheapest per hit; one program per function
//   kprobe.multi   one program attached to many functions at once (fprobe)
//   kprobe/kretprobe  everywhere CONFIG_KPROBES is set
// The compiler asks when it resolves a point (no mechanism: the point does
// not resolve, so '!' moves on and '?' drops it); the runtime asks again
// when it attaches, and `-v` says which it used.
#pragma once

#include <string>

namespace stap::kernel {

enum class KfuncMechanism : uint8_t { fentry, kprobe_multi, kprobe };
const char* mechanism_name(KfuncMechanism m);  // "fentry", "kprobe.multi", "kprobe"

struct KfuncSupport {
  bool fentry = false;
  bool kprobe_multi = false;
  bool kprobe = false;
  // Why each is missing, for messages: "CONFIG_KPROBES is not set",
  // "loading a tracing program failed: Operation not permitted".
  std::string fentry_why, kprobe_multi_why, kprobe_why;
  bool any() const { return fentry || kprobe || kprobe_multi; }
  // For the located error when none works: "this kernel offers no
  // mechanism for kernel.function probes (kprobes: ...; fentry: ...)".
  std::string missing_message() const;
};

// Probed once per process.  STAP_KFUNC_MECHANISM=fentry|kprobe.multi|kprobe
// (tests) limits the choice to one mechanism, as if the kernel had only it.
const KfuncSupport& kfunc_support();

}  // namespace stap::kernel
