// Perf events opened per task, for perf probes counting in chosen
// processes only (attach_perf_task.cpp), and the CPUs the per-CPU ones
// are opened on (attach_perf.cpp).
#pragma once

#include <linux/perf_event.h>

#include <set>
#include <string>
#include <vector>

#include "loader/attach/attach.h"

namespace stap {

// The numbered entries of a /proc directory (pids in /proc, tids in
// /proc/PID/task), in order.
std::vector<int> numbered_entries(const std::string& dir);

// The online CPUs (/sys/devices/system/cpu/online), in order.
std::vector<int> online_cpus();

// The event on every online CPU (pid -1), `prog` attached to each, the
// links appended to `links`.  False with the errno in `err`, the CPU in
// `cpu`, and `opened` when the event opened but the attach failed.
struct CpuEventFailure {
  int err = 0, cpu = 0;
  bool opened = false;
};
bool open_cpu_events(bpf_program* prog, const perf_event_attr& attr,
                     std::vector<bpf_link*>& links, CpuEventFailure& failure);

// The event on every thread of the -c/-x target `target` (0: none),
// inherited by what they create; the links appended to `links`.
enum class TargetEvents : uint8_t { opened, no_target, gone, failed };
TargetEvents open_target_events(bpf_program* prog, const perf_event_attr& attr, int target,
                                std::vector<bpf_link*>& links, int& err);

struct TaskLink {
  int tid;
  bpf_link* link;
};

// The event on task `tid` (every CPU), inherited by the tasks it creates,
// with `prog` attached; false with the errno in `err`.
bool open_task_event(bpf_program* prog, perf_event_attr attr, int tid, bpf_link*& link, int& err);

// The event on every thread of process `pid` not in `opened` (which gains
// them).  A thread gone meanwhile is skipped; false with `err` when an
// open fails otherwise (the links opened so far are in `links`).
bool open_process_events(bpf_program* prog, const perf_event_attr& attr, int pid,
                         std::set<int>& opened, std::vector<TaskLink>& links, int& err);

// .process("P"): the event on P's processes now and on each that execs P
// until stop_process_watchers() (called by destroy_links, before the
// object's programs go).
bool watch_process_events(bpf_program* prog, const perf_event_attr& attr, const ir::Probe& p,
                          const AttachReport& report, std::string& error);
void stop_process_watchers();

}  // namespace stap
