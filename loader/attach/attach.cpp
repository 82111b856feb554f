#include "loader/attach/attach.h"
#include "loader/attach/attach_perf_task.h"

#include <bpf/libbpf.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace stap {

namespace {
constexpr size_t kMaxDetachThreads = 16;
constexpr size_t kLinksPerThread = 1;

std::mutex held_mutex;
std::vector<int> held_fds;  // hold_link_fd's

bpf_program* program_of(bpf_object* obj, const ir::Probe& p, std::string& error) {
  bpf_program* prog = bpf_object__find_program_by_name(obj, p.program_name.c_str());
  if (!prog) error = "the compiled object has no program for probe " + p.pp;
  return prog;
}

}  // namespace

// The table: one case per kind.  User-context kinds (begin, end, error,
// never, timers, procfs files, processes running at the start) run in the
// session, not here.
bool prepare_probe(bpf_object* obj, const ir::Probe& p, std::string& error) {
  if (p.context != ir::Context::kernel) return true;
  return ir::visit_spec(
      p.spec, [](const ir::SessionSpec&) { return true; },
      [](const ir::TimerSpec&) { return true; }, [](const ir::ProcfsSpec&) { return true; },
      [](const ir::RunningTasksSpec&) { return true; },
      [](const ir::TracepointSpec&) { return true; },
      [](const ir::SyscallSpec&) { return true; }, [](const ir::PerfSpec&) { return true; },
      [&](const ir::KfuncSpec& k) { return prepare_kfunc(obj, p, k, error); },
      [&](const ir::UprobeSpec& u) {
        prepare_uprobe(obj, p, u);
        return true;
      },
      [](const ir::BtfTracepointSpec&) { return true; },
      [&](const ir::LsmSpec& lsm) { return prepare_lsm(p, lsm, error); },
      [&](const ir::NetfilterSpec& nf) { return prepare_netfilter(obj, p, nf, error); },
      [](const ir::WatchpointSpec&) { return true; });
}

bool attach_probe(bpf_object* obj, const ir::Probe& p, std::vector<bpf_link*>& links,
                  std::set<std::string>& attached, std::string& error,
                  const AttachReport& report) {
  auto user_context = [&](const auto&) {
    error = std::string("probe ") + p.pp + " of kind " + p.kind_name() + " cannot run in the kernel";
    return false;
  };
  return ir::visit_spec(
      p.spec, [&](const ir::SessionSpec& s) { return user_context(s); },
      [&](const ir::TimerSpec& s) { return user_context(s); },
      [&](const ir::ProcfsSpec& s) { return user_context(s); },
      [&](const ir::RunningTasksSpec& s) { return user_context(s); },
      [&](const ir::TracepointSpec& tp) {
        bpf_program* prog = program_of(obj, p, error);
        return prog && attach_tracepoint(prog, p, tp, links, error);
      },
      [&](const ir::SyscallSpec& sc) {
        if (!attached.insert(p.program_name).second) return true;
        bpf_program* prog = program_of(obj, p, error);
        return prog && attach_syscall(prog, p, sc, links, error);
      },
      [&](const ir::PerfSpec& perf) {
        bpf_program* prog = program_of(obj, p, error);
        return prog && attach_perf(prog, p, perf, links, report, error);
      },
      [&](const ir::KfuncSpec& k) { return attach_kfunc(obj, p, k, links, report, error); },
      [&](const ir::UprobeSpec& u) { return attach_uprobe(obj, p, u, links, report, error); },
      [&](const ir::BtfTracepointSpec& tp) {
        bpf_program* prog = program_of(obj, p, error);
        return prog && attach_btf_tracepoint(prog, p, tp, links, error);
      },
      [&](const ir::LsmSpec& lsm) {
        bpf_program* prog = program_of(obj, p, error);
        return prog && attach_lsm(prog, p, lsm, links, error);
      },
      [&](const ir::NetfilterSpec& nf) {
        bpf_program* prog = program_of(obj, p, error);
        return prog && attach_netfilter(prog, p, nf, report, error);
      },
      [&](const ir::WatchpointSpec& w) {
        bpf_program* prog = program_of(obj, p, error);
        return prog && attach_watchpoint(prog, p, w, links, report, error);
      });
}

void AttachReport::warning(const std::string& message) const {
  if (warn) warn(message);
  else std::fprintf(stderr, "WARNING: %s\n", message.c_str());
}

// Each kprobe or uprobe holds two descriptors (its perf event and its
// link): a wildcard over a module's or a program's functions passes the
// usual soft limit of 1024.  The margin is for the object's maps and
// programs.
void raise_descriptor_limit(size_t links) {
  rlimit lim{};
  rlim_t wanted = links + 256;
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= wanted) return;
  lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, wanted);
  setrlimit(RLIMIT_NOFILE, &lim);
}

void hold_link_fd(int fd) {
  std::lock_guard<std::mutex> lock(held_mutex);
  held_fds.push_back(fd);
}

void destroy_links(std::vector<bpf_link*>& links) {
  stop_process_watchers();  // perf .process("P"): theirs, and no new ones
  {
    // One close each (a uprobe.multi link detaches all its sites at once).
    std::lock_guard<std::mutex> lock(held_mutex);
    for (int fd : held_fds) close(fd);
    held_fds.clear();
  }
  // Detaching a perf-event tracepoint waits for RCU grace periods (tens of
  // ms each, more on a busy machine).  Waits from several threads share
  // grace periods, so many links are detached from many threads at once:
  // 360 syscall tracepoints took 29 s one by one on a loaded 2-CPU host,
  // 11-14 s from 16 threads (more threads did not help).  A thread per
  // link up to that cap: sched:* (26 links) 1.8 s with 3 threads, 1.15 s
  // with 16.  The session detaches after its closing output anyway.
  size_t threads = std::min<size_t>(kMaxDetachThreads, links.size() / kLinksPerThread);
  if (threads <= 1) {
    for (bpf_link* l : links) bpf_link__destroy(l);
  } else {
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t)
      workers.emplace_back([&links, t, threads] {
        for (size_t i = t; i < links.size(); i += threads) bpf_link__destroy(links[i]);
      });
    for (std::thread& w : workers) w.join();
  }
  links.clear();
}

}  // namespace stap
