// Which kernel.function mechanisms this kernel offers, for the live
// cases' `#! needs: kfunc [MECHANISM]` (run_live.sh), as the engine finds
// them (compiler/kernel/kfunc_support.h; STAP_KFUNC_MECHANISM applies).
//   kfunc_mechanisms             lists those that work; exit 1 when none
//   kfunc_mechanisms MECHANISM   exit 0 when it works, else says why, exit 1
#include <cstdio>
#include <cstring>

#include "kernel/kfunc_support.h"

int main(int argc, char** argv) {
  const stap::kernel::KfuncSupport& s = stap::kernel::kfunc_support();
  struct {
    const char* name;
    bool ok;
    const std::string& why;
  } all[] = {{"fentry", s.fentry, s.fentry_why},
             {"kprobe", s.kprobe, s.kprobe_why},
             {"kprobe.multi", s.kprobe_multi, s.kprobe_multi_why}};
  if (argc < 2) {
    for (const auto& m : all)
      if (m.ok) std::printf("%s\n", m.name);
    if (!s.any()) std::printf("%s\n", s.missing_message().c_str());
    return s.any() ? 0 : 1;
  }
  for (const auto& m : all) {
    if (std::strcmp(argv[1], m.name) != 0) continue;
    if (!m.ok) std::printf("no %s: %s\n", m.name, m.why.c_str());
    return m.ok ? 0 : 1;
  }
  std::printf("unknown mechanism %s\n", argv[1]);
  return 2;
}
