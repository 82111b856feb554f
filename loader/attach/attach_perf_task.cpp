// Perf events counting in chosen processes only (perf.*.process("P") and
// .process, stapprobes "PERF"): the event is opened per task (pid = the
// task, cpu = -1), so it counts that task's events wherever it runs and
// nothing else, with `inherit` so that the threads and children the task
// creates from then on get their own copy, the probe's program included
// (the kernel copies the parent event's BPF program to inherited events).
//
//   .process          the -c/-x target: every thread of it when attaching
//                     (the -c child has not exec'd yet, so its whole tree
//                     is counted from its first instruction).
//   .process("P")     every thread of P's processes running at the start,
//                     then each process that execs P while the script runs,
//                     reported by the kernel's process connector (netlink,
//                     PROC_EVENT_EXEC).  A process that inherited the event
//                     from a counted parent (forks are followed too) is not
//                     opened twice.  Its first instructions after exec run
//                     before the event is opened (the report reaches us
//                     asynchronously): a P process that lives less than
//                     that is not seen.
// stap opens one event for the first task its task finder reports for P;
// counting all of P's tasks is what its manual says the probe does.
#include <bpf/libbpf.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "loader/attach/attach.h"
#include "loader/attach/attach_perf_task.h"
#include "loader/attach/proc_tasks.h"

namespace stap {

bool open_task_event(bpf_program* prog, perf_event_attr attr, int tid, bpf_link*& link,
                     int& err) {
  attr.inherit = 1;
  long fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    err = errno;
    return false;
  }
  link = bpf_program__attach_perf_event(prog, int(fd));
  if (!link) {
    err = errno;
    close(int(fd));
    return false;
  }
  return true;
}

// Every thread of process `pid`, listed until a pass finds no new one (a
// thread created while we open is inherited only from a thread that
// already had the event).  ESRCH (a thread that ended meanwhile) is no
// error.  False with `err` when an open fails otherwise.
bool open_process_events(bpf_program* prog, const perf_event_attr& attr, int pid,
                         std::set<int>& opened, std::vector<TaskLink>& links, int& err) {
  for (bool fresh = true; fresh;) {
    fresh = false;
    for (int tid : numbered_entries("/proc/" + std::to_string(pid) + "/task")) {
      if (!opened.insert(tid).second) continue;
      fresh = true;
      bpf_link* link = nullptr;
      if (open_task_event(prog, attr, tid, link, err)) links.push_back({tid, link});
      else if (err != ESRCH) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------- P's processes

namespace {

// One watcher per .process("P") probe: its links (tid -> link, closed
// when the task ends), and the processes that hold the event, opened
// here or inherited from one that did.
class ProcessWatcher {
 public:
  ProcessWatcher(bpf_program* prog, const perf_event_attr& attr, const ir::Probe& p,
                 const struct stat& image)
      : prog_(prog), attr_(attr), pp_(p.pp), dev_(image.st_dev), ino_(image.st_ino) {}
  ~ProcessWatcher() { stop(); }

  // Subscribes first, then opens on the processes already running, so
  // none falls between the two.
  bool start(const AttachReport& report, std::string& error) {
    int sock = subscribe();
    if (sock < 0)
      report.warning("probe " + pp_ + ": cannot follow new processes (process connector: " +
                     std::strerror(errno) + "); only those running now are counted");
    for (int pid : numbered_entries("/proc"))
      if (runs_file(pid, dev_, ino_) && !open_process(pid, error)) {
        if (sock >= 0) close(sock);
        return false;
      }
    if (sock >= 0) {
      sock_ = sock;
      thread_ = std::thread([this] { follow(); });
    }
    return true;
  }

  void stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
    if (sock_ >= 0) close(sock_);
    sock_ = -1;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [tid, link] : links_) bpf_link__destroy(link);
    links_.clear();
  }

 private:
  bool open_process(int pid, std::string& error) {
    std::set<int> tids;
    std::vector<TaskLink> links;
    int err = 0;
    bool ok = open_process_events(prog_, attr_, pid, tids, links, err);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const TaskLink& t : links) links_.emplace(t.tid, t.link);
    counted_.insert(pid);
    if (!ok)
      error = "cannot open the perf event of probe " + pp_ + " in process " +
              std::to_string(pid) + ": " + std::strerror(err);
    return ok;
  }

  static int subscribe() {
    int sock = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
    if (sock < 0) return -1;
    sockaddr_nl addr{};
    addr.nl_family = AF_NETLINK;
    addr.nl_groups = CN_IDX_PROC;
    // nlmsghdr, cn_msg, then the operation (cn_msg ends in a flexible array).
    alignas(nlmsghdr) char listen[NLMSG_SPACE(sizeof(cn_msg) + sizeof(proc_cn_mcast_op))] = {};
    auto* header = reinterpret_cast<nlmsghdr*>(listen);
    header->nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_cn_mcast_op));
    header->nlmsg_type = NLMSG_DONE;
    auto* message = static_cast<cn_msg*>(NLMSG_DATA(header));
    message->id.idx = CN_IDX_PROC;
    message->id.val = CN_VAL_PROC;
    message->len = sizeof(proc_cn_mcast_op);
    proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
    std::memcpy(message->data, &op, sizeof op);
    if (bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        send(sock, listen, header->nlmsg_len, 0) < 0) {
      int err = errno;
      close(sock);
      errno = err;
      return -1;
    }
    return sock;
  }

  // Until stop(): the connector's reports, 100 ms at most between looks
  // at stopping_.
  void follow() {
    alignas(nlmsghdr) char buf[8192];
    while (!stopping_) {
      pollfd pfd{sock_, POLLIN, 0};
      if (poll(&pfd, 1, 100) <= 0) continue;
      ssize_t n = recv(sock_, buf, sizeof buf, 0);
      if (n <= 0) continue;  // ENOBUFS: reports were lost; go on with the next
      for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, size_t(n));
           h = NLMSG_NEXT(h, n)) {
        auto* msg = static_cast<cn_msg*>(NLMSG_DATA(h));
        // cn_msg's 20-byte header leaves its data 4-aligned, and proc_event
        // holds a __u64: copied out, not referenced where it lies (UBSan).
        proc_event e{};
        std::memcpy(&e, msg->data, std::min<size_t>(msg->len, sizeof e));
        on_event(e);
      }
    }
  }

  void on_event(const proc_event& e) {
    if (e.what == proc_event::PROC_EVENT_FORK) {
      // A new process of a counted one holds the inherited event.
      int parent = int(e.event_data.fork.parent_tgid), child = int(e.event_data.fork.child_tgid);
      std::lock_guard<std::mutex> lock(mutex_);
      if (child != parent && counted_.count(parent)) counted_.insert(child);
    } else if (e.what == proc_event::PROC_EVENT_EXEC) {
      int pid = int(e.event_data.exec.process_tgid);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (counted_.count(pid)) return;
      }
      std::string error;
      if (runs_file(pid, dev_, ino_) && !open_process(pid, error) && !error.empty())
        std::fprintf(stderr, "WARNING: %s\n", error.c_str());
    } else if (e.what == proc_event::PROC_EVENT_EXIT) {
      int tid = int(e.event_data.exit.process_pid), pid = int(e.event_data.exit.process_tgid);
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = links_.find(tid);
      if (it != links_.end()) {
        bpf_link__destroy(it->second);
        links_.erase(it);
      }
      if (tid == pid) counted_.erase(pid);
    }
  }

  bpf_program* prog_;
  perf_event_attr attr_;
  std::string pp_;
  dev_t dev_;
  ino_t ino_;
  int sock_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::map<int, bpf_link*> links_;
  std::set<int> counted_;
};

std::mutex watchers_mutex;
std::vector<std::unique_ptr<ProcessWatcher>> watchers;

}  // namespace

bool watch_process_events(bpf_program* prog, const perf_event_attr& attr, const ir::Probe& p,
                          const AttachReport& report, std::string& error) {
  struct stat image;
  if (stat(std::get<ir::PerfSpec>(p.spec).process.c_str(), &image) != 0) {
    error = "probe " + p.pp + ": cannot stat " + std::get<ir::PerfSpec>(p.spec).process + ": " + std::strerror(errno);
    return false;
  }
  auto watcher = std::make_unique<ProcessWatcher>(prog, attr, p, image);
  if (!watcher->start(report, error)) return false;
  std::lock_guard<std::mutex> lock(watchers_mutex);
  watchers.push_back(std::move(watcher));
  return true;
}

void stop_process_watchers() {
  std::lock_guard<std::mutex> lock(watchers_mutex);
  watchers.clear();
}

}  // namespace stap
