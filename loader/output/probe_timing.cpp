#include "loader/output/probe_timing.h"

#include <bpf/bpf.h>

#include <cstring>

#include "bpf_runtime/stap_layout.h"

namespace stap {

void merge_stat(StatValue& into, const StatValue& from) {
  if (from.count == 0) return;
  if (into.count == 0 || from.min < into.min) into.min = from.min;
  if (into.count == 0 || from.max > into.max) into.max = from.max;
  into.count += from.count;
  into.sum += from.sum;
  into.sum_squares = int64_t(uint64_t(into.sum_squares) + uint64_t(from.sum_squares));
}

ProbeTiming::ProbeTiming(const ir::Module& module) : module_(module), times_(module.probes.size()) {}

void ProbeTiming::add(size_t probe, int64_t ns) {
  if (probe >= times_.size()) return;
  merge_stat(times_[probe], StatValue{1, ns, ns, ns, ns * ns, {}});
}

void ProbeTiming::add_kernel(int fd, int cpus) {
  if (fd < 0 || cpus <= 0) return;
  constexpr size_t stride = (sizeof(stap_stat) + 7) & ~size_t{7};
  std::vector<char> values(stride * size_t(cpus));
  for (uint32_t i = 0; i < times_.size(); ++i) {
    if (bpf_map_lookup_elem(fd, &i, values.data()) != 0) continue;
    for (int c = 0; c < cpus; ++c) {
      stap_stat s;
      std::memcpy(&s, values.data() + stride * size_t(c), sizeof s);
      merge_stat(times_[i], StatValue{s.count, s.sum, s.min, s.max, s.sum_squares, {}});
    }
  }
}

std::string ProbeTiming::report() const {
  std::string out = "----- probe hit report: \n";
  for (size_t i = 0; i < times_.size(); ++i) {
    const StatValue& t = times_[i];
    if (t.count == 0) continue;
    const ir::Probe& p = module_.probes[i];
    out += p.pp + ", (" + p.location + "), hits: " + std::to_string(t.count) +
           ", nsecs: " + std::to_string(t.min) + "min/" + std::to_string(t.sum / t.count) +
           "avg/" + std::to_string(t.max) + "max, variance: " + std::to_string(stat_variance(t)) +
           "," + p.derivation + ", index: " + std::to_string(i) + "\n";
  }
  return out;
}

void ProbeTiming::write(OutputSink& sink) const {
  if (!sink.json()) return sink.print(report());
  for (size_t i = 0; i < times_.size(); ++i) {
    const StatValue& t = times_[i];
    if (t.count == 0) continue;
    const ir::Probe& p = module_.probes[i];
    // The derivation is " from: A from: B": its points, as a list.
    Json from = Json::array();
    constexpr std::string_view sep = " from: ";
    for (size_t at = p.derivation.find(sep); at != std::string::npos;) {
      size_t next = p.derivation.find(sep, at + sep.size());
      from.push_back(p.derivation.substr(at + sep.size(), next == std::string::npos ? next : next - at - sep.size()));
      at = next;
    }
    sink.record({{"type", "timing"}, {"index", i}, {"pp", p.pp}, {"location", p.location},
                 {"hits", t.count}, {"min", t.min}, {"avg", t.sum / t.count}, {"max", t.max},
                 {"variance", stat_variance(t)}, {"from", from}});
  }
}

}  // namespace stap
