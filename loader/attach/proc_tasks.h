// What the runtime reads of tasks in /proc (proc_tasks.cpp): the pids and
// tids there, fields of a task's stat file, and the program a process
// runs.  Perf probes' .process (attach_perf_task.cpp), the tasks already
// running at start (session/running_tasks.cpp) and the interpreter's
// context functions for such a task (interp/interp_builtins.cpp) share it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stap {

// The numbered entries of a /proc directory (pids in /proc, tids in
// /proc/PID/task), in order.
std::vector<int> numbered_entries(const std::string& dir);

// Field `n` of DIR/stat (DIR: /proc/PID or /proc/PID/task/TID; fields
// numbered from 1 as proc(5) does, n >= 3), read after the command name,
// which may hold spaces and parentheses; nullopt when the task is gone.
std::optional<int64_t> stat_field(const std::string& dir, int n);

// Whether process `pid` runs a program (a kernel thread or a zombie has
// none), and whether it is the file with this device and inode.
bool has_program(int pid);
bool runs_file(int pid, dev_t dev, ino_t ino);

}  // namespace stap
