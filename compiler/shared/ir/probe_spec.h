// What a probe of each kind needs to run: one type per kind, held by
// ir::Probe as a std::variant.  Code that differs by kind visits the
// variant (ir::visit_spec below, or std::visit with an overload set), so a
// kind that one phase forgets is a compile error there, not a silent
// default.
//
// Each spec lists its fields once, in fields(): serialize.cpp writes and
// reads them in that order, and checks enum values on the way in; print()
// is the kind's line in the module dump (ir/print.h).
//
// Adding a kind: a spec here, appended to ProbeSpec (serialised objects
// carry the index: bump serialize.cpp's magic), and a case in each visit
// the compiler then asks for.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace stap::ir {

// begin, end, error and never probes: run in user context, in `sequence`
// order (begin(-1) before begin).
struct SessionSpec {
  enum class Event : uint8_t { begin, end, error, never };
  static constexpr Event kLastEvent = Event::never;
  Event event = Event::begin;
  int64_t sequence = 0;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.event);
    f(s.sequence);
  }
  const char* kind_name() const;  // "begin", "end", "error", "never"
  void print(std::ostream& o) const;
};

// An interval timer, run in user space: timer.s/ms/us/ns/jiffies/hz(N),
// with .randomize(M).
struct TimerSpec {
  int64_t period_ns = 0;
  int64_t randomize_ns = 0;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.period_ns);
    f(s.randomize_ns);
  }
  const char* kind_name() const { return "timer"; }
  void print(std::ostream& o) const;
};

// A trace event, system:event (kernel.trace).
struct TracepointSpec {
  std::string system, event;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.system);
    f(s.event);
  }
  const char* kind_name() const { return "tracepoint"; }
  void print(std::ostream& o) const;
};

// A system call's entry or exit (event "sys_enter" / "sys_exit"), run from
// the raw sys_enter/sys_exit tracepoint for the call numbered `nr` (-1:
// every call).  One program per direction dispatches on the number, so
// `syscall.*` is one attachment, not 360.
struct SyscallSpec {
  std::string system, event;
  int64_t nr = -1;

  bool is_exit() const { return event.starts_with("sys_exit"); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.system);
    f(s.event);
    f(s.nr);
  }
  const char* kind_name() const { return "syscall"; }
  void print(std::ostream& o) const;
};

// A kernel function's entry or return (kernel.function, module().function,
// kprobe.function): `functions` in `module` ("" = vmlinux).  The runtime
// picks the mechanism (compiler/kernel/kfunc_support.h): fentry/fexit for
// one function, kprobe.multi for many, kprobe/kretprobe where those are
// missing.  arg_count is the trampoline's argument slots, from BTF (-1: no
// BTF for it, or a parameter no trampoline takes, so only kprobes attach);
// a struct passed by value in two registers takes two slots.  Sites
// placed from kernel DWARF (f@file.c:N, .statement) have an offset in
// their function per site, and their point per site (pp()).
struct KfuncSpec {
  std::vector<std::string> functions;
  std::string module;
  bool is_return = false;
  int64_t arg_count = -1;
  std::vector<uint64_t> offsets;
  std::vector<std::string> site_points;

  bool placed_from_dwarf() const { return !offsets.empty(); }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.functions);
    f(s.module);
    f(s.is_return);
    f(s.arg_count);
    f(s.offsets);
    f(s.site_points);
  }
  const char* kind_name() const { return "kfunc"; }
  void print(std::ostream& o) const;
};

// A perf event (timer.profile, perf.*): type/config, sampled every
// `period` events, or `period` times a second when `freq`.  On every CPU,
// or counting in tasks: `.process` the -c/-x target's (target_only),
// `.process("P")` those of each process running the program `process`.
struct PerfSpec {
  int64_t type = 0, config = 0, period = 0;
  bool freq = false;
  bool target_only = false;
  std::string process;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.type);
    f(s.config);
    f(s.period);
    f(s.freq);
    f(s.target_only);
    f(s.process);
  }
  const char* kind_name() const { return "perf"; }
  void print(std::ostream& o) const;
};

// A user-space probe (process("P").function/.statement/.plt/.mark): a
// uprobe (uretprobe when is_return) at each of `offsets` in the file
// `binary`.  Per site: `functions` (probefunc), `site_points` (pp) and
// `semaphores` (a USDT semaphore's file offset, 0 for none).  A site's
// index is its attach cookie (fn_name).  target_pid > 0: that process only
// (process(PID); lowering puts the filter in the body).
struct UprobeSpec {
  std::string binary;
  std::vector<uint64_t> offsets, semaphores;
  std::vector<std::string> functions, site_points;
  bool is_return = false;
  int64_t target_pid = 0;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.binary);
    f(s.offsets);
    f(s.semaphores);
    f(s.functions);
    f(s.site_points);
    f(s.is_return);
    f(s.target_pid);
  }
  const char* kind_name() const { return "uprobe"; }
  void print(std::ostream& o) const;
};

// A BTF tracepoint (kernel.tracepoint("NAME"), module("M").tracepoint):
// a tp_btf program on `name` ("" module: vmlinux's), whose context is the
// tracepoint's arguments, one u64 each, typed by its btf_trace_NAME
// typedef; `args` of them.
struct BtfTracepointSpec {
  std::string name, module;
  int64_t args = 0;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.name);
    f(s.module);
    f(s.args);
  }
  const char* kind_name() const { return "tp_btf"; }
  void print(std::ostream& o) const;
};

// An LSM hook (kernel.lsm("HOOK")): a BPF LSM program on the hook's
// bpf_lsm_HOOK attachment point, whose context is the hook's `args`
// arguments, one u64 each, then the verdict of the BPF LSM programs run
// before it; the program's return value is the hook's verdict.
struct LsmSpec {
  std::string hook;
  int64_t args = 0;
  bool verdict = false;  // the hook returns int: the program's return value counts

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.hook);
    f(s.args);
    f(s.verdict);
  }
  const char* kind_name() const { return "lsm"; }
  void print(std::ostream& o) const;
};

// A file the script serves (procfs("PATH").read / .write), run in user
// context: the runtime makes a FIFO for it under
// /var/tmp/systemtap-$USER/MODULE/ (loader/attach/procfs_files.h).  A read
// probe's body sets the text each reader gets, at most maxsize - 1 bytes
// (0: MAXSTRINGLEN); a write probe's body gets each piece written.
// path "__stdin" is the script's standard input, one byte per run.
struct ProcfsSpec {
  std::string path;
  bool write = false;
  int64_t maxsize = 0;
  int64_t umask = 0;

  bool is_stdin() const { return path == "__stdin"; }
  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.path);
    f(s.write);
    f(s.maxsize);
    f(s.umask);
  }
  const char* kind_name() const { return "procfs"; }
  void print(std::ostream& o) const;
};

// A netfilter hook (netfilter.hook("H").pf("P")): a BPF netfilter
// program run for each packet of protocol family `pf` (NFPROTO_*) at hook
// `hook`, in `priority` order among the hook's functions.  Its context is
// struct bpf_nf_ctx {state, skb}, read as two u64 slots; its return value
// is the packet's verdict (NF_DROP 0, NF_ACCEPT 1).
struct NetfilterSpec {
  int64_t pf = 0, hook = 0, priority = 0;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.pf);
    f(s.hook);
    f(s.priority);
  }
  const char* kind_name() const { return "netfilter"; }
  void print(std::ostream& o) const;
};

// A hardware watchpoint (kernel.data, process.data): a perf breakpoint
// event on `length` bytes (1, 2, 4 or 8) at `address`, or at the kernel
// symbol `symbol` (looked up in kallsyms when it attaches), firing on
// stores, or on loads and stores when `rw`.  kernel.data on every CPU,
// process.data (user) in the -c/-x target's tasks; the body runs in the
// context of the access, as a perf sample's (struct bpf_perf_event_data).
struct WatchpointSpec {
  int64_t address = 0;  // the address's bits
  std::string symbol;
  int64_t length = 1;
  bool rw = false;
  bool user = false;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.address);
    f(s.symbol);
    f(s.length);
    f(s.rw);
    f(s.user);
  }
  const char* kind_name() const { return "watchpoint"; }
  void print(std::ostream& o) const;
};

// process[("P"|PID)].begin / .thread.begin for the processes (threads)
// already running when the probes are attached, as stap reports them at
// its start: run in user context once per task, the context functions
// (pid(), execname() ...) answering for that task.  The scope: `pid`
// (process(PID)), else `path` (process("P"), the program its exe is),
// else every process, or the -x target's tree (none under -c, whose
// child has not run yet).  The kernel-context probes beside it report
// the processes that start later.
struct RunningTasksSpec {
  bool threads = false;  // .thread.begin: threads other than the group's leader
  int64_t pid = 0;
  std::string path;

  template <class Self, class F>
  static void fields(Self& s, F&& f) {
    f(s.threads);
    f(s.pid);
    f(s.path);
  }
  const char* kind_name() const { return "running_tasks"; }
  void print(std::ostream& o) const;
};

using ProbeSpec = std::variant<SessionSpec, TimerSpec, TracepointSpec, SyscallSpec, KfuncSpec,
                               PerfSpec, UprobeSpec, BtfTracepointSpec, LsmSpec, ProcfsSpec,
                               NetfilterSpec, WatchpointSpec, RunningTasksSpec>;

// The kind's name, as the module dump and messages give it.
const char* kind_name(const ProbeSpec& spec);

// std::visit with one lambda per kind: ir::visit_spec(spec, [](const TimerSpec&) {...}, ...).
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

template <class Spec, class... Fs>
decltype(auto) visit_spec(Spec&& spec, Fs&&... fs) {
  return std::visit(Overloaded{std::forward<Fs>(fs)...}, std::forward<Spec>(spec));
}

}  // namespace stap::ir
