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

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "loader/attach/attach_perf_task.h"

namespace stap {

namespace {

// Fields of /proc/PID[/task/TID]/stat: the parent (4) and the start time
// (22), read after the command name, which may hold spaces and parentheses.
struct TaskStat {
  int ppid = 0;
  uint64_t start = 0;
  bool ok = false;
};

TaskStat read_stat(const std::string& dir) {
  std::ifstream f(dir + "/stat");
  std::string line;
  std::getline(f, line);
  TaskStat st;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return st;
  std::istringstream rest(line.substr(close + 1));
  std::string word;
  for (int field = 3; rest >> word; ++field) {
    if (field == 4) st.ppid = std::atoi(word.c_str());
    if (field == 22) {
      st.start = std::strtoull(word.c_str(), nullptr, 10);
      st.ok = true;
      break;
    }
  }
  return st;
}

// A user process: its program (stat of /proc/PID/exe); false for a
// kernel thread or a zombie, which have none.
bool program_of(int pid, struct stat& st) {
  return stat(("/proc/" + std::to_string(pid) + "/exe").c_str(), &st) == 0;
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
    for (int pid : pids) parent[pid] = read_stat("/proc/" + std::to_string(pid)).ppid;
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
    struct stat program {};
    if (!program_of(pid, program)) continue;
    if (!spec.path.empty() && (program.st_dev != wanted.st_dev || program.st_ino != wanted.st_ino))
      continue;
    if (tree && scope.target && !in_tree(pid)) continue;
    std::string dir = "/proc/" + std::to_string(pid);
    if (!spec.threads) {
      TaskStat st = read_stat(dir);
      if (st.ok && st.start <= scope.attached_ticks) out.push_back(pid);
      continue;
    }
    for (int tid : numbered_entries(dir + "/task")) {
      if (tid == pid) continue;
      TaskStat st = read_stat(dir + "/task/" + std::to_string(tid));
      if (st.ok && st.start <= scope.attached_ticks) out.push_back(tid);
    }
  }
  return out;
}

}  // namespace stap
