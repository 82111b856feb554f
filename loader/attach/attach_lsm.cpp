// kernel.lsm("HOOK"): a BPF LSM program on bpf_lsm_HOOK.  The kernel runs
// it only when "bpf" is among its active LSMs (CONFIG_BPF_LSM and the
// lsm= boot list); otherwise the link is made but never runs.  And it is
// called through a BPF trampoline, as fentry programs are, which some
// kernels refuse (lockdown).  Both are checked before load and said
// plainly.
#include <bpf/libbpf.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kernel/kfunc_support.h"
#include "loader/attach/attach.h"

namespace stap {

namespace {

// Whether "bpf" is an active LSM: /sys/kernel/security/lsm, securityfs
// mounted first when nothing has mounted it (as tracefs is for trace
// events).  Unknown (no securityfs at all): true, and the kernel decides.
bool bpf_lsm_active(std::string& list) {
  const char* path = "/sys/kernel/security/lsm";
  if (access(path, R_OK) != 0)
    mount("securityfs", "/sys/kernel/security", "securityfs", 0, nullptr);
  std::ifstream in(path);
  if (!in) return true;
  std::getline(in, list);
  std::stringstream names(list);
  for (std::string name; std::getline(names, name, ',');)
    if (name == "bpf") return true;
  return false;
}

}  // namespace

bool prepare_lsm(const ir::Probe& p, const ir::LsmSpec&, std::string& error) {
  std::string active;
  if (!bpf_lsm_active(active)) {
    error = "cannot attach probe " + p.pp + ": the BPF LSM is not active on this kernel (its " +
            "active LSMs are \"" + active + "\"; it needs CONFIG_BPF_LSM and \"bpf\" in the " +
            "lsm= boot parameter)";
    return false;
  }
  const kernel::KfuncSupport& support = kernel::kfunc_support();
  if (!support.fentry) {
    error = "cannot attach probe " + p.pp + ": LSM programs run through BPF trampolines, " +
            "which this kernel refuses (" + support.fentry_why + ")";
    return false;
  }
  return true;
}

bool attach_lsm(bpf_program* prog, const ir::Probe& p, const ir::LsmSpec& lsm,
                std::vector<bpf_link*>& links, std::string& error) {
  bpf_link* link = bpf_program__attach_lsm(prog);
  if (!link) {
    error = "cannot attach probe " + p.pp + " to LSM hook " + lsm.hook + ": " +
            std::strerror(errno);
    return false;
  }
  links.push_back(link);
  return true;
}

}  // namespace stap
