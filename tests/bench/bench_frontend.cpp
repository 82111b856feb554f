// Benchmark of passes 1-2: how long parsing and elaborating a large script
// takes, in process, on a generated 2,000-line script with 200 probes.
//
//   bench_frontend [--write FILE] [--runs N]
//
// Prints the script's size and the min / median / max time of the runs.
// tests/bench/run_bench.sh runs it beside real SystemTap's `stap -p2` on the
// same script when that is installed, so both figures come from one run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "driver/frontend.h"

namespace {

// Ten lines per probe: a mix of the constructs real scripts use.
std::string generate_script(int probes) {
  std::ostringstream s;
  s << "global counts, bytes, names, lat\n"
       "global total = 0\n"
       "function classify:string (n:long) {\n"
       "  if (n < 10) return \"small\"\n"
       "  else if (n < 1000) return \"medium\"\n"
       "  return \"large\"\n"
       "}\n"
       "function ratio(a, b) { return b == 0 ? 0 : (a * 100) / b }\n";
  const char* points[] = {"timer.ms(%d)", "timer.s(%d)", "begin(%d)", "end(%d)"};
  for (int i = 0; i < probes; ++i) {
    char point[64];
    std::snprintf(point, sizeof point, points[i % 4], i + 1);
    s << "probe " << point << " {\n"
      << "  n = " << i << " * 3 + total\n"
      << "  counts[\"p" << i << "\", n % 7]++\n"
      << "  bytes <<< n\n"
      << "  names[n] = sprintf(\"%s-%d\", classify(n), n)\n"
      << "  if (n > " << i * 2 << " && names[n] != \"\") total += ratio(n, " << i + 1 << ")\n"
      << "  foreach ([k, v] in counts- limit 3) lat[k] = v + @count(bytes)\n"
      << "  for (j = 0; j < 4; j++) { total ^= j << 2 }\n"
      << "  printf(\"%d %s %d\\n\", n, names[n], total)\n"
      << "}\n";
  }
  s << "probe end { foreach (k in lat) printf(\"%s %d\\n\", k, lat[k]); "
       "print(@hist_log(bytes)) }\n";
  return s.str();
}

double run_once(const std::string& script) {
  auto start = std::chrono::steady_clock::now();
  stap::FrontendConfig config;
  config.tapset_dirs.push_back(stap::default_tapset_dir());
  config.env = stap::kernel_preprocessor_env("");
  stap::Frontend fe(config);
  bool ok = fe.load_tapsets() && fe.parse_script("bench.stp", script) && fe.elaborate();
  auto end = std::chrono::steady_clock::now();
  if (!ok) {
    fe.diagnostics().flush(std::cerr);
    std::exit(1);
  }
  return std::chrono::duration<double, std::milli>(end - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  std::string write_to;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--write") && i + 1 < argc) write_to = argv[++i];
    else { std::cerr << "usage: bench_frontend [--write FILE] [--runs N]\n"; return 2; }
  }
  std::string script = generate_script(200);
  if (!write_to.empty()) std::ofstream(write_to) << script;
  size_t lines = std::count(script.begin(), script.end(), '\n');

  std::vector<double> times;
  for (int i = 0; i < std::max(runs, 1); ++i) times.push_back(run_once(script));
  std::sort(times.begin(), times.end());
  std::printf("passes 1-2 on %zu lines, 200 probes: min %.2f ms, median %.2f ms, max %.2f ms "
              "(%d runs; target < 50 ms)\n",
              lines, times.front(), times[times.size() / 2], times.back(), runs);
  return 0;
}
