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
  auto why = [&](int err) { return open_error(p, err); };
  if (spec.target_only)
    return open_target_events(prog, attr, p, report.target_pid,
                              "probe " + p.pp + ": .process without a name counts in the -c "
                              "COMMAND or -x PID target, and there is none",
                              why, links, error);
  if (!spec.process.empty()) return watch_process_events(prog, attr, p, report, error);
  return open_cpu_events(prog, attr, p, "perf event", why, links, error);
}

bool open_cpu_events(bpf_program* prog, const perf_event_attr& attr, const ir::Probe& p,
                     const char* what, const std::function<std::string(int)>& open_error,
                     std::vector<bpf_link*>& links, std::string& error) {
  std::vector<int> cpus = online_cpus();
  if (cpus.empty()) cpus.push_back(0);
  for (int cpu : cpus) {
    long fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      error = open_error(errno);
      return false;
    }
    // The link owns the event's fd from here (closed when it is destroyed).
    bpf_link* link = bpf_program__attach_perf_event(prog, int(fd));
    if (!link) {
      int err = errno;
      close(int(fd));
      error = "cannot attach probe " + p.pp + " to its " + what + " on CPU " +
              std::to_string(cpu) + ": " + std::strerror(err);
      return false;
    }
    links.push_back(link);
  }
  return true;
}

// .process and process.data: every thread of the -c/-x target (the -c
// child, held before its exec, has one), inherited by its whole tree.
bool open_target_events(bpf_program* prog, const perf_event_attr& attr, const ir::Probe& p,
                        int target, const std::string& no_target,
                        const std::function<std::string(int)>& open_error,
                        std::vector<bpf_link*>& links, std::string& error) {
  if (target <= 0) {
    error = no_target;
    return false;
  }
  std::set<int> opened;
  std::vector<TaskLink> opened_links;
  int err = 0;
  bool ok = open_process_events(prog, attr, target, opened, opened_links, err);
  for (const TaskLink& t : opened_links) links.push_back(t.link);
  if (!ok) error = open_error(err);
  else if (opened_links.empty())
    error = "probe " + p.pp + ": the target process " + std::to_string(target) + " is gone";
  return error.empty();
}

}  // namespace stap
