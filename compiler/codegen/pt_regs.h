// Byte offsets in x86_64's struct pt_regs (arch/x86/include/asm/ptrace.h):
// the saved user registers of a system call, a kprobe's or uprobe's
// context, the start of a perf event's.  ABI since the syscall entry code
// was written in C, so constants here.
#pragma once

#include <cstdint>

namespace stap::codegen::pt_regs {

inline constexpr int64_t kR10 = 56, kR9 = 64, kR8 = 72, kAx = 80, kCx = 88, kDx = 96,
                         kSi = 104, kDi = 112, kOrigAx = 120, kIp = 128, kCs = 136;
// The argument registers of the x86_64 syscall ABI, in order.
inline constexpr int64_t kSyscallArgs[6] = {kDi, kSi, kDx, kR10, kR8, kR9};

}  // namespace stap::codegen::pt_regs
