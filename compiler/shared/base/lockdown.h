// The kernel's lockdown (kernel_lockdown(7)), for error messages: a
// locked-down kernel refuses some of what tracing uses with a bare EPERM,
// EINVAL or "unknown func" that says nothing of the reason.
//
// integrity (Secure Boot's usual mode) refuses only bpf_probe_write_user,
// which this engine never emits; confidentiality also closes tracefs,
// kprobes and BPF reads of kernel memory.
#pragma once

#include <string>
#include <string_view>

namespace stap::lockdown {

// "none", "integrity" or "confidentiality" as /sys/kernel/security/lockdown
// marks it ("none [integrity] confidentiality"); "" when it cannot be read
// (no lockdown LSM, no securityfs).  Read again at each call: error paths
// only.
std::string mode();

// A sentence to add to a failure when lockdown explains it; "" when the
// kernel is not locked down far enough for that.
std::string explain_tracefs();
std::string explain_kprobes();
// `helper` as the verifier names it ("bpf_probe_read_kernel_str").
std::string explain_helper(std::string_view helper);

}  // namespace stap::lockdown
