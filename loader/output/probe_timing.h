// stap -t: each probe's hits and run times, and the "probe hit report"
// stap prints at exit:
//
//   ----- probe hit report:
//   begin, (t.stp:1:1), hits: 1, nsecs: 5210min/5210avg/5210max, variance: 0, from: begin, index: 0
//
// stap's kernel runtime counts cycles; this one measures nanoseconds
// (bpf_ktime_get_ns around a kernel-context body, CLOCK_MONOTONIC around a
// user-context one) and says "nsecs", as stap does when it measures time
// (STP_TIMING_NSECS).  Probes that never ran are not listed, as in stap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "loader/interp/global_store.h"
#include "loader/output/output_sink.h"

namespace stap {

class ProbeTiming {
 public:
  explicit ProbeTiming(const ir::Module& module);

  // One run of a user-context probe.
  void add(size_t probe, int64_t ns);
  // The kernel-context runs: STAP_TIMING_MAP's per-CPU statistics merged in.
  void add_kernel(int timing_map_fd, int possible_cpus);

  const StatValue& probe(size_t index) const { return times_.at(index); }
  std::string report() const;
  // The report as text, or in JSON a timing record per probe that ran:
  // {"type":"timing","index","pp","location","hits","min","avg","max",
  //  "variance","from":[...]} (nanoseconds).
  void write(OutputSink& sink) const;

 private:
  const ir::Module& module_;
  std::vector<StatValue> times_;  // per probe
};

// One run's statistic folded into `into` (count, sum, min, max, squares).
void merge_stat(StatValue& into, const StatValue& from);

}  // namespace stap
