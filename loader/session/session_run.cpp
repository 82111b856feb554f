// Pass 5 (session_run.h): one Session object owns every resource of the
// run, so that any way out (a load error, a signal during begin, exit(),
// the -c child's end) releases them in one place, in reverse order.
#include "loader/session/session_run.h"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <variant>

#include "loader/attach/attach.h"
#include "bpf_runtime/stap_layout.h"
#include "loader/output/event_drain.h"
#include "loader/output/folded_stacks.h"
#include "loader/output/global_json.h"
#include "loader/output/metrics_server.h"
#include "loader/output/metrics_text.h"
#include "loader/output/output_sink.h"
#include "loader/output/pprof_profile.h"
#include "loader/output/probe_timing.h"
#include "loader/interp/global_store.h"
#include "loader/interp/interpreter.h"
#include "loader/attach/interval_timer.h"
#include "loader/attach/procfs_files.h"
#include "loader/session/object_file.h"
#include "loader/session/running_tasks.h"
#include "loader/session/session_load.h"
#include "loader/session/system_command.h"
#include "loader/symbols/stack_glue.h"
#include "loader/symbols/stack_symbols.h"
#include "loader/session/target_command.h"

namespace stap {

namespace {

// epoll tags; interval timer i is kTagTimer + i, procfs file i kTagProcfs + i.
constexpr uint64_t kTagRing = 0, kTagSignal = 1, kTagChild = 2, kTagTimeout = 3, kTagTimer = 4;
constexpr uint64_t kTagProcfs = uint64_t(1) << 32;
constexpr uint64_t kTagMetrics = uint64_t(1) << 31;  // a --metrics scrape waits

constexpr int kDrainPeriodMs = 100;

// Why the session ends; errors runs error probes instead of end probes,
// abort() runs neither.
enum class Stop { none, exit, signal, child, timeout, errors, abort };

int64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// tz_gmtoff() and tz_name(), fixed at the start as staprun sends them:
// from localtime() now, so daylight saving time is in the offset.
void set_time_zone(stap_globals_header& h) {
  time_t now = time(nullptr);
  tm local{};
  localtime_r(&now, &local);
  h.tz_gmtoff = -local.tm_gmtoff;
  std::snprintf(h.tz_name, sizeof h.tz_name, "%s", local.tm_zone ? local.tm_zone : "");
}

class Session {
 public:
  explicit Session(const RunOptions& options) : options_(options) {}
  ~Session();
  int run(std::string_view object);

 private:
  bool prepare(std::string_view object);
  int run_prepared();
  bool open_output();
  bool init_globals();
  bool start_events();
  bool add_fd(int fd, uint64_t tag);
  void run_probes(ir::SessionSpec::Event event);
  void run_user_probe(size_t index, int subject = 0);
  void run_for_running_tasks();
  bool attach_all();
  Json attached_json() const;
  bool start_timers();
  bool start_procfs();
  bool start_metrics();
  std::string scrape_text();
  void run_procfs(size_t file);
  bool procfs_always_ready() const;
  void loop();
  void on_event(uint64_t tag);
  void drain();
  void flush_if_due(bool idle);
  void check_kernel_counters();
  void request_stop(Stop why);
  void report_error(const std::string& message);
  void report_output_error(const std::string& message);
  void warn(const std::string& message);
  void run_command(const std::string& command);  // system()
  void report_deferred_runs(const stap_globals_header& h);
  int finish();
  int64_t total_errors() const;
  int64_t errors_read() const;
  bool signal_pending();

  static int on_record(void* ctx, void* data, size_t size);
  void close_to_kernel();

  const RunOptions& options_;
  sigset_t stop_signals_{};
  sigset_t old_mask_{};
  bool mask_set_ = false;
  int signal_fd_ = -1;
  int epoll_fd_ = -1;
  int timeout_fd_ = -1;
  ir::Module module_;
  std::FILE* out_ = stdout;
  std::unique_ptr<OutputSink> sink_;  // over out_, text or JSON lines
  Json attached_ = Json::array();  // per attached probe, for JSON
  int64_t last_flush_ms_ = 0;  // CLOCK_MONOTONIC ms of the last output flush
  bpf_object* obj_ = nullptr;
  std::unique_ptr<GlobalStore> store_;
  std::unique_ptr<Interpreter> interpreter_;
  std::unique_ptr<RecordDecoder> decoder_;
  std::unique_ptr<StackSymbols> stacks_;  // stack codes and symbols (stack_symbols.h)
  std::unique_ptr<ProbeTiming> timing_;   // -t (probe_timing.h)
  ring_buffer* ring_ = nullptr;
  std::vector<bpf_link*> links_;
  std::vector<IntervalTimer> timers_;
  std::vector<size_t> timer_probes_;
  std::unique_ptr<ProcfsFiles> procfs_;
  std::unique_ptr<MetricsServer> metrics_;  // --metrics (metrics_server.h)
  TargetCommand child_;
  Stop stop_ = Stop::none;
  int64_t user_errors_ = 0;
  int64_t kernel_error_records_ = 0;
  bool closed_to_kernel_ = false;  // later kernel records are dropped
  std::set<std::string> warned_;
  bool warned_full_ = false;
  int64_t errors_said_ = 0;  // ERROR lines printed: the exit status is 1 then
  int64_t kernel_errors_at_close_ = 0;
};

Session::~Session() {
  procfs_.reset();  // its FIFOs go first: nothing serves them any more
  destroy_links(links_);
  if (ring_) ring_buffer__free(ring_);
  decoder_.reset();
  set_session_stack_symbols(nullptr);
  interpreter_.reset();
  store_.reset();
  if (obj_) bpf_object__close(obj_);
  timers_.clear();
  for (int fd : {timeout_fd_, epoll_fd_, signal_fd_})
    if (fd >= 0) close(fd);
  if (out_ && out_ != stdout) std::fclose(out_);
  if (mask_set_) sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

int Session::run(std::string_view object) {
  if (!prepare(object)) return 1;
  int status = run_prepared();
  if (sink_->json()) {
    sink_->record({{"type", "exit"}, {"status", status}});
    sink_->flush();
  }
  return status;
}

int Session::run_prepared() {
  run_probes(ir::SessionSpec::Event::begin);
  if (stop_ == Stop::none && signal_pending()) request_stop(Stop::signal);
  if (stop_ == Stop::none) {
    std::string error;
    if (!attach_all() || !fill_stack_glue(obj_, error) || !start_timers()) {
      if (!error.empty()) std::fprintf(stderr, "ERROR: %s\n", error.c_str());
      child_.abort();
      return 1;
    }
    if (sink_->json()) sink_->record(attached_json());
    __atomic_store_n(&store_->header().state, STAP_STATE_RUNNING, __ATOMIC_SEQ_CST);
    run_for_running_tasks();
  }
  // The command's own output must come after everything begin printed.
  // It starts even when begin already ended the session, as stap starts it
  // once the module is up, and then runs on its own.
  std::fflush(out_);
  child_.release();
  loop();
  return finish();
}

// Everything up to the begin probes; false after printing why.
bool Session::prepare(std::string_view object) {
  // SIGINT/SIGTERM/SIGHUP are read from a signalfd from now on, so that
  // one arriving during begin or end probes is handled, never fatal.
  sigemptyset(&stop_signals_);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop_signals_, s);
  sigprocmask(SIG_BLOCK, &stop_signals_, &old_mask_);
  mask_set_ = true;
  signal_fd_ = signalfd(-1, &stop_signals_, SFD_NONBLOCK | SFD_CLOEXEC);

  std::string error;
  if (!read_object_module(object, module_, error)) {
    std::fprintf(stderr, "ERROR: %s\n", error.c_str());
    return false;
  }
  if (std::string lacking = missing_bpf_privileges(); !lacking.empty()) {
    std::fprintf(stderr, "ERROR: %s\n", lacking.c_str());
    return false;
  }
  if (!open_output()) return false;
  LoadOptions load{options_.verbose, options_.buffer_mb,
                   UnwindSources{options_.command, options_.target_pid, options_.symbol_modules}};
  obj_ = load_object(object, module_, load, error);
  if (!obj_) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return false;
  }
  return init_globals() && start_events() && start_procfs() && start_metrics();
}

// --metrics: the server listens from before the begin probes, so that a
// port in use fails the run before anything ran.
bool Session::start_metrics() {
  if (options_.metrics_port < 0) return true;
  metrics_ = std::make_unique<MetricsServer>();
  std::string error;
  if (!metrics_->start(options_.metrics_host, options_.metrics_port, error) ||
      !add_fd(metrics_->wake_fd(), kTagMetrics)) {
    std::fprintf(stderr, "ERROR: %s\n", error.empty() ? std::strerror(errno) : error.c_str());
    return false;
  }
  if (options_.verbose > 0)
    std::fprintf(stderr, "Pass 5: metrics at http://%s:%d/metrics\n", options_.metrics_host.c_str(),
                 metrics_->port());
  return true;
}

// One scrape's text: every numeric global, then what a probe prometheus
// body (procfs("__prometheus").read, tapsets/prometheus.stp) sets.
std::string Session::scrape_text() {
  std::string extra;
  for (size_t i = 0; i < module_.probes.size(); ++i) {
    const auto* spec = module_.probes[i].as<ir::ProcfsSpec>();
    if (!spec || spec->write || spec->path != "__prometheus" || stop_ != Stop::none) continue;
    interpreter_->procfs_text().clear();
    run_user_probe(i);
    extra += interpreter_->procfs_text();
  }
  return metrics_text(module_, *store_, extra);
}

bool Session::open_output() {
  if (!options_.output_file.empty()) {
    out_ = std::fopen(options_.output_file.c_str(), "w");
    if (!out_) {
      std::fprintf(stderr, "ERROR: Couldn't open output file %s: %s\n",
                   options_.output_file.c_str(), std::strerror(errno));
      return false;
    }
  }
  // Line by line to a terminal (as stap's output appears), in large
  // blocks to a file or a pipe; flushed at the end and before -c starts.
  static char stdout_buffer[1 << 16];
  // Standard output to a file shared with the -c command (its stdout is
  // ours): appends, or the command's copy_file_range (cat's), which
  // writes at the shared offset without the kernel's offset lock, can
  // write over what we wrote at the same moment.  (O_APPEND also makes
  // cat fall back to plain writes.)
  struct stat st;
  if (out_ == stdout && fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
    int flags = fcntl(STDOUT_FILENO, F_GETFL);
    if (flags >= 0) fcntl(STDOUT_FILENO, F_SETFL, flags | O_APPEND);
  }
  bool tty = isatty(fileno(out_));
  char* buffer = out_ == stdout ? stdout_buffer : nullptr;
  std::setvbuf(out_, buffer, tty ? _IOLBF : _IOFBF, sizeof stdout_buffer);
  sink_ = std::make_unique<OutputSink>(out_, options_.json ? OutputFormat::json : OutputFormat::text);
  return true;
}

bool Session::init_globals() {
  try {
    store_ = std::make_unique<GlobalStore>(module_, obj_);
    decoder_ = std::make_unique<RecordDecoder>(
        module_, [this](size_t g, const Key& k) { return store_->stat_get(g, k); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ERROR: %s\n", e.what());
    return false;
  }
  stacks_ = std::make_unique<StackSymbols>(size_t(module_.limits.maxstringlen));
  if (bpf_map* stacks = bpf_object__find_map_by_name(obj_, STAP_STACKS_MAP)) {
    bpf_map* lost = bpf_object__find_map_by_name(obj_, STAP_STACKS_LOST_MAP);
    stacks_->set_maps(bpf_map__fd(stacks), bpf_map__value_size(stacks), lost ? bpf_map__fd(lost) : -1);
  }
  set_session_stack_symbols(stacks_.get());
  procfs_ = std::make_unique<ProcfsFiles>(
      module_, options_.module_name.empty() ? "stap" : options_.module_name, options_.verbose);
  if (!options_.command.empty()) {
    std::string error;
    if (!child_.start(options_.command, procfs_->reads_stdin(), error)) {
      std::fprintf(stderr, "ERROR: cannot start the -c command: %s\n", error.c_str());
      return false;
    }
  }
  stap_globals_header& h = store_->header();
  h.target_pid = options_.command.empty() ? options_.target_pid : child_.pid();
  // bpf_ktime_get_ns() is CLOCK_MONOTONIC; gettimeofday_*() add this.
  h.realtime_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
  h.runtime_pid = getpid();
  set_time_zone(h);
  __atomic_store_n(&h.state, STAP_STATE_STARTING, __ATOMIC_SEQ_CST);

  InterpreterHost host;
  host.out = out_;
  host.sink = sink_.get();
  host.target_pid = h.target_pid;
  host.request_exit = [this] { request_stop(Stop::exit); };
  host.request_abort = [this] { request_stop(Stop::abort); };
  host.warn = [this](const std::string& message) { warn(message); };
  host.system = [this](const std::string& command) { run_command(command); };
  if (!options_.module_name.empty()) host.module_name = options_.module_name;
  interpreter_ = std::make_unique<Interpreter>(module_, *store_, host);
  if (module_.timing) timing_ = std::make_unique<ProbeTiming>(module_);
  return true;
}

bool Session::add_fd(int fd, uint64_t tag) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  return epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool Session::start_events() {
  bpf_map* events = bpf_object__find_map_by_name(obj_, STAP_EVENTS_MAP);
  if (events) ring_ = ring_buffer__new(bpf_map__fd(events), on_record, this, nullptr);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (!ring_ || epoll_fd_ < 0 || signal_fd_ < 0) {
    std::fprintf(stderr, "ERROR: cannot read the %s ring buffer: %s\n", STAP_EVENTS_MAP,
                 std::strerror(errno));
    return false;
  }
  bool ok = add_fd(ring_buffer__epoll_fd(ring_), kTagRing) && add_fd(signal_fd_, kTagSignal);
  if (child_.exit_fd() >= 0) ok = ok && add_fd(child_.exit_fd(), kTagChild);
  if (!ok) std::fprintf(stderr, "ERROR: epoll: %s\n", std::strerror(errno));
  return ok;
}

// begin, end or error probes: in sequence order (declaration order among
// equal sequences), stopping early when an error ends the session.
void Session::run_probes(ir::SessionSpec::Event event) {
  std::vector<std::pair<int64_t, size_t>> order;  // sequence, index
  for (size_t i = 0; i < module_.probes.size(); ++i)
    if (const auto* s = module_.probes[i].as<ir::SessionSpec>(); s && s->event == event)
      order.emplace_back(s->sequence, i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& entry : order) {
    // exit() or too many errors in a begin probe skip the begin probes
    // left, as stap's session state does; end and error probes all run.
    if (event == ir::SessionSpec::Event::begin && stop_ != Stop::none) break;
    run_user_probe(entry.second);
  }
}

// process.begin / .thread.begin for the tasks already running (their
// user-context twins, ir::RunningTasksSpec), once the probes are attached
// so that a task started meanwhile is the kernel probes' (running_tasks.h).
void Session::run_for_running_tasks() {
  RunningTasksScope scope;
  scope.target = int(store_->header().target_pid);
  scope.command = !options_.command.empty();
  scope.self = int(getpid());
  scope.attached_ticks = boot_ticks_now();
  for (size_t i = 0; i < module_.probes.size(); ++i) {
    const auto* spec = module_.probes[i].as<ir::RunningTasksSpec>();
    if (!spec) continue;
    for (int tid : running_tasks(*spec, scope)) {
      if (stop_ != Stop::none) return;
      run_user_probe(i, tid);
    }
  }
}

void Session::run_user_probe(size_t index, int subject) {
  // The text display of a global written but never read becomes its
  // record in JSON (global_json.h).
  if (int64_t g = module_.probes[index].displays_global; g >= 0 && sink_->json()) {
    sink_->record(global_json(module_, *store_, size_t(g)));
    return;
  }
  int64_t start = timing_ ? clock_ns(CLOCK_MONOTONIC) : 0;
  ProbeOutcome outcome = interpreter_->run_probe(index, subject);
  if (timing_) timing_->add(index, clock_ns(CLOCK_MONOTONIC) - start);
  if (!outcome.error) return;
  ++user_errors_;
  report_error(outcome.message);
}

bool Session::attach_all() {
  std::set<std::string> attached;
  if (std::string error; !attach_deferred_runs(obj_, links_, error)) {
    std::fprintf(stderr, "ERROR: %s\n", error.c_str());
    return false;
  }
  for (const ir::Probe& p : module_.probes) {
    if (p.context != ir::Context::kernel) continue;
    std::string error;
    AttachReport report{options_.verbose, [this](const std::string& m) { warn(m); }};
    report.target_pid = int(store_->header().target_pid);
    size_t links_before = links_.size();
    if (!attach_probe(obj_, p, links_, attached, error, report)) {
      std::fprintf(stderr, "ERROR: %s\n", error.c_str());
      return false;
    }
    std::string mechanism = report.mechanism;
    if (mechanism.empty()) mechanism = std::visit([](const auto& s) { return s.kind_name(); }, p.spec);
    attached_.push_back({{"pp", p.pp}, {"mechanism", mechanism}, {"links", links_.size() - links_before}});
  }
  return true;
}

// The attached record: every kernel-context probe with its mechanism.
Json Session::attached_json() const {
  return {{"type", "attached"}, {"probes", attached_.size()}, {"list", attached_}};
}

// The procfs probes' files exist from before the begin probes on, as
// stap's /proc entries do.
bool Session::start_procfs() {
  std::string error;
  if (!procfs_->start(error)) {
    std::fprintf(stderr, "ERROR: %s\n", error.c_str());
    return false;
  }
  for (size_t i = 0; i < procfs_->size(); ++i) {
    if (procfs_->always_ready(i) || add_fd(procfs_->fd(i), kTagProcfs + i)) continue;
    std::fprintf(stderr, "ERROR: epoll: %s\n", std::strerror(errno));
    return false;
  }
  return true;
}

bool Session::procfs_always_ready() const {
  for (size_t i = 0; i < procfs_->size(); ++i)
    if (procfs_->always_ready(i)) return true;
  return false;
}

// A procfs file woke the loop: a write file's pieces run its write probes
// in order, each with $value; a waiting reader gets what the read probe
// set.  Kernel records written before print before the probe's output.
void Session::run_procfs(size_t file) {
  drain();
  if (procfs_->is_write(file)) {
    size_t piece = size_t(std::max<int64_t>(module_.limits.maxstringlen - 1, 1));
    for (std::string& text : procfs_->take_written(file, piece)) {
      for (size_t probe : procfs_->probes(file)) {
        if (stop_ != Stop::none) return;
        interpreter_->procfs_text() = text;
        run_user_probe(probe);
      }
    }
    // The end of standard input: the session goes on until exit(), as stap's.
    if (procfs_->at_end(file) && !procfs_->always_ready(file) && procfs_->fd(file) >= 0)
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, procfs_->fd(file), nullptr);
    return;
  }
  if (!procfs_->reader_waiting(file)) return;
  interpreter_->procfs_text().clear();
  if (stop_ == Stop::none) run_user_probe(procfs_->probes(file).front());
  procfs_->serve(file, interpreter_->procfs_text());
}

bool Session::start_timers() {
  for (size_t i = 0; i < module_.probes.size(); ++i) {
    const ir::TimerSpec* t = module_.probes[i].as<ir::TimerSpec>();
    if (!t) continue;
    timers_.emplace_back(t->period_ns, t->randomize_ns);
    timer_probes_.push_back(i);
  }
  for (size_t i = 0; i < timers_.size(); ++i) {
    if (!timers_[i].start() || !add_fd(timers_[i].fd(), kTagTimer + i)) {
      std::fprintf(stderr, "ERROR: cannot start the timer of probe %s: %s\n",
                   module_.probes[timer_probes_[i]].pp.c_str(), std::strerror(errno));
      return false;
    }
  }
  if (options_.timeout_s > 0) {
    timeout_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    itimerspec spec{};
    spec.it_value.tv_sec = options_.timeout_s;
    if (timeout_fd_ < 0 || timerfd_settime(timeout_fd_, 0, &spec, nullptr) != 0 ||
        !add_fd(timeout_fd_, kTagTimeout)) {
      std::fprintf(stderr, "ERROR: cannot start the -T timer: %s\n", std::strerror(errno));
      return false;
    }
  }
  return true;
}

void Session::loop() {
  epoll_event events[16];
  while (stop_ == Stop::none) {
    // The ring buffer also drains on a period, for records whose writer
    // chose not to wake us (BPF_RB_NO_WAKEUP) and for the header counters.
    // Standard input that epoll cannot wait on (a file) is read each turn.
    bool busy = procfs_always_ready();
    int n = epoll_wait(epoll_fd_, events, 16, busy ? 0 : kDrainPeriodMs);
    if (busy)
      for (size_t i = 0; i < procfs_->size() && stop_ == Stop::none; ++i)
        if (procfs_->always_ready(i)) run_procfs(i);
    if (n == 0) drain();
    if (n < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "ERROR: epoll_wait: %s\n", std::strerror(errno));
      request_stop(Stop::errors);
      break;
    }
    for (int i = 0; i < n && stop_ == Stop::none; ++i) on_event(events[i].data.u64);
    flush_if_due(n == 0);
  }
}

// Output to a pipe or file is block-buffered for throughput, but never
// held back for long: `stap ... | grep` shows lines within ~100 ms, as
// staprun writes what it reads from the kernel as it goes.
void Session::flush_if_due(bool idle) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t now_ms = int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
  if (!idle && now_ms - last_flush_ms_ < kDrainPeriodMs) return;
  std::fflush(out_);
  last_flush_ms_ = now_ms;
}

void Session::on_event(uint64_t tag) {
  if (tag == kTagRing) {
    drain();
  } else if (tag == kTagSignal) {
    signalfd_siginfo info;
    while (read(signal_fd_, &info, sizeof info) == sizeof info) request_stop(Stop::signal);
  } else if (tag == kTagChild) {
    child_.reap();
    request_stop(Stop::child);
  } else if (tag == kTagTimeout) {
    request_stop(Stop::timeout);
  } else if (tag >= kTagProcfs) {
    if (tag - kTagProcfs < procfs_->size()) run_procfs(size_t(tag - kTagProcfs));
  } else if (tag == kTagMetrics) {
    metrics_->serve([this] { return scrape_text(); });
  } else if (tag >= kTagTimer && tag - kTagTimer < timers_.size()) {
    size_t t = tag - kTagTimer;
    // Several missed periods still run the handler once, as a late
    // hrtimer in stap does.
    // Kernel records written before the timer fired print before its
    // output (the BPF side batches wake-ups, so some may still wait).
    if (timers_[t].acknowledge() > 0) {
      drain();
      run_user_probe(timer_probes_[t]);
    }
  }
}

void Session::drain() {
  ring_buffer__consume(ring_);
  check_kernel_counters();
}

// exit() and errors in kernel context also show in the header, so that a
// record lost to a full buffer still stops the session.
void Session::check_kernel_counters() {
  stap_globals_header& h = store_->header();
  if (__atomic_load_n(&h.exit_requested, __ATOMIC_RELAXED)) request_stop(Stop::exit);
  if (!options_.suppress_handler_errors && total_errors() > module_.limits.maxerrors)
    request_stop(Stop::errors);
}

// Records come in the order the kernel reserved them.  Those after an
// exit() or after the error that passed MAXERRORS were written by probes
// that stap would not have run any more (its session state changes inside
// the probe; ours when this loop reads the record), so they are dropped.
int Session::on_record(void* ctx, void* data, size_t size) {
  Session& s = *static_cast<Session*>(ctx);
  if (s.closed_to_kernel_) return 0;
  DecodedRecord r = s.decoder_->decode(data, size);
  switch (r.kind) {
    case DecodedRecord::Kind::print:
      if (r.hist)
        s.sink_->histogram(s.module_.globals[r.hist->global].name, r.hist->key, r.hist->histogram, r.text);
      else
        s.sink_->print(r.text);
      break;
    case DecodedRecord::Kind::exit:
      s.request_stop(Stop::exit);
      s.close_to_kernel();
      break;
    case DecodedRecord::Kind::error:
      ++s.kernel_error_records_;
      s.report_error(r.text);
      // The error that passes MAXERRORS is the last one said, as in stap.
      if (s.errors_read() > s.module_.limits.maxerrors && !s.options_.suppress_handler_errors)
        s.close_to_kernel();
      break;
    case DecodedRecord::Kind::malformed: s.warn("unreadable event record: " + r.text); break;
    case DecodedRecord::Kind::warn: s.warn(r.text); break;
    case DecodedRecord::Kind::system: s.run_command(r.text); break;
    case DecodedRecord::Kind::abort:
      s.request_stop(Stop::abort);
      s.close_to_kernel();
      break;
  }
  return 0;
}

void Session::close_to_kernel() {
  closed_to_kernel_ = true;
  kernel_errors_at_close_ = kernel_error_records_;
}

void Session::request_stop(Stop why) {
  // The first reason wins, except that too many errors or abort() decide
  // which closing probes run whatever came first.
  if (stop_ == Stop::none || why == Stop::errors || why == Stop::abort) stop_ = why;
  // Kernel-context probes stop running now, as stap's session state does.
  if (store_) __atomic_store_n(&store_->header().state, STAP_STATE_STOPPING, __ATOMIC_SEQ_CST);
}

// One runtime error: said at once (after the output so far), counted, and
// past MAXERRORS the session ends with error probes instead of end probes.
// With --suppress-handler-errors an error is only counted: no message, no
// MAXERRORS, and the count in the closing warning.
void Session::report_error(const std::string& message) {
  if (options_.suppress_handler_errors) return;
  sink_->error(message);
  ++errors_said_;
  if (errors_read() > module_.limits.maxerrors) request_stop(Stop::errors);
}

// A file the user asked for (--folded, --pprof) that could not be written
// fails the run, as any ERROR line does.
void Session::report_output_error(const std::string& message) {
  sink_->error(message);
  ++errors_said_;
}

// As staprun: -w silences warnings; without -v each distinct warning is
// said once (up to a bound on what is remembered).
void Session::run_command(const std::string& command) {
  // What the script printed before system() is out before the command's.
  sink_->flush();
  std::fflush(stdout);
  std::string error;
  if (!run_system_command(command, error)) warn("system(\"" + command + "\"): " + error);
}

void Session::warn(const std::string& message) {
  if (options_.suppress_warnings) return;
  if (options_.verbose == 0) {
    constexpr size_t kMaxRemembered = 1024;
    if (warned_.count(message)) return;
    if (warned_.size() == kMaxRemembered) {
      if (!warned_full_ && sink_->json()) sink_->warning("deduplication table full");
      else if (!warned_full_) std::fprintf(stderr, "WARNING deduplication table full\n");
      warned_full_ = true;
    } else {
      warned_.insert(message);
    }
  }
  sink_->warning(message);
}

// Entry bodies that waited for their system call's exit to read user
// memory (compiler/codegen/emit_deferral.cpp): how many, under -v; the
// reads that faulted and could not wait, always: never a silent fallback.
void Session::report_deferred_runs(const stap_globals_header& h) {
  if (options_.verbose >= 1 && h.deferred_runs > 0)
    std::fprintf(stderr, "Pass 5: %llu probe runs waited for their system call's exit to read user "
                 "memory\n", static_cast<unsigned long long>(h.deferred_runs));
  if (h.deferred_failed > 0)
    warn(std::to_string(h.deferred_failed) + " user memory reads faulted at a system call's entry "
         "and could not wait for its exit (the body had already printed or stored, or the call "
         "has more than " + std::to_string(STAP_DEFERRED_SLOTS) + " such probes, or exec had "
         "replaced its memory): they took stap's fallback (its error, the default, or 0)");
}

// Errors whose message has been read: the user-context ones and the
// kernel records drained so far.  The header's count also holds errors
// whose records are still in the ring buffer, so deciding on it would
// stop the session before those are said.
int64_t Session::errors_read() const { return user_errors_ + kernel_error_records_; }

// Kernel errors are counted from their records, and from the header for
// records lost to a full buffer; errors of dropped records do not count.
int64_t Session::total_errors() const {
  if (closed_to_kernel_) return user_errors_ + kernel_errors_at_close_;
  int64_t kernel = kernel_error_records_;
  if (store_) kernel = std::max<int64_t>(kernel, static_cast<int64_t>(store_->header().errors));
  return user_errors_ + kernel;
}

bool Session::signal_pending() {
  signalfd_siginfo info;
  bool any = false;
  while (read(signal_fd_, &info, sizeof info) == sizeof info) any = true;
  return any;
}

int Session::finish() {
  // STOPPING keeps every kernel probe body from running from here on, so
  // the links can wait until the closing output is out: detaching
  // perf-event tracepoints takes tens of ms each (RCU grace periods,
  // serialised in the kernel), which the user should not wait for to see
  // the end probes' report.
  request_stop(stop_ == Stop::none ? Stop::exit : stop_);
  if (metrics_) metrics_->stop();  // scrapes from now on get 503
  drain();
  if (stop_ != Stop::abort)
    run_probes(stop_ == Stop::errors ? ir::SessionSpec::Event::error : ir::SessionSpec::Event::end);
  drain();
  std::fflush(out_);
  if (!options_.folded_file.empty()) {
    std::string error;
    if (!write_folded_stacks(options_.folded_file, module_, *store_, *stacks_, error))
      report_output_error(error);
  }
  if (!options_.pprof_file.empty()) {
    std::string error, warning;
    if (!write_pprof_profile(options_.pprof_file, module_, *store_, *stacks_, error, warning))
      report_output_error(error);
    else if (!warning.empty()) warn(warning);
  }
  if (timing_) {
    bpf_map* times = bpf_object__find_map_by_name(obj_, STAP_TIMING_MAP);
    timing_->add_kernel(times ? bpf_map__fd(times) : -1, store_->possible_cpus());
    timing_->write(*sink_);
    sink_->flush();
  }
  if (uint64_t lost = stacks_->lost_captures())
    warn("There were " + std::to_string(lost) + " stacks the stack map could not hold (full, or "
         "very rarely a hash collision): they count as \"\". Try -D MAXMAPENTRIES=N to enlarge it.");
  const stap_globals_header& h = store_->header();
  report_deferred_runs(h);
  int64_t errors = total_errors();
  if (errors > 0 || h.skipped > 0)
    warn("Number of errors: " + std::to_string(errors) +
         ", skipped probes: " + std::to_string(h.skipped));
  if (h.lost_records > 0 && sink_->json()) {
    sink_->record({{"type", "lost"}, {"records", h.lost_records}});
  } else if (h.lost_records > 0) {
    bpf_map* events = bpf_object__find_map_by_name(obj_, STAP_EVENTS_MAP);
    uint64_t mb = events ? bpf_map__max_entries(events) >> 20 : 0;
    warn("There were " + std::to_string(h.lost_records) +
         " transport failures. Try stap -s to increase the buffer size from " +
         std::to_string(mb) + ".");
  }
  std::fflush(stderr);
  int64_t detach_start = clock_ns(CLOCK_MONOTONIC);
  size_t link_count = links_.size();
  destroy_links(links_);
  if (options_.verbose >= 2)
    std::fprintf(stderr, "Pass 5: detached %zu links in %.1f ms\n", link_count,
                 double(clock_ns(CLOCK_MONOTONIC) - detach_start) / 1e6);
  // staprun's rule: any ERROR line makes the run fail.
  return errors_said_ > 0 ? 1 : 0;
}

}  // namespace

int run_object(std::string_view object_bytes, const RunOptions& options) {
  Session session(options);
  return session.run(object_bytes);
}

}  // namespace stap
