// The tasks a running-tasks probe (ir::RunningTasksSpec: process.begin and
// .thread.begin of what runs before the script) runs for, read from /proc
// once the probes are attached.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace stap {

struct RunningTasksScope {
  int target = 0;        // the -c/-x target, 0 for none
  bool command = false;  // the target is the -c child, not yet exec'd
  int self = 0;          // the runtime's own process, never reported
  // Tasks started later than this (clock ticks since boot, as
  // /proc/TID/stat counts them) are left out: the kernel probes saw them.
  uint64_t attached_ticks = 0;
};

// The clock ticks since boot now (CLOCK_BOOTTIME, in sysconf(_SC_CLK_TCK)).
uint64_t boot_ticks_now();

// The tasks, in pid order: the processes (their leaders' tids), or for
// .thread.begin every other thread; user tasks only (a kernel thread has
// no program, and stap's task finder leaves them out too).
std::vector<int> running_tasks(const ir::RunningTasksSpec& spec, const RunningTasksScope& scope);

}  // namespace stap
