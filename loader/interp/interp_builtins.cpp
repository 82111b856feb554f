// The builtins a user-context probe can call: one table keyed by name, one
// function per entry taking the evaluated arguments.  The names and
// signatures are compiler/elaborate/builtins.cpp's (context `both` or
// `user`); the behaviour is that of stap 4.8's tapset functions, in this
// runtime's process: pid(), execname() ... are the runtime's own, as stap's
// begin probes see its own runtime's task.  Those that read kernel memory
// or the runtime's own memory (user_*) are interp_memory.cpp's, listed here;
// other kernel-context builtins are not:
// calling one is a clear runtime error (lowering rejects them first).
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <sched.h>

#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <unordered_map>

#include <zlib.h>

#include "base/errno_names.h"
#include "base/tracefs.h"
#include "base/syscall_table.h"
#include "loader/attach/proc_tasks.h"
#include "loader/interp/interpreter_impl.h"
#include "loader/output/printf_output.h"
#include "loader/symbols/stack_symbols.h"

namespace stap {

using ir::Node;
using Args = std::vector<Value>;
using Impl = Interpreter::Impl;

namespace {

Value num(int64_t v) { return Value::of(v); }
Value str(std::string s) { return Value::of(std::move(s)); }

// A tapset function's result lives in a MAXSTRINGLEN buffer.
std::string fit(const Impl& in, std::string s) { return in.cut(std::move(s)); }

int64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// ---------------------------------------------------------------- control

Value b_log(Impl& in, Args& a, const Node&) {
  in.sink->print(a[0].str + "\n");
  return num(0);
}

Value b_warn(Impl& in, Args& a, const Node&) {
  in.warn(a[0].str);
  return num(0);
}

// ftrace(msg): a line in the ftrace ring buffer through tracefs's
// trace_marker; dropped quietly where there is none, as stap's is.
Value b_ftrace(Impl&, Args& a, const Node&) {
  static const std::string marker = [] {
    std::string error, root = tracefs::find_root(error);
    return root.empty() ? std::string() : root + "/trace_marker";
  }();
  if (marker.empty()) return num(0);
  std::string line = a[0].str + "\n";
  int fd = ::open(marker.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return num(0);
  ssize_t written = ::write(fd, line.data(), line.size());
  (void)written;  // a full or closed buffer drops the line, as stap's
  ::close(fd);
  return num(0);
}

Value b_system(Impl& in, Args& a, const Node&) {
  if (in.host.system) in.host.system(a[0].str);
  else std::fprintf(stderr, "WARNING: system(\"%s\") not run: no session\n", a[0].str.c_str());
  return num(0);
}

Value b_error(Impl& in, Args& a, const Node& n) { in.raise(in.cut(a[0].str), n); }

Value b_exit(Impl& in, Args&, const Node&) {
  if (in.host.request_exit) in.host.request_exit();
  return num(0);
}

// abort(): the session ends now, without end probes, and so does this probe.
Value b_abort(Impl& in, Args&, const Node&) {
  if (in.host.request_abort)
    in.host.request_abort();
  else if (in.host.request_exit)
    in.host.request_exit();
  throw interp::LeaveProbe{};
}

Value b_assert(Impl& in, Args& a, const Node& n) {
  if (a[0].num == 0) in.raise(a.size() > 1 ? in.cut(a[1].str) : "Assertion failed", n);
  return num(0);
}

// ---------------------------------------------------------------- context

// The runtime's own process, or the task a running-tasks probe runs for
// (Impl::subject: process.begin of a process already running), read from
// /proc/TID: 0 or "" once it is gone.
// A "Name:\tvalue..." line of /proc/TID/status: its `index`th number.
int64_t status_field(int tid, const char* name, int index = 0) {
  std::ifstream f("/proc/" + std::to_string(tid) + "/status");
  std::string line, prefix = std::string(name) + ":";
  while (std::getline(f, line)) {
    if (!line.starts_with(prefix)) continue;
    std::istringstream values(line.substr(prefix.size()));
    int64_t v = 0;
    for (int i = 0; i <= index && values >> v; ++i) {
    }
    return v;
  }
  return 0;
}
// Field `n` of the subject's /proc/TID/stat.
int64_t subject_stat(Impl& in, int n) {
  return stat_field("/proc/" + std::to_string(in.subject), n).value_or(0);
}
int64_t subject_or(Impl& in, const char* status_name, int index, int64_t self) {
  return in.subject ? status_field(in.subject, status_name, index) : self;
}

Value b_stp_pid(Impl&, Args&, const Node&) { return num(getpid()); }
Value b_pid(Impl& in, Args&, const Node&) { return num(subject_or(in, "Tgid", 0, getpid())); }
Value b_tid(Impl& in, Args&, const Node&) {
  return num(in.subject ? in.subject : static_cast<int64_t>(syscall(SYS_gettid)));
}
Value b_ppid(Impl& in, Args&, const Node&) { return num(subject_or(in, "PPid", 0, getppid())); }
Value b_uid(Impl& in, Args&, const Node&) { return num(subject_or(in, "Uid", 0, getuid())); }
Value b_euid(Impl& in, Args&, const Node&) { return num(subject_or(in, "Uid", 1, geteuid())); }
Value b_gid(Impl& in, Args&, const Node&) { return num(subject_or(in, "Gid", 0, getgid())); }
Value b_egid(Impl& in, Args&, const Node&) { return num(subject_or(in, "Gid", 1, getegid())); }
Value b_sid(Impl& in, Args&, const Node&) {
  return num(in.subject ? subject_stat(in, 6) : getsid(0));
}
Value b_pgrp(Impl& in, Args&, const Node&) {
  return num(in.subject ? subject_stat(in, 5) : getpgrp());
}
Value b_cpu(Impl& in, Args&, const Node&) {
  return num(in.subject ? subject_stat(in, 39) : sched_getcpu());
}
Value b_execname(Impl& in, Args&, const Node&) {
  return str(read_line(in.subject ? "/proc/" + std::to_string(in.subject) + "/comm"
                                  : std::string("/proc/self/comm")));
}
Value b_pexecname(Impl& in, Args& a, const Node& n) {
  return str(read_line("/proc/" + std::to_string(b_ppid(in, a, n).num) + "/comm"));
}
Value b_target(Impl& in, Args&, const Node&) { return num(in.host.target_pid); }
Value b_pp(Impl& in, Args&, const Node&) { return str(in.probe ? in.probe->pp : ""); }
// probefunc(), is_return(), addr(), user_mode(): stap's answers where a
// probe has no registers (begin, end, timer): no function, not a return,
// no address, not user mode.
Value b_no_function(Impl&, Args&, const Node&) { return str(""); }
Value b_no_registers(Impl&, Args&, const Node&) { return num(0); }
Value b_pn(Impl& in, Args&, const Node&) {
  if (!in.probe) return str("");
  return str(in.probe->pn.empty() ? in.probe->pp : in.probe->pn);
}

// The function name inside pp(): after function(" or statement(", up to
// '@' or '"'; "" when there is none (begin, end, timers).
Value b_ppfunc(Impl& in, Args&, const Node&) {
  const std::string pp = in.probe ? in.probe->pp : "";
  size_t at = pp.find("function(\"");
  size_t skip = 10;
  if (at == std::string::npos) {
    at = pp.find("statement(\"");
    skip = 11;
  }
  if (at == std::string::npos) return str("");
  size_t begin = at + skip;
  size_t end = pp.find_first_of("@\"", begin);
  return str(pp.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
}

// ---------------------------------------------------------------- time

Value b_time_s(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_REALTIME) / 1000000000); }
Value b_time_ms(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_REALTIME) / 1000000); }
Value b_time_us(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_REALTIME) / 1000); }
Value b_time_ns(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_REALTIME)); }
// local_clock and cpu_clock: the kernel's clock the BPF side reads
// (bpf_ktime_get_ns, CLOCK_MONOTONIC).
Value b_mono_ns(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_MONOTONIC)); }
Value b_mono_us(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_MONOTONIC) / 1000); }
Value b_mono_ms(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_MONOTONIC) / 1000000); }
Value b_mono_s(Impl&, Args&, const Node&) { return num(clock_ns(CLOCK_MONOTONIC) / 1000000000); }
// jiffies() and HZ(): the kernel's own, which the BPF side reads too
// (/proc/timer_list shows the counter, the kernel config its rate).
Value b_jiffies(Impl& in, Args&, const Node& n) {
  std::ifstream f("/proc/timer_list");
  std::string line;
  while (std::getline(f, line))
    if (line.starts_with("jiffies: ")) return num(std::stoll(line.substr(9)));
  in.raise("jiffies() needs /proc/timer_list, which cannot be read here", n);
}

Value b_hz(Impl& in, Args&, const Node& n) {
  static const int64_t hz = [] {
    gzFile f = gzopen("/proc/config.gz", "rb");
    if (!f) return int64_t{0};
    char line[256];
    int64_t found = 0;
    while (!found && gzgets(f, line, sizeof line))
      if (std::strncmp(line, "CONFIG_HZ=", 10) == 0) found = std::atoll(line + 10);
    gzclose(f);
    return found;
  }();
  if (hz <= 0) in.raise("HZ() needs the kernel configuration (/proc/config.gz), which cannot be read here", n);
  return num(hz);
}

Value b_module_name(Impl& in, Args&, const Node&) { return str(in.host.module_name); }

Value b_get_cycles(Impl&, Args&, const Node&) {
  unsigned lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return num(static_cast<int64_t>((static_cast<uint64_t>(hi) << 32) | lo));
}

// The zone the session started in (session_run.cpp fills the header).
Value b_tz_gmtoff(Impl& in, Args&, const Node&) { return num(in.store.header().tz_gmtoff); }
Value b_tz_name(Impl& in, Args&, const Node&) {
  const stap_globals_header& h = in.store.header();
  return str(in.cut(std::string(h.tz_name, strnlen(h.tz_name, sizeof h.tz_name))));
}

// "Wed Jun 30 21:49:08 1993", UTC, as stap's ctime; stap refuses times a
// 32-bit time_t cannot hold.
Value b_ctime(Impl& in, Args& a, const Node& n) {
  int64_t secs = a.empty() ? clock_ns(CLOCK_REALTIME) / 1000000000 : a[0].num;
  if (secs > 2147483647LL) in.raise("Time too far in the future to be converted", n);
  if (secs < -2147483648LL) in.raise("Time too far in the past to be converted", n);
  static const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  time_t t = static_cast<time_t>(secs);
  tm parts{};
  gmtime_r(&t, &parts);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %s %2d %02d:%02d:%02d %d", days[parts.tm_wday],
                months[parts.tm_mon], parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                parts.tm_year + 1900);
  return str(buf);
}

// ---------------------------------------------------------------- strings

Value b_strlen(Impl&, Args& a, const Node&) {
  return num(static_cast<int64_t>(std::strlen(a[0].str.c_str())));
}

// substr(str, start, length): "" unless 0 <= start < strlen; at most
// length bytes (and MAXSTRINGLEN-1).
Value b_substr(Impl& in, Args& a, const Node&) {
  const std::string& s = a[0].str;
  int64_t start = a[1].num, length = a[2].num;
  if (start < 0 || static_cast<uint64_t>(start) >= s.size() || length <= 0) return str("");
  return str(fit(in, s.substr(static_cast<size_t>(start), static_cast<size_t>(length))));
}

Value b_isinstr(Impl&, Args& a, const Node&) {
  return num(a[0].str.find(a[1].str) != std::string::npos);
}

Value b_strpos(Impl&, Args& a, const Node&) {
  size_t at = a[0].str.find(a[1].str);
  return num(at == std::string::npos ? -1 : static_cast<int64_t>(at));
}

Value b_str_replace(Impl& in, Args& a, const Node&) {
  const std::string &s = a[0].str, &from = a[1].str, &to = a[2].str;
  if (from.empty()) return str(fit(in, s));
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size())
    out += s.substr(at, hit - at) + to;
  out += s.substr(at);
  return str(fit(in, out));
}

Value b_stringat(Impl& in, Args& a, const Node& n) {
  int64_t pos = a[1].num;
  if (pos < 0 || static_cast<uint64_t>(pos) >= a[0].str.size()) in.raise("Position out of bounds", n);
  return num(static_cast<signed char>(a[0].str[static_cast<size_t>(pos)]));
}

Value b_text_str(Impl& in, Args& a, const Node&) {
  return str(interp::text_str(a[0].str, 0, 0, false, static_cast<size_t>(in.m.limits.maxstringlen)));
}

Value b_text_strn(Impl& in, Args& a, const Node&) {
  int64_t len = std::clamp<int64_t>(a[1].num, 0, in.m.limits.maxstringlen);
  return str(interp::text_str(a[0].str, 0, static_cast<size_t>(len), a[2].num != 0,
                              static_cast<size_t>(in.m.limits.maxstringlen)));
}

Value b_string_quoted(Impl& in, Args& a, const Node&) {
  size_t max = static_cast<size_t>(in.m.limits.maxstringlen);
  return str(interp::text_str(a[0].str, max, max, true, max));
}

// tokenize(input, delim) starts over on a non-empty input; tokenize(delim)
// or an empty input continues.  Empty tokens are skipped.
Value b_tokenize(Impl& in, Args& a, const Node&) {
  const std::string& delim = a.size() == 2 ? a[1].str : a[0].str;
  if (a.size() == 2 && !a[0].str.empty()) {
    in.tokenize_rest = fit(in, a[0].str);
    in.tokenize_active = true;
  }
  while (in.tokenize_active) {
    size_t end = in.tokenize_rest.find_first_of(delim);
    std::string token = in.tokenize_rest.substr(0, end);
    if (end == std::string::npos) {
      in.tokenize_rest.clear();
      in.tokenize_active = false;
    } else {
      in.tokenize_rest.erase(0, end + 1);
    }
    if (!token.empty()) return str(token);
  }
  return str("");
}

// The kernel's simple_strtol: an optional '-', base 0 picks 16 for "0x",
// 8 for "0", else 10; base 16 skips a "0x"; stops at the first non-digit.
Value b_strtol(Impl&, Args& a, const Node&) {
  const char* p = a[0].str.c_str();
  bool negative = *p == '-';
  if (negative) ++p;
  int64_t base = a[1].num;
  bool hex_prefix = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && std::isxdigit(static_cast<unsigned char>(p[2]));
  if (base == 0) base = hex_prefix ? 16 : p[0] == '0' ? 8 : 10;
  if (base == 16 && hex_prefix) p += 2;
  uint64_t v = 0;
  for (; *p; ++p) {
    int c = static_cast<unsigned char>(*p);
    int digit = std::isdigit(c) ? c - '0' : std::isalpha(c) ? std::tolower(c) - 'a' + 10 : 99;
    if (digit >= base) break;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
  }
  return num(static_cast<int64_t>(negative ? 0 - v : v));
}

Value b_isdigit(Impl&, Args& a, const Node&) {
  return num(!a[0].str.empty() && a[0].str[0] >= '0' && a[0].str[0] <= '9');
}

Value b_matched(Impl& in, Args& a, const Node& n) {
  if (!in.last_match_ok)
    in.raise("Attempted to get subexpression " + std::to_string(a[0].num) + " from failed match", n);
  if (a[0].num < 0 || static_cast<uint64_t>(a[0].num) >= in.last_groups.size())
    in.raise("Attempted to get nonexistent subexpression " + std::to_string(a[0].num), n);
  return str(in.last_groups[static_cast<size_t>(a[0].num)]);
}

Value b_ngroups(Impl& in, Args&, const Node& n) {
  if (!in.last_match_ok) in.raise("Attempted to get subexpression count from failed match", n);
  return num(static_cast<int64_t>(in.last_groups.size()));
}

// stap's own table (base/errno_names.h), not the C library's: it names
// fewer numbers.
Value b_errno_str(Impl&, Args& a, const Node&) { return str(std::string(errnos::name(a[0].num))); }

Value b_syscall_name(Impl&, Args& a, const Node&) {
  return str(std::string(syscalls::name(a[0].num)));
}

// indent()/thread_indent(): "%6d %s:%-*s" of the microseconds since the
// counter of that thread (or of indent()) was last at zero, a description
// and the depth in spaces, as stap's tapset/indent.stp.
Value indent_text(Impl& in, int64_t idx, const std::string& desc, int64_t delta) {
  int64_t now = clock_ns(CLOCK_REALTIME) / 1000;
  int64_t& counter = in.indent_counters[idx];
  if (counter == 0) in.indent_stamps[idx] = now;
  int64_t depth = counter + (delta > 0 ? delta : 0);
  counter += delta;
  depth = depth > 0 ? depth - 1 : 0;
  char head[64];
  std::snprintf(head, sizeof head, "%6lld ", static_cast<long long>(now - in.indent_stamps[idx]));
  return str(in.cut(head + desc + ":" + std::string(static_cast<size_t>(std::min<int64_t>(depth, 4096)), ' ')));
}

Value b_indent(Impl& in, Args& a, const Node&) { return indent_text(in, -1, "", a[0].num); }

Value b_thread_indent(Impl& in, Args& a, const Node& n) {
  Args none;
  int64_t tid = b_tid(in, none, n).num;
  std::string desc = b_execname(in, none, n).str + "(" + std::to_string(tid) + ")";
  return indent_text(in, tid, desc, a[0].num);
}

Value b_randint(Impl& in, Args& a, const Node& n) {
  if (static_cast<uint64_t>(a[0].num) > 1024 * 1024) in.raise("range too wide", n);
  if (a[0].num == 0) return num(0);
  static std::mt19937_64 gen{std::random_device{}()};
  return num(static_cast<int64_t>(gen() % static_cast<uint64_t>(a[0].num)));
}

// The kernel's dev_t: 12 bits of major above 20 bits of minor.
Value b_mkdev(Impl&, Args& a, const Node&) { return num((a[0].num << 20) | (a[1].num & 0xfffff)); }
Value b_major(Impl&, Args& a, const Node&) { return num(static_cast<int64_t>(static_cast<uint64_t>(a[0].num) >> 20)); }
Value b_minor(Impl&, Args& a, const Node&) { return num(a[0].num & 0xfffff); }
// The kernel's new_decode_dev() of a 32-bit user-space dev_t, as a kernel one.
Value b_usrdev2kerndev(Impl&, Args& a, const Node&) {
  uint64_t dev = static_cast<uint64_t>(a[0].num) & 0xffffffff;
  uint64_t major = (dev & 0xfff00) >> 8, minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
  return num(static_cast<int64_t>((major << 20) | minor));
}

// ---------------------------------------------------------------- symbols

// Kernel (and, for the u* forms, user) addresses named by the session's
// symbols (stack_symbols.h): kallsyms, and the mappings of the process a
// user stack came from (else the target's).
uint32_t stack_process(Impl& in, const std::string& s) {
  uint32_t p = stack_symbols().process_of(s);
  return p ? p : uint32_t(in.host.target_pid);
}
Value b_symname(Impl& in, Args& a, const Node&) {
  return str(fit(in, stack_symbols().symname(static_cast<uint64_t>(a[0].num), false, 0)));
}
Value b_symdata(Impl& in, Args& a, const Node&) {
  return str(fit(in, stack_symbols().symdata(static_cast<uint64_t>(a[0].num), false, 0)));
}
// The module holding a kernel address: "kernel" for vmlinux's.
Value b_modname(Impl& in, Args& a, const Node& n) {
  NamedAddress named = stack_symbols().name(static_cast<uint64_t>(a[0].num), false, 0, false);
  if (named.name.empty() || named.module.empty()) in.raise("Cannot determine kernel module name", n);
  return str(fit(in, named.module));
}
// A key out of a stack-coded column keeps its code (Value::num): its
// whole stack prints, not the text cut at MAXSTRINGLEN.
std::string stack_text(Impl& in, const Node& n, const Value& v) {
  bool user = n.s.find("ustack") != std::string::npos;
  return stack_symbols().stack_lines(v.str, v.num, user, user ? stack_process(in, v.str) : 0);
}
Value b_print_stack(Impl& in, Args& a, const Node& n) {
  in.sink->print(stack_text(in, n, a[0]));
  return num(0);
}
// sprint_stack keeps whole lines only, up to MAXSTRINGLEN bytes in all.
Value b_sprint_stack(Impl& in, Args& a, const Node& n) {
  return str(StackSymbols::whole_lines(stack_text(in, n, a[0]),
                                       static_cast<size_t>(in.m.limits.maxstringlen)));
}

using Fn = Value (*)(Impl&, Args&, const Node&);

// One entry per name: the function and the argument counts it takes
// (builtins.cpp's signatures; an object file's module is input, so a call
// with another count is refused rather than trusted).
struct Entry {
  Fn fn;
  size_t min_args, max_args;
};

const std::unordered_map<std::string_view, Entry>& table() {
  static const std::unordered_map<std::string_view, Entry> t = [] {
    std::unordered_map<std::string_view, Entry> t = {
      {"log", {b_log, 1, 1}}, {"warn", {b_warn, 1, 1}}, {"system", {b_system, 1, 1}},
      {"error", {b_error, 1, 1}}, {"ftrace", {b_ftrace, 1, 1}},
      {"exit", {b_exit, 0, 0}}, {"abort", {b_abort, 0, 0}}, {"assert", {b_assert, 1, 2}},
      {"pid", {b_pid, 0, 0}}, {"tid", {b_tid, 0, 0}}, {"ppid", {b_ppid, 0, 0}},
      {"uid", {b_uid, 0, 0}}, {"euid", {b_euid, 0, 0}}, {"gid", {b_gid, 0, 0}},
      {"egid", {b_egid, 0, 0}}, {"sid", {b_sid, 0, 0}}, {"pgrp", {b_pgrp, 0, 0}},
      {"cpu", {b_cpu, 0, 0}}, {"execname", {b_execname, 0, 0}},
      {"pexecname", {b_pexecname, 0, 0}}, {"target", {b_target, 0, 0}},
      {"stp_pid", {b_stp_pid, 0, 0}}, {"pp", {b_pp, 0, 0}}, {"pn", {b_pn, 0, 0}},
      {"ppfunc", {b_ppfunc, 0, 0}}, {"probefunc", {b_no_function, 0, 0}},
      {"is_return", {b_no_registers, 0, 0}}, {"addr", {b_no_registers, 0, 0}},
      {"user_mode", {b_no_registers, 0, 0}},
      {"gettimeofday_s", {b_time_s, 0, 0}}, {"gettimeofday_ms", {b_time_ms, 0, 0}},
      {"gettimeofday_us", {b_time_us, 0, 0}}, {"gettimeofday_ns", {b_time_ns, 0, 0}},
      {"get_cycles", {b_get_cycles, 0, 0}}, {"jiffies", {b_jiffies, 0, 0}}, {"HZ", {b_hz, 0, 0}},
      {"module_name", {b_module_name, 0, 0}},
      {"local_clock_ns", {b_mono_ns, 0, 0}}, {"local_clock_us", {b_mono_us, 0, 0}},
      {"local_clock_ms", {b_mono_ms, 0, 0}}, {"local_clock_s", {b_mono_s, 0, 0}},
      {"cpu_clock_ns", {b_mono_ns, 1, 1}}, {"cpu_clock_us", {b_mono_us, 1, 1}},
      {"cpu_clock_ms", {b_mono_ms, 1, 1}}, {"cpu_clock_s", {b_mono_s, 1, 1}},
      {"ctime", {b_ctime, 0, 1}}, {"tz_gmtoff", {b_tz_gmtoff, 0, 0}},
      {"tz_name", {b_tz_name, 0, 0}},
      {"strlen", {b_strlen, 1, 1}}, {"substr", {b_substr, 3, 3}},
      {"isinstr", {b_isinstr, 2, 2}}, {"strpos", {b_strpos, 2, 2}},
      {"str_replace", {b_str_replace, 3, 3}}, {"stringat", {b_stringat, 2, 2}},
      {"text_str", {b_text_str, 1, 1}}, {"text_strn", {b_text_strn, 3, 3}},
      {"string_quoted", {b_string_quoted, 1, 1}}, {"tokenize", {b_tokenize, 1, 2}},
      {"strtol", {b_strtol, 2, 2}}, {"isdigit", {b_isdigit, 1, 1}},
      {"matched", {b_matched, 1, 1}}, {"ngroups", {b_ngroups, 0, 0}},
      {"errno_str", {b_errno_str, 1, 1}}, {"indent", {b_indent, 1, 1}},
      {"thread_indent", {b_thread_indent, 1, 1}}, {"randint", {b_randint, 1, 1}},
      {"MKDEV", {b_mkdev, 2, 2}}, {"MAJOR", {b_major, 1, 1}}, {"MINOR", {b_minor, 1, 1}},
      {"usrdev2kerndev", {b_usrdev2kerndev, 1, 1}}, {"syscall_name", {b_syscall_name, 1, 1}},
      {"symname", {b_symname, 1, 1}}, {"symdata", {b_symdata, 1, 1}},
      {"modname", {b_modname, 1, 1}},
      {"print_stack", {b_print_stack, 1, 1}}, {"sprint_stack", {b_sprint_stack, 1, 1}},
      {"print_ustack", {b_print_stack, 1, 1}}, {"sprint_ustack", {b_sprint_stack, 1, 1}},
      // Memory (interp_memory.cpp); the number readers are added below.
      {"task_current", {interp::b_task_current, 0, 0}},
      {"kernel_string", {interp::b_read_string, 1, 2}}, {"kernel_string2", {interp::b_read_string, 2, 2}},
      {"kernel_string_n", {interp::b_read_string, 2, 2}},
      {"user_string", {interp::b_read_string, 1, 2}}, {"user_string2", {interp::b_read_string, 2, 2}},
      {"user_string_n", {interp::b_read_string, 2, 3}}, {"user_string_n2", {interp::b_read_string, 3, 3}},
      {"user_string_warn", {interp::b_read_string_warn, 1, 2}},
      {"user_string2_warn", {interp::b_read_string_warn, 2, 2}},
      {"user_string_n_warn", {interp::b_read_string_warn, 2, 3}},
      {"user_string2_n_warn", {interp::b_read_string_warn, 3, 3}},
      {"kernel_string_quoted", {interp::b_read_quoted, 1, 1}},
      {"user_string_quoted", {interp::b_read_quoted, 1, 1}},
      {"user_string_n_quoted", {interp::b_read_quoted, 2, 3}},
      {"user_string_n2_quoted", {interp::b_read_quoted, 3, 3}},
      {"kernel_buffer_quoted", {interp::b_read_quoted, 2, 3}},
      {"kernel_buffer_quoted_error", {interp::b_read_quoted, 3, 3}},
      {"user_buffer_quoted", {interp::b_read_quoted, 3, 3}},
      {"user_buffer_quoted_error", {interp::b_read_quoted, 3, 3}},
      {"kernel_string_utf16", {interp::b_read_string_utf, 1, 1}},
      {"kernel_string_utf32", {interp::b_read_string_utf, 1, 1}},
      {"user_string_utf16", {interp::b_read_string_utf, 1, 1}},
      {"user_string_utf32", {interp::b_read_string_utf, 1, 1}},
    };
    for (std::string_view name : interp::number_reader_names()) t[name] = {interp::b_read_number, 1, 1};
    return t;
  }();
  return t;
}

}  // namespace

Value Interpreter::Impl::builtin(const Node& n) {
  auto it = table().find(n.s);
  if (it == table().end())
    raise(n.s + "() cannot run in a begin, end, error or timer probe (this runtime does not provide it in user context)", n);
  const Entry& entry = it->second;
  if (n.kids.size() < entry.min_args || n.kids.size() > entry.max_args)
    raise("internal error: " + n.s + "() called with " + std::to_string(n.kids.size()) + " arguments", n);
  Args args;
  for (const Node* k : n.kids) args.push_back(eval(*k));
  return entry.fn(*this, args, n);
}

// ---------------------------------------------------------------- regex

// =~ with POSIX extended regular expressions (stap's own matcher takes
// the same syntax); a successful match keeps its groups for matched(n).
bool Interpreter::Impl::regex_match(const std::string& text, const std::string& pattern, const Node& at) {
  auto& slot = regexes[pattern];
  if (!slot) {
    slot = std::make_unique<interp::CompiledRegex>();
    slot->ok = regcomp(&slot->re, pattern.c_str(), REG_EXTENDED) == 0;
  }
  if (!slot->ok) raise("invalid regular expression '" + pattern + "'", at);
  std::vector<regmatch_t> groups(slot->re.re_nsub + 1);
  bool hit = regexec(&slot->re, text.c_str(), groups.size(), groups.data(), 0) == 0;
  last_match_ok = hit;
  last_groups.clear();
  if (!hit) return false;
  for (const regmatch_t& g : groups)
    last_groups.push_back(g.rm_so < 0 ? std::string() : text.substr(static_cast<size_t>(g.rm_so),
                                                                     static_cast<size_t>(g.rm_eo - g.rm_so)));
  return true;
}

}  // namespace stap
