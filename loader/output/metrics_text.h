// --metrics: the script's globals as an OpenMetrics text exposition, the
// body of GET /metrics (metrics_server.h).  Every numeric global is a
// family named stap_<global>:
//   - a long scalar: a gauge;
//   - an array of longs: a gauge, one sample per key, the key columns as
//     labels named by the script's first foreach over the array
//     (Global::key_names; le and __* kept for Prometheus), else key1..keyN
//     (a string key as its text, a stack as its frames
//     joined by ';', root first, as folded stacks are);
//   - a statistic: a summary (_count, _sum) and gauges stap_<g>_min,
//     stap_<g>_max; with @hist_log/@hist_linear, a histogram instead
//     (cumulative _bucket{le=...} up to +Inf, _count, _sum) beside the
//     same two gauges.
// String globals are not numbers and are left out.  The text parses as
// OpenMetrics 1.0 and as Prometheus' text format 0.0.4 (only gauge,
// summary and histogram families; "# EOF" is a comment to the latter).
#pragma once

#include <string>

#include "ir/ir.h"
#include "loader/interp/global_store.h"

namespace stap {

// The families of every numeric global; `extra` (a probe prometheus
// body's text, which names its own metrics) goes after them; then # EOF.
std::string metrics_text(const ir::Module& m, const GlobalStore& store, const std::string& extra = {});

// A label value as the exposition formats escape it (\\, \" and \n).
std::string escape_label(const std::string& value);

}  // namespace stap
