// process.begin / .thread.begin for the tasks that were running before the
// probes attached.  stap's task finder reports each such process at start;
// here the session runs the probe's user-context twin once per task found
// in /proc, scoped as the kernel-context probes are:
//   process(PID)      that process
//   process("P")      processes whose /proc/PID/exe is P (same inode)
//   process           every process; with -x its tree (the target and its
//                     descendants by parent pid); with -c nothing (the
//                     child is held before its exec, and reported then)
// A task started after the probes attached is the kernel probes' (its
// start time, in clock ticks since boot, says so).  Exec is not dated: a
// process that execs while the scan runs can be reported twice.
#include "loader/session/running_tasks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <map>
#include <string>

#include "loader/attach/proc_tasks.h"

namespace stap {

namespace {

// A task started no later than `ticks`: its start time, field 22 of its
// stat file, is in clock ticks since boot.
bool started_by(const std::string& dir, uint64_t ticks) {
  std::optional<int64_t> start = stat_field(dir, 22);
  return start && uint64_t(*start) <= ticks;
}

}  // namespace

uint64_t boot_ticks_now() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) hz = 100;
  return uint64_t(ts.tv_sec) * uint64_t(hz) + uint64_t(ts.tv_nsec) / (1000000000 / uint64_t(hz));
}

std::vector<int> running_tasks(const ir::RunningTasksSpec& spec, const RunningTasksScope& scope) {
  std::vector<int> out;
  bool tree = spec.pid == 0 && spec.path.empty();
  if (tree && scope.command) return out;
  struct stat wanted {};
  if (!spec.path.empty() && stat(spec.path.c_str(), &wanted) != 0) return out;
  std::vector<int> pids = spec.pid ? std::vector<int>{int(spec.pid)} : numbered_entries("/proc");
  std::map<int, int> parent;
  if (tree && scope.target)
    for (int pid : pids)
      parent[pid] = int(stat_field("/proc/" + std::to_string(pid), 4).value_or(0));
  auto in_tree = [&](int pid) {
    for (int hops = 0; pid > 1 && hops < 4096; ++hops) {
      if (pid == scope.target) return true;
      auto it = parent.find(pid);
      if (it == parent.end()) return false;
      pid = it->second;
    }
    return false;
  };
  for (int pid : pids) {
    if (pid == scope.self || (scope.command && pid == scope.target)) continue;
    if (spec.path.empty() ? !has_program(pid) : !runs_file(pid, wanted.st_dev, wanted.st_ino))
      continue;
    if (tree && scope.target && !in_tree(pid)) continue;
    std::string dir = "/proc/" + std::to_string(pid);
    if (!spec.threads) {
      if (started_by(dir, scope.attached_ticks)) out.push_back(pid);
      continue;
    }
    for (int tid : numbered_entries(dir + "/task"))
      if (tid != pid && started_by(dir + "/task/" + std::to_string(tid), scope.attached_ticks))
        out.push_back(tid);
  }
  return out;
}

}  // namespace stap
