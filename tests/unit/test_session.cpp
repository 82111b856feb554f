// Pass 5: first its pieces that need no kernel (the ring-buffer record
// decoder, the -c command's start gate, interval timers, reading an
// object's module, the driver's -D limits and -G settings), then whole
// sessions through the driver, as root ([live]).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "bpf_runtime/stap_layout.h"
#include "driver/backend.h"
#include "driver/options.h"
#include "driver/session.h"
#include "loader/output/event_drain.h"
#include "loader/attach/interval_timer.h"
#include "loader/session/object_file.h"
#include "loader/session/session_run.h"
#include "loader/session/target_command.h"

namespace fs = std::filesystem;

namespace {

// A record as the BPF side writes it: header, then the payload.
class RecordBytes {
 public:
  RecordBytes(uint32_t kind, uint32_t id) {
    stap_record h{kind, id};
    bytes_.append(reinterpret_cast<const char*>(&h), sizeof h);
  }
  RecordBytes& num(int64_t v) {
    bytes_.append(reinterpret_cast<const char*>(&v), 8);
    return *this;
  }
  RecordBytes& str(const std::string& s, size_t slot) {
    std::string padded = s;
    padded.resize(slot, '\0');
    bytes_ += padded;
    return *this;
  }
  RecordBytes& raw(const std::string& s) {
    bytes_ += s;
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

stap::ir::Module test_module() {
  stap::ir::Module m;
  m.limits.maxstringlen = 16;
  m.formats = {"%d and %s\n", "[%*d]", "%5.2s|%x", "%.4m|%M"};
  m.add_location("operator '/' at <input>:1:30");
  stap::ir::Global h;
  h.name = "h";
  h.type = stap::ir::Type::stats;
  h.keys = {stap::ir::Type::string, stap::ir::Type::long_};
  h.hist.kind = stap::ir::HistShape::Kind::linear;
  h.hist.low = 0;
  h.hist.high = 10;
  h.hist.step = 5;
  m.globals.push_back(h);
  stap::ir::Global plain;
  plain.name = "x";
  m.globals.push_back(plain);
  return m;
}

stap::DecodedRecord decode(const stap::RecordDecoder& d, const RecordBytes& r) {
  return d.decode(r.bytes().data(), r.bytes().size());
}

using Kind = stap::DecodedRecord::Kind;

}  // namespace

TEST_CASE("records: printf values are read per conversion", "[session]") {
  stap::ir::Module m = test_module();
  stap::RecordDecoder d(m, nullptr);
  auto r = decode(d, RecordBytes(STAP_REC_PRINTF, 0).num(-42).str("abc", 16));
  CHECK(r.kind == Kind::print);
  CHECK(r.text == "-42 and abc\n");

  r = decode(d, RecordBytes(STAP_REC_PRINTF, 1).num(5).num(7));
  CHECK(r.text == "[    7]");

  r = decode(d, RecordBytes(STAP_REC_PRINTF, 2).str("hello", 16).num(255));
  CHECK(r.text == "   he|ff");

  // %m: the address, then memory_dump_length(precision) bytes; %M likewise
  // (1 byte without a precision).
  r = decode(d, RecordBytes(STAP_REC_PRINTF, 3).num(0x1000).raw("wxyz").num(0x2000).raw("A"));
  CHECK(r.kind == Kind::print);
  CHECK(r.text == "wxyz|41");
}

TEST_CASE("records: a string slot ends at its first NUL, even when full", "[session]") {
  stap::ir::Module m = test_module();
  stap::RecordDecoder d(m, nullptr);
  std::string full(16, 'z');
  auto r = decode(d, RecordBytes(STAP_REC_PRINTF, 0).num(1).raw(full));
  CHECK(r.text == "1 and " + full + "\n");
  r = decode(d, RecordBytes(STAP_REC_PRINTF, 0).num(1).raw(std::string("ab\0cd", 5) + std::string(11, 'q')));
  CHECK(r.text == "1 and ab\n");
}

TEST_CASE("records: sizes that do not match the format are malformed", "[session]") {
  stap::ir::Module m = test_module();
  stap::RecordDecoder d(m, nullptr);
  CHECK(decode(d, RecordBytes(STAP_REC_PRINTF, 0).num(1)).kind == Kind::malformed);
  CHECK(decode(d, RecordBytes(STAP_REC_PRINTF, 0).num(1).str("a", 16).num(2)).kind ==
        Kind::malformed);
  CHECK(decode(d, RecordBytes(STAP_REC_PRINTF, 9)).kind == Kind::malformed);
  CHECK(decode(d, RecordBytes(77, 0)).kind == Kind::malformed);
  char shorter[4] = {1, 0, 0, 0};
  CHECK(d.decode(shorter, sizeof shorter).kind == Kind::malformed);
}

TEST_CASE("records: exit and errors", "[session]") {
  stap::ir::Module m = test_module();
  stap::RecordDecoder d(m, nullptr);
  CHECK(decode(d, RecordBytes(STAP_REC_EXIT, 0)).kind == Kind::exit);
  auto r = decode(d, RecordBytes(STAP_REC_ERROR, 1).str("division by 0", 16));
  CHECK(r.kind == Kind::error);
  CHECK(r.text == "division by 0 near operator '/' at <input>:1:30");
  // Location 0 is "no location": the message alone.
  r = decode(d, RecordBytes(STAP_REC_ERROR, 0).str("oops", 16));
  CHECK(r.text == "oops");
}

TEST_CASE("records: print(@hist_linear(h[k])) reads the statistic of the key", "[session]") {
  stap::ir::Module m = test_module();
  std::vector<std::pair<size_t, stap::Key>> asked;
  stap::RecordDecoder d(m, [&](size_t g, const stap::Key& k) -> std::optional<stap::StatValue> {
    asked.emplace_back(g, k);
    if (k[0].str != "yes") return std::nullopt;
    stap::StatValue v;
    v.count = 3;
    v.buckets = {0, 2, 1, 0, 0};  // (10-0)/5 + 3 buckets
    return v;
  });
  auto r = decode(d, RecordBytes(STAP_REC_PRINT_HIST, 0).str("yes", 16).num(7));
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].first == 0);
  CHECK(asked[0].second == stap::Key{stap::Value::of(std::string("yes")), stap::Value::of(7)});
  CHECK(r.kind == Kind::print);
  CHECK(r.text.rfind("value |", 0) == 0);
  CHECK(r.text.find("\n    0 |@@ ") != std::string::npos);
  CHECK(r.text.find("\n    5 |@ ") != std::string::npos);
  // An absent statistic prints nothing.
  r = decode(d, RecordBytes(STAP_REC_PRINT_HIST, 0).str("no", 16).num(7));
  CHECK(r.kind == Kind::print);
  CHECK(r.text.empty());
  // Wrong key size, or a global that is no histogram.
  CHECK(decode(d, RecordBytes(STAP_REC_PRINT_HIST, 0).num(7)).kind == Kind::malformed);
  CHECK(decode(d, RecordBytes(STAP_REC_PRINT_HIST, 1)).kind == Kind::malformed);
}

TEST_CASE("records: a damaged format in the object is refused up front", "[session]") {
  stap::ir::Module m;
  m.formats = {"%q"};
  CHECK_THROWS_AS(stap::RecordDecoder(m, nullptr), std::runtime_error);
}

TEST_CASE("-c command: nothing runs before the gate opens", "[session]") {
  fs::path marker = fs::temp_directory_path() / ("stap-gate-" + std::to_string(getpid()));
  fs::remove(marker);
  stap::TargetCommand child;
  std::string error;
  REQUIRE(child.start("echo ran > " + marker.string(), false, error));
  CHECK(child.pid() > 0);
  usleep(100 * 1000);
  CHECK_FALSE(fs::exists(marker));
  child.release();
  pollfd p{child.exit_fd(), POLLIN, 0};
  REQUIRE(poll(&p, 1, 5000) == 1);
  CHECK(child.reap());
  CHECK(fs::exists(marker));
  fs::remove(marker);
}

TEST_CASE("-c command: abort before the gate opens never runs it", "[session]") {
  fs::path marker = fs::temp_directory_path() / ("stap-abort-" + std::to_string(getpid()));
  fs::remove(marker);
  pid_t pid = 0;
  {
    stap::TargetCommand child;
    std::string error;
    REQUIRE(child.start("echo ran > " + marker.string(), false, error));
    pid = child.pid();
    child.abort();
  }
  usleep(50 * 1000);
  CHECK_FALSE(fs::exists(marker));
  CHECK(kill(pid, 0) != 0);  // reaped: no such process
}

TEST_CASE("interval timers: randomized periods stay within [N-M, N+M]", "[session]") {
  stap::IntervalTimer t(1000, 300);
  bool below = false, above = false;
  for (int i = 0; i < 2000; ++i) {
    int64_t p = t.next_period();
    REQUIRE(p >= 700);
    REQUIRE(p <= 1300);
    below |= p < 1000;
    above |= p > 1000;
  }
  CHECK(below);
  CHECK(above);
  stap::IntervalTimer fixed(5000, 0);
  CHECK(fixed.next_period() == 5000);
  stap::IntervalTimer tiny(10, 100);
  for (int i = 0; i < 100; ++i) CHECK(tiny.next_period() >= 1);
}

TEST_CASE("interval timers: the timerfd fires and re-arms", "[session]") {
  stap::IntervalTimer t(2'000'000, 1'000'000);  // 2 ms +- 1 ms
  REQUIRE(t.start());
  for (int i = 0; i < 3; ++i) {
    pollfd p{t.fd(), POLLIN, 0};
    REQUIRE(poll(&p, 1, 1000) == 1);
    CHECK(t.acknowledge() >= 1);
  }
}

TEST_CASE("object file: bytes that are no stap object are refused with a reason", "[session]") {
  stap::ir::Module m;
  std::string error;
  CHECK_FALSE(stap::read_object_module("not an elf", m, error));
  CHECK(error.find("not a compiled stap object") != std::string::npos);
  // A real ELF file without the module section.
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::string self(std::istreambuf_iterator<char>(in), {});
  error.clear();
  CHECK_FALSE(stap::read_object_module(self, m, error));
  CHECK(error.find(".stapbpf.meta") != std::string::npos);
  std::string text;
  CHECK(stap::read_elf_section(self, ".text", text, error));
  CHECK(text.size() > 0);
}

TEST_CASE("-D limits: known names set limits, others are ignored", "[session]") {
  stap::ir::Limits limits;
  std::string error;
  REQUIRE(stap::limits_from_defines({{"MAXSTRINGLEN", "256"},
                                     {"MAXMAPENTRIES", "10000"},
                                     {"MAXERRORS", "3"},
                                     {"MAXACTION", "0x100"},
                                     {"STP_NO_OVERLOAD", ""},
                                     {"MAXSKIPPED", "9"}},
                                    limits, error));
  CHECK(limits.maxstringlen == 256);
  CHECK(limits.maxmapentries == 10000);
  CHECK(limits.maxerrors == 3);
  CHECK(limits.maxaction == 256);
  stap::ir::Limits untouched;
  CHECK_FALSE(stap::limits_from_defines({{"MAXSTRINGLEN", "big"}}, untouched, error));
  CHECK(error.find("MAXSTRINGLEN=big") != std::string::npos);
  CHECK_FALSE(stap::limits_from_defines({{"MAXMAPENTRIES", "0"}}, untouched, error));
  CHECK_FALSE(stap::limits_from_defines({{"MAXERRORS", "-1"}}, untouched, error));
}

TEST_CASE("-G settings: initial values of scalar globals", "[session]") {
  stap::ir::Module m;
  stap::ir::Global n, s, a;
  n.name = "n";
  s.name = "s";
  s.type = stap::ir::Type::string;
  a.name = "a";
  a.keys = {stap::ir::Type::long_};
  m.globals = {n, s, a};
  std::string error;
  REQUIRE(stap::apply_global_settings({"n=-12", "s=hello world"}, m, error));
  CHECK(m.globals[0].init_num == -12);
  CHECK(m.globals[1].init_str == "hello world");
  CHECK_FALSE(stap::apply_global_settings({"a=1"}, m, error));
  CHECK_FALSE(stap::apply_global_settings({"missing=1"}, m, error));
  CHECK_FALSE(stap::apply_global_settings({"n=abc"}, m, error));
  CHECK(error.find("'abc'") != std::string::npos);
}

// ---- whole sessions through the driver (root: they load BPF objects)

namespace {

// Runs `stap ARGS` in-process with script output in a file, stderr
// captured, and a private cache directory.
struct SessionRun {
  int rc = -1;
  std::string out, err, driver_err;
};

class StapRunner {
 public:
  StapRunner() {
    std::string tmpl = (fs::temp_directory_path() / "stap-session-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  ~StapRunner() { fs::remove_all(dir_); }
  const fs::path& dir() const { return dir_; }

  SessionRun run(std::vector<std::string> args) {
    setenv("SYSTEMTAP_DIR", (dir_ / "stapdir").c_str(), 1);
    fs::path out = dir_ / "out.txt", err = dir_ / "err.txt";
    fs::remove(out);
    args.insert(args.begin(), {"stap", "-o", out.string()});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    stap::ParsedCommandLine cl = stap::parse_command_line(static_cast<int>(argv.size()), argv.data());
    SessionRun r;
    std::fflush(stderr);
    int saved = dup(2);
    int fd = open(err.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    dup2(fd, 2);
    close(fd);
    std::ostringstream driver_out, driver_err;
    r.rc = stap::run_session(cl.options, driver_out, driver_err);
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    r.out = slurp(out);
    r.err = slurp(err);
    r.driver_err = driver_err.str();
    return r;
  }

 private:
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path dir_;
};

bool can_load_bpf() { return geteuid() == 0; }

}  // namespace

TEST_CASE("session: begin, end and the cache", "[session][live]") {
  if (!can_load_bpf()) return;
  StapRunner stap;
  const std::string script = "probe begin { printf(\"hi %d\\n\", 7); exit() } probe end { println(\"bye\") }";
  SessionRun first = stap.run({"-v", "-e", script});
  CHECK(first.rc == 0);
  CHECK(first.out == "hi 7\nbye\n");
  CHECK(first.driver_err.find("Pass 4: compiled BPF into \"stap_") != std::string::npos);
  CHECK(first.driver_err.find("Pass 5: run completed in ") != std::string::npos);
  CHECK(first.driver_err.find("using cached") == std::string::npos);

  SessionRun again = stap.run({"-v", "-e", script});
  CHECK(again.rc == 0);
  CHECK(again.out == "hi 7\nbye\n");
  CHECK(again.driver_err.find("Pass 1:") == std::string::npos);
  CHECK(again.driver_err.find("Pass 3: using cached " + (stap.dir() / "stapdir/cache/").string()) !=
        std::string::npos);
  CHECK(again.driver_err.find("Pass 4: using cached ") != std::string::npos);

  // A different argument is a different object: a miss.
  SessionRun other = stap.run({"-v", "-e", script, "arg"});
  CHECK(other.driver_err.find("using cached") == std::string::npos);

  // A damaged cached object is compiled again, not run.
  for (auto& e : fs::recursive_directory_iterator(stap.dir() / "stapdir/cache"))
    if (e.is_regular_file()) std::ofstream(e.path(), std::ios::trunc) << "junk";
  SessionRun repaired = stap.run({"-v", "-e", script});
  CHECK(repaired.rc == 0);
  CHECK(repaired.out == "hi 7\nbye\n");
  CHECK(repaired.driver_err.find("using cached") == std::string::npos);
  CHECK(stap.run({"-v", "-e", script}).driver_err.find("Pass 4: using cached") != std::string::npos);
}

TEST_CASE("session: runtime errors, MAXERRORS and error probes", "[session][live]") {
  if (!can_load_bpf()) return;
  StapRunner stap;
  const std::string script =
      "global i; probe timer.ms(5) { i++; if (i < 3) error(sprintf(\"e%d\", i)); else exit() }"
      " probe end { println(\"end\") } probe error { println(\"error probe\") }";
  // MAXERRORS=0: the first error ends the session; error probes run, end
  // probes do not; the exit code is 1.
  SessionRun r = stap.run({"-e", script});
  CHECK(r.rc == 1);
  CHECK(r.out == "error probe\n");
  CHECK(r.err.find("ERROR: e1\n") == 0);  // error() has no "near" part in stap
  CHECK(r.err.find("ERROR: e2") == std::string::npos);
  CHECK(r.err.find("WARNING: Number of errors: 1, skipped probes: 0\n") != std::string::npos);
  CHECK(r.driver_err.find("Pass 5: run failed.  [man error::pass5]") != std::string::npos);

  // Within MAXERRORS the session goes on and ends normally, still exit 1.
  r = stap.run({"-DMAXERRORS=5", "-e", script});
  CHECK(r.rc == 1);
  CHECK(r.out == "end\n");
  CHECK(r.err.find("ERROR: e2") != std::string::npos);
  CHECK(r.err.find("WARNING: Number of errors: 2, skipped probes: 0\n") != std::string::npos);

  // A warning is said once, as staprun dedups them (unless -v).
  r = stap.run({"-e", "probe begin { warn(\"w1\"); warn(\"w1\"); warn(\"w2\"); exit() }"});
  CHECK(r.rc == 0);
  CHECK(r.err == "WARNING: w1\nWARNING: w2\n");

  // --suppress-handler-errors: counted only; the session goes on to exit().
  r = stap.run({"--suppress-handler-errors", "-e", script});
  CHECK(r.rc == 0);
  CHECK(r.out == "end\n");
  CHECK(r.err == "WARNING: Number of errors: 2, skipped probes: 0\n");

  // -w hides the warning, not the errors.
  r = stap.run({"-w", "-DMAXERRORS=5", "-e", script});
  CHECK(r.err.find("WARNING") == std::string::npos);
  CHECK(r.err.find("ERROR: e1") != std::string::npos);
}

TEST_CASE("session: -c gates the command and ends with it; -x sets target()", "[session][live]") {
  if (!can_load_bpf()) return;
  StapRunner stap;
  fs::path marker = stap.dir() / "ran";
  SessionRun r = stap.run({"-c", "touch " + marker.string(), "-e",
                           "probe begin { printf(\"%d\\n\", target() > 0) } probe end { println(\"end\") }"});
  CHECK(r.rc == 0);
  CHECK(r.out == "1\nend\n");
  CHECK(fs::exists(marker));

  r = stap.run({"-x", "4242", "-e", "probe begin { println(target()); exit() }"});
  CHECK(r.out == "4242\n");
}

TEST_CASE("session: -T ends a session after its timers ran", "[session][live]") {
  if (!can_load_bpf()) return;
  StapRunner stap;
  SessionRun r = stap.run({"-T", "1", "-e",
                           "global n; probe timer.ms(100) { n++ } probe end { printf(\"%d\\n\", n >= 5) }"});
  CHECK(r.rc == 0);
  CHECK(r.out == "1\n");
}

TEST_CASE("session: -p4 writes NAME.bo, which stapbpf's run_object runs", "[session][live]") {
  if (!can_load_bpf()) return;
  StapRunner stap;
  fs::path cwd = fs::current_path();
  fs::current_path(stap.dir());
  std::vector<std::string> args = {"stap", "-p4", "-m", "hello", "-e",
                                   "probe begin { println(\"from object\"); exit() }"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  setenv("SYSTEMTAP_DIR", (stap.dir() / "stapdir").c_str(), 1);
  stap::ParsedCommandLine cl = stap::parse_command_line(static_cast<int>(argv.size()), argv.data());
  std::ostringstream out, err;
  int rc = stap::run_session(cl.options, out, err);
  fs::current_path(cwd);
  CHECK(rc == 0);
  CHECK(out.str() == "hello.bo\n");
  REQUIRE(fs::exists(stap.dir() / "hello.bo"));

  std::ifstream in(stap.dir() / "hello.bo", std::ios::binary);
  std::string object(std::istreambuf_iterator<char>(in), {});
  stap::RunOptions run;
  run.output_file = (stap.dir() / "run.txt").string();
  CHECK(stap::run_object(object, run) == 0);
  std::ifstream printed(run.output_file);
  CHECK(std::string(std::istreambuf_iterator<char>(printed), {}) == "from object\n");
}

TEST_CASE("-m NAME: checked and trimmed as stap checks module names", "[session]") {
  auto parse = [](std::string name, std::string& err) {
    setenv("SYSTEMTAP_DIR", "/nonexistent-stap-dir", 1);
    std::vector<std::string> words = {"stap", "-p4", "-m", name, "-e", "probe begin {}"};
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    std::ostringstream captured;
    auto* old = std::cerr.rdbuf(captured.rdbuf());
    stap::ParsedCommandLine r = stap::parse_command_line(static_cast<int>(argv.size()), argv.data());
    std::cerr.rdbuf(old);
    err = captured.str();
    return r;
  };
  std::string err;
  stap::ParsedCommandLine r = parse("my_mod2", err);
  CHECK(r.outcome == stap::ParseOutcome::run);
  CHECK(r.options.module_name == "my_mod2");
  CHECK(err.empty());

  r = parse("trace.bo", err);
  CHECK(r.options.module_name == "trace");
  CHECK(err == "Truncating module name to 'trace'\n");

  r = parse("Bad-Name", err);
  CHECK(r.outcome == stap::ParseOutcome::exit_error);
  CHECK(err == "ERROR: Safety pattern mismatch for -m parameter ('Bad-Name' vs. '^[a-z0-9_]+$') rc=1\n");

  r = parse(".ko", err);
  CHECK(r.outcome == stap::ParseOutcome::exit_error);
  CHECK(err.find("Module name cannot be empty.") != std::string::npos);

  r = parse(std::string(60, 'a'), err);
  CHECK(r.options.module_name == std::string(54, 'a'));
}

TEST_CASE("-c and -x together are refused, as stap refuses them", "[session]") {
  setenv("SYSTEMTAP_DIR", "/nonexistent-stap-dir", 1);
  std::vector<std::string> words = {"stap", "-c", "true", "-x", "1", "-e", "probe begin {}"};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  std::ostringstream captured;
  auto* old = std::cerr.rdbuf(captured.rdbuf());
  stap::ParsedCommandLine r = stap::parse_command_line(static_cast<int>(argv.size()), argv.data());
  std::cerr.rdbuf(old);
  CHECK(r.outcome == stap::ParseOutcome::exit_error);
  CHECK(captured.str().rfind("You can't specify -c and -x together.\nUsage: stap", 0) == 0);
}

TEST_CASE("session: a tracepoint probe counts the -c command's calls", "[session][live]") {
  if (!can_load_bpf()) return;
  StapRunner stap;
  SessionRun r = stap.run({"-c", "dd if=/etc/hostname of=/dev/null status=none", "-e",
                           "global n; probe kernel.trace(\"syscalls:sys_enter_openat\") "
                           "{ if (pid() == target()) n++ } probe end { printf(\"%d\\n\", n >= 3) }"});
  CHECK(r.rc == 0);
  CHECK(r.out == "1\n");
  CHECK(r.err.empty());
}
