// stap -t's report from known run times (the live case timing_report runs it
// against the kernel).
#include <catch2/catch.hpp>

#include "loader/output/probe_timing.h"

using namespace stap;

namespace {

ir::Module two_probes() {
  ir::Module m;
  m.probes.resize(3);
  m.probes[0].pp = "begin";
  m.probes[0].location = "t.stp:1:1";
  m.probes[0].derivation = " from: begin";
  m.probes[1].pp = "timer.s(3600)";
  m.probes[1].location = "t.stp:2:1";
  m.probes[1].derivation = " from: timer.s(3600)";
  m.probes[2].pp = "kernel.trace(\"syscalls:sys_enter_getpid\")";
  m.probes[2].location = "t.stp:3:1";
  m.probes[2].derivation = " from: kernel.trace(\"syscalls:sys_enter_getpid\") from: syscall.getpid";
  return m;
}

}  // namespace

TEST_CASE("the probe hit report lists the probes that ran, in index order", "[timing]") {
  ir::Module m = two_probes();
  ProbeTiming timing(m);
  timing.add(2, 10);
  timing.add(2, 30);
  timing.add(0, 7);
  CHECK(timing.report() ==
        "----- probe hit report: \n"
        "begin, (t.stp:1:1), hits: 1, nsecs: 7min/7avg/7max, variance: 0, from: begin, index: 0\n"
        "kernel.trace(\"syscalls:sys_enter_getpid\"), (t.stp:3:1), hits: 2, nsecs: 10min/20avg/30max, "
        "variance: 200, from: kernel.trace(\"syscalls:sys_enter_getpid\") from: syscall.getpid, index: 2\n");
}

TEST_CASE("merging run times keeps the extremes and sums", "[timing]") {
  StatValue into{};
  merge_stat(into, StatValue{2, 50, 20, 30, 1300, {}});
  merge_stat(into, StatValue{});
  merge_stat(into, StatValue{1, 5, 5, 5, 25, {}});
  CHECK(into.count == 3);
  CHECK(into.sum == 55);
  CHECK(into.min == 5);
  CHECK(into.max == 30);
  CHECK(into.sum_squares == 1325);
}

TEST_CASE("an index past the probes is ignored", "[timing]") {
  ir::Module m = two_probes();
  ProbeTiming timing(m);
  timing.add(9, 1);
  CHECK(timing.report() == "----- probe hit report: \n");
}
