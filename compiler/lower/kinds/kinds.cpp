// The table of pass 3's probe kinds: which kind lowers a derived probe,
// by the pass-2 provider that claimed its point (elaborate/providers/) and,
// where one family has points of several kinds, by the point's shape.
// The first row that claims a probe lowers it.
#include "lower/kinds/kinds.h"

#include "elaborate/providers/provider.h"

namespace stap::lower {

namespace {

bool any(const DerivedProbe&) { return true; }
// timer.profile.tick: a perf event (the tapset's timer.profile aliases it).
bool profile(const DerivedProbe& dp) {
  return dp.point->components.size() >= 2 && dp.point->components[1].functor == "profile";
}
// timer.UNIT(N)[.randomize(M)], timer.hz(N).
bool interval(const DerivedProbe& dp) { return dp.point->components.size() >= 2; }
// kernel.trace("system:event").
bool trace_event(const DerivedProbe& dp) {
  return dp.point->components.size() >= 2 && dp.point->components[1].functor == "trace";
}
// process("P").function/.statement/.plt/.mark: resolved to code sites.
bool code_sites(const DerivedProbe& dp) { return dp.user_point != nullptr; }

struct Row {
  const ProbeProvider& (*provider)();
  bool (*claims)(const DerivedProbe&);
  std::unique_ptr<KindLowering> (*make)(Lowerer&);
};

const Row kRows[] = {
    {begin_end_provider, any, make_session_lowering},
    {timer_provider, profile, make_perf_lowering},
    {timer_provider, interval, make_timer_lowering},
    {procfs_provider, any, make_procfs_lowering},
    {perf_provider, any, make_perf_lowering},
    {tracepoint_provider, trace_event, make_tracepoint_lowering},
    {btf_tracepoint_provider, any, make_btf_tracepoint_lowering},
    {lsm_provider, any, make_lsm_lowering},
    {netfilter_provider, any, make_netfilter_lowering},
    {watchpoint_provider, any, make_watchpoint_lowering},
    {kernel_function_provider, any, make_kfunc_lowering},
    {process_provider, code_sites, make_uprobe_lowering},
    {process_provider, any, make_process_lowering},
};

}  // namespace

int kind_row(const DerivedProbe& dp) {
  for (size_t i = 0; i < std::size(kRows); ++i)
    if (dp.provider == &kRows[i].provider() && kRows[i].claims(dp)) return int(i);
  return -1;
}

size_t kind_rows() { return std::size(kRows); }

std::unique_ptr<KindLowering> make_kind(int row, Lowerer& l) { return kRows[row].make(l); }

}  // namespace stap::lower
