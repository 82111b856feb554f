// Perf-event probes (timer.profile, perf.*): the probe's event opened on
// every online CPU (perf_event_open, pid -1), its program attached to each;
// with .process, on the tasks of the processes it counts in instead
// (attach_perf_task.cpp).
// A hardware counter this machine lacks (a VM without a PMU) is refused by
// the kernel with ENOENT or EOPNOTSUPP: that is said in words, with the
// way out ('!' falls back at compile time: perf.hw.cpu_cycles!, timer.profile).
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "loader/attach/attach.h"
#include "loader/attach/attach_perf_task.h"

namespace stap {

namespace {

std::string open_error(const ir::Probe& p, int err) {
  const ir::PerfSpec& spec = std::get<ir::PerfSpec>(p.spec);
  std::string what = "cannot open the perf event of probe " + p.pp + " (type " +
                     std::to_string(spec.type) + ", config " + std::to_string(spec.config) +
                     "): " + std::strerror(err);
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
    what += "; this machine does not have that event (hardware counters are often missing in "
            "a virtual machine): use a software event such as perf.sw.cpu_clock or "
            "timer.profile, or let the point fall back (perf.hw.cpu_cycles!, timer.profile)";
  return what;
}

}  // namespace

// "0-3,5,7-8" (/sys/devices/system/cpu/online) as CPU numbers.
std::vector<int> online_cpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string text;
  std::getline(in, text);
  std::vector<int> cpus;
  size_t at = 0;
  while (at < text.size()) {
    size_t comma = text.find(',', at);
    std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t dash = part.find('-');
    try {
      int low = std::stoi(part.substr(0, dash));
      int high = dash == std::string::npos ? low : std::stoi(part.substr(dash + 1));
      for (int c = low; c <= high; ++c) cpus.push_back(c);
    } catch (...) {
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return cpus;
}

bool attach_perf(bpf_program* prog, const ir::Probe& p, const ir::PerfSpec& spec,
                 std::vector<bpf_link*>& links, const AttachReport& report, std::string& error) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = uint32_t(spec.type);
  attr.config = uint64_t(spec.config);
  if (spec.freq) {
    attr.freq = 1;
    attr.sample_freq = uint64_t(spec.period);
  } else {
    attr.sample_period = uint64_t(spec.period);
  }
  if (spec.target_only) {
    int err = 0;
    switch (open_target_events(prog, attr, report.target_pid, links, err)) {
      case TargetEvents::opened: return true;
      case TargetEvents::no_target:
        error = "probe " + p.pp + ": .process without a name counts in the -c COMMAND or -x PID "
                "target, and there is none";
        return false;
      case TargetEvents::gone:
        error = "probe " + p.pp + ": the target process " + std::to_string(report.target_pid) +
                " is gone";
        return false;
      case TargetEvents::failed: error = open_error(p, err); return false;
    }
    return false;
  }
  if (!spec.process.empty()) return watch_process_events(prog, attr, p, report, error);
  CpuEventFailure failure;
  if (open_cpu_events(prog, attr, links, failure)) return true;
  if (!failure.opened) error = open_error(p, failure.err);
  else error = "cannot attach probe " + p.pp + " to its perf event on CPU " +
               std::to_string(failure.cpu) + ": " + std::strerror(failure.err);
  return false;
}

bool open_cpu_events(bpf_program* prog, const perf_event_attr& attr,
                     std::vector<bpf_link*>& links, CpuEventFailure& failure) {
  std::vector<int> cpus = online_cpus();
  if (cpus.empty()) cpus.push_back(0);
  for (int cpu : cpus) {
    failure.cpu = cpu;
    long fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      failure.err = errno;
      return false;
    }
    // The link owns the event's fd from here (closed when it is destroyed).
    bpf_link* link = bpf_program__attach_perf_event(prog, int(fd));
    if (!link) {
      failure.err = errno;
      failure.opened = true;
      close(int(fd));
      return false;
    }
    links.push_back(link);
  }
  return true;
}

// .process and process.data: every thread of the -c/-x target (the -c
// child, held before its exec, has one), inherited by its whole tree.
TargetEvents open_target_events(bpf_program* prog, const perf_event_attr& attr, int target,
                                std::vector<bpf_link*>& links, int& err) {
  if (target <= 0) return TargetEvents::no_target;
  std::set<int> opened;
  std::vector<TaskLink> opened_links;
  bool ok = open_process_events(prog, attr, target, opened, opened_links, err);
  for (const TaskLink& t : opened_links) links.push_back(t.link);
  if (!ok) return TargetEvents::failed;
  return opened_links.empty() ? TargetEvents::gone : TargetEvents::opened;
}

}  // namespace stap
