#include "base/lockdown.h"

#include <sys/mount.h>

#include <fstream>
#include <string>

namespace stap::lockdown {

namespace {

constexpr const char* kSecurityfs = "/sys/kernel/security";

bool read_marked(std::string& out) {
  std::ifstream in(std::string(kSecurityfs) + "/lockdown");
  std::string line;
  if (!in || !std::getline(in, line)) return false;
  size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out = line.substr(open + 1, close - open - 1);
  return true;
}

// The level's sentence, or "" below `needed`.
std::string locked_at(std::string_view needed, std::string_view refuses) {
  std::string m = mode();
  bool enough = m == "confidentiality" || (m == "integrity" && needed == "integrity");
  if (!enough) return "";
  return "the kernel is locked down (" + m + ", man 7 kernel_lockdown), which " +
         std::string(refuses);
}

}  // namespace

std::string mode() {
  std::string marked;
  if (read_marked(marked)) return marked;
  // securityfs is not mounted (a minimal system or container): mount it
  // where the kernel documents it, as tracefs is (base/tracefs.cpp).
  if (mount("securityfs", kSecurityfs, "securityfs", 0, nullptr) == 0 && read_marked(marked))
    return marked;
  return "";
}

std::string explain_tracefs() {
  return locked_at("confidentiality",
                   "closes tracefs to root too; kernel.function (fentry), timer, perf, begin "
                   "and end probes need none");
}

std::string explain_kprobes() {
  return locked_at("confidentiality", "refuses kprobes");
}

std::string explain_helper(std::string_view helper) {
  // bpf_probe_read[_str] are what libbpf substitutes for the _kernel forms
  // when its feature probe of those fails, as it does under lockdown.
  if (helper == "bpf_probe_read_kernel" || helper == "bpf_probe_read_kernel_str" ||
      helper == "bpf_probe_read" || helper == "bpf_probe_read_str")
    return locked_at("confidentiality",
                     "refuses BPF reads of kernel memory (bpf_probe_read_kernel and its string "
                     "form); this probe reads kernel data or copies a string with them");
  if (helper == "bpf_probe_write_user")
    return locked_at("integrity", "refuses BPF writes to user memory (bpf_probe_write_user)");
  return "";
}

}  // namespace stap::lockdown
