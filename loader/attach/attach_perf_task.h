// Perf events opened per task, for perf probes counting in chosen
// processes only (attach_perf_task.cpp), and the CPUs the per-CPU ones
// are opened on (attach_perf.cpp).
#pragma once

#include <linux/perf_event.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "loader/attach/attach.h"

namespace stap {

// The online CPUs (/sys/devices/system/cpu/online), in order.
std::vector<int> online_cpus();

// The event on every online CPU (pid -1), `prog` attached to each, the
// links appended to `links`.  False with `error`: open_error(errno) when
// an open fails, else that the attach to the probe's `what` failed.
bool open_cpu_events(bpf_program* prog, const perf_event_attr& attr, const ir::Probe& p,
                     const char* what, const std::function<std::string(int)>& open_error,
                     std::vector<bpf_link*>& links, std::string& error);

// The event on every thread of the -c/-x target `target`, inherited by
// what they create; the links appended to `links`.  False with `error`:
// without a target `no_target`, the target gone, or open_error(errno).
bool open_target_events(bpf_program* prog, const perf_event_attr& attr, const ir::Probe& p,
                        int target, const std::string& no_target,
                        const std::function<std::string(int)>& open_error,
                        std::vector<bpf_link*>& links, std::string& error);

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
