// Process life events and system calls (compiler/lower/kinds/process.cpp):
// the mechanism each event lowers to, the guards, the hidden trackers, and
// stap's rules for $syscall/$argN/$return.  Needs tracefs and BTF (root).
#include <unistd.h>

#include <algorithm>

#include "lower_fixture.h"

namespace stap::test {

namespace {

bool have_kernel_info() {
  return access("/sys/kernel/tracing/events/sched/sched_process_exec", R_OK) == 0 &&
         access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

// The event a tracepoint or syscall probe runs on, "" for another kind.
std::string event_of(const ir::Probe& p) {
  if (const auto* t = p.as<ir::TracepointSpec>()) return t->event;
  if (const auto* s = p.as<ir::SyscallSpec>()) return s->event;
  return "";
}

template <class Spec>
size_t count_kind(const ir::Module& m, const std::string& event) {
  return size_t(std::count_if(m.probes.begin(), m.probes.end(), [&](const ir::Probe& p) {
    return p.is<Spec>() && event_of(p) == event;
  }));
}

// The first probe lowered from a process point (trackers come first).
const ir::Probe& process_probe(const ir::Module& m) {
  for (const ir::Probe& p : m.probes)
    if (p.pp.starts_with("process")) return p;
  FAIL("no process probe");
  return m.probes.at(0);
}

}  // namespace

TEST_CASE("lower process: begin runs at the fork child's return and at exec", "[lower][process]") {
  if (!have_kernel_info()) { WARN("skipped: needs tracefs and kernel BTF"); return; }
  Lowered l = lower_script("probe process.begin { printf(\"%d\\n\", pid()) }");
  REQUIRE(l.ok);
  std::vector<int64_t> numbers;
  for (const ir::Probe& p : l.module.probes) {
    const ir::SyscallSpec* sc = p.as<ir::SyscallSpec>();
    if (!sc) continue;
    CHECK(sc->event == "sys_exit");
    CHECK(p.pp == "process.begin");
    numbers.push_back(sc->nr);
    // Guarded by the return value: only the child's 0 runs the body.
    CHECK(find_op(p.body, ir::Op::sys_ret) != nullptr);
  }
  CHECK(numbers == std::vector<int64_t>{56, 57, 58, 435});
  CHECK(count_kind<ir::TracepointSpec>(l.module, "sched_process_exec") == 1);
  // A bare probe keeps to the -c tree: a fork tracker fills a hidden map.
  CHECK(count_kind<ir::TracepointSpec>(l.module, "sched_process_fork") == 1);
}

TEST_CASE("lower process: thread.begin has no exec probe; end and thread.end are exits",
          "[lower][process]") {
  if (!have_kernel_info()) { WARN("skipped: needs tracefs and kernel BTF"); return; }
  Lowered l = lower_script("probe process.thread.begin, process.end, process.thread.end { next }");
  REQUIRE(l.ok);
  CHECK(count_kind<ir::SyscallSpec>(l.module, "sys_exit") == 4);
  CHECK(count_kind<ir::TracepointSpec>(l.module, "sched_process_exec") == 0);
  CHECK(count_kind<ir::TracepointSpec>(l.module, "sched_process_exit") == 2);
  for (const ir::Probe& p : l.module.probes)
    if (event_of(p) == "sched_process_exit") CHECK(find_op(p.body, ir::Op::kread) != nullptr);
}

TEST_CASE("lower process: a path probe compares the image, a pid probe the pid",
          "[lower][process]") {
  if (!have_kernel_info()) { WARN("skipped: needs tracefs and kernel BTF"); return; }
  Lowered l = lower_script("probe process(\"sh\").end { next }");
  REQUIRE(l.ok);
  // The exit probe, the image trackers at fork and exec and the exit
  // roles' new-task tracker; no tree.
  REQUIRE(l.module.probes.size() == 4);
  CHECK(process_probe(l.module).pp.starts_with("process(\"/"));
  CHECK(process_probe(l.module).pp.ends_with("\").end"));
  CHECK(count_kind<ir::TracepointSpec>(l.module, "sched_process_fork") == 1);
  CHECK(count_kind<ir::TracepointSpec>(l.module, "sched_process_exec") == 1);

  std::string self = std::to_string(getpid());
  Lowered pid = lower_script("probe process(" + self + ").syscall { next }");
  REQUIRE(pid.ok);
  REQUIRE(pid.module.probes.size() == 1);
  CHECK(pid.module.probes[0].pp == "process(" + self + ").syscall");
  CHECK(std::get<ir::SyscallSpec>(pid.module.probes[0].spec).nr == -1);
  CHECK(find_op(pid.module.probes[0].body, ir::Op::kread) == nullptr);
}

// Two threads leaving at once can both see their group dead: every exit
// probe reads one decision per thread (__process_exit_role), which a claim
// on the process (a fetch-and-add on __process_end) makes; both maps are
// shared by all exit probes and cleared for each new task.
TEST_CASE("lower process: end and thread.end share one claim per process", "[lower][process]") {
  if (!have_kernel_info()) { WARN("skipped: needs tracefs and kernel BTF"); return; }
  Lowered l = lower_script(
      "probe process.end, process.thread.end { next }\n"
      "probe process(\"sh\").end { next }");
  REQUIRE(l.ok);
  auto global_named = [&](const std::string& name) {
    int found = -1, count = 0;
    for (size_t i = 0; i < l.module.globals.size(); ++i)
      if (l.module.globals[i].name == name) { found = int(i); ++count; }
    CHECK(count == 1);
    return found;
  };
  int claims = global_named("__process_end"), roles = global_named("__process_exit_role");
  REQUIRE(claims >= 0);
  REQUIRE(roles >= 0);
  CHECK(count_kind<ir::TracepointSpec>(l.module, "task_newtask") == 1);
  CHECK(count_kind<ir::TracepointSpec>(l.module, "sched_process_exit") == 3);
  for (const ir::Probe& p : l.module.probes) {
    if (event_of(p) == "task_newtask") {
      CHECK(find_op(p.body, ir::Op::delete_elem) != nullptr);
    } else if (event_of(p) == "sched_process_exit") {
      const ir::Node* claim = find_op(p.body, ir::Op::add_elem);
      REQUIRE(claim != nullptr);
      CHECK(claim->a == claims);
      CHECK(claim->b == 1);  // the old count decides
      const ir::Node* decided = find_op(p.body, ir::Op::set_elem);
      REQUIRE(decided != nullptr);
      CHECK(decided->a == roles);
    }
  }
}

TEST_CASE("lower process: missing pids and programs are errors", "[lower][process]") {
  if (!have_kernel_info()) { WARN("skipped: needs tracefs and kernel BTF"); return; }
  Lowered pid = lower_script("probe process(2147483600).begin { next }");
  CHECK(!pid.ok);
  CHECK(contains(pid.messages, "cannot probe pid 2147483600: No such process"));
  Lowered path = lower_script("probe process(\"/no/such/program\").end { next }");
  CHECK(!path.ok);
  CHECK(contains(path.messages, "while resolving probe point"));
}

TEST_CASE("lower process: syscall variables follow stap's rules", "[lower][process]") {
  if (!have_kernel_info()) { WARN("skipped: needs tracefs and kernel BTF"); return; }
  Lowered ok = lower_script(
      "probe process.syscall { printf(\"%d %d %d %s\\n\", $syscall, $arg1, $arg6, $$parms) }\n"
      "probe process.syscall.return { printf(\"%d %d\\n\", $syscall, $return) }");
  REQUIRE(ok.ok);
  const ir::Node* arg = find_op(process_probe(ok.module).body, ir::Op::sys_arg);
  REQUIRE(arg);
  CHECK(arg->b == 8);
  CHECK(std::find(ok.module.formats.begin(), ok.module.formats.end(),
                  "$arg1=%#x $arg2=%#x $arg3=%#x $arg4=%#x $arg5=%#x $arg6=%#x") !=
        ok.module.formats.end());

  Lowered ret = lower_script("probe process.syscall { print($return) }");
  CHECK(contains(ret.messages,
                 "only \"process(PATH_OR_PID).syscall.return\" support $return."));
  Lowered arg_at_return = lower_script("probe process.syscall.return { print($arg1) }");
  CHECK(contains(arg_at_return.messages,
                 "only \"process(PATH_OR_PID).syscall\" support $argN or $$parms."));
  Lowered seven = lower_script("probe process.syscall { print($arg7) }");
  CHECK(contains(seven.messages, "invalid syscall argument number (1-6)"));
  Lowered other = lower_script("probe process.syscall { print($fd) }");
  CHECK(contains(other.messages, "invalid target symbol for utrace probe, $syscall, $return, "
                                 "$argN or $$parms expected"));
  // @defined selects the branch: $return is not lowered at entry.
  Lowered defined = lower_script(
      "probe process.syscall { if (@defined($return)) print($return) else print($arg2) }");
  REQUIRE(defined.ok);
  CHECK(find_op(process_probe(defined.module).body, ir::Op::sys_ret) == nullptr);
  CHECK(find_op(process_probe(defined.module).body, ir::Op::sys_arg) != nullptr);
}

}  // namespace stap::test
