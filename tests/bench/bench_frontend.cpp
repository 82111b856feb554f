// Benchmark of passes 1-2, in process:
//  - a generated 2,000-line script with 200 probes (the common case);
//  - a preprocessor stress: conditionals nested 50 deep around 10,000
//    uses of a macro nested 50 deep (time per KB of input: passes 1-2
//    must grow linearly with the input);
//  - kernel.function("*") resolved over this kernel's symbols and BTF,
//    and the kallsyms load alone (CPU time).
//
//   bench_frontend [--write FILE] [--write-stress FILE] [--runs N]
//
// Prints min / median / max of the runs for each figure.
// tests/bench/run_bench.sh runs it beside real SystemTap's `stap -p2` on the
// same script when that is installed, so both figures come from one run,
// and times the slowest fuzz-corpus inputs through the stap binary.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <ctime>
#include <vector>

#include "driver/frontend.h"
#include "kernel/kernel_symbols.h"

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

// Conditionals nested 50 deep (each taken) around 10,000 statements that
// each use a macro nested 50 deep: about 2.5 million tokens taken from
// macro bodies, 143 KB of input.
std::string generate_pp_stress() {
  std::ostringstream s;
  s << "@define m0(x) %( (@x + 1) %)\n";
  for (int i = 1; i < 50; ++i) s << "@define m" << i << "(x) %( @m" << i - 1 << "(@x) %)\n";
  s << "global total\nprobe begin {\n";
  const char* conds[] = {"kernel_v >= \"2.6\"", "arch == \"x86_64\"", "runtime == \"bpf\"",
                         "systemtap_v >= \"1.0\"", "$# == 0"};
  for (int d = 0; d < 50; ++d) s << "%( " << conds[d % 5] << " %?\n";
  s << "  x = 0\n";
  for (int u = 0; u < 10000; ++u) s << "  x = @m49(x)\n";
  for (int d = 0; d < 50; ++d) s << "%: x = -1 %)\n";
  s << "  total = x\n}\nprobe end { println(total) }\n";
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

double cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// CPU time of one kallsyms load (the kernel's formatting of the file
// included, which a loaded machine changes less than wall time).
double kallsyms_once() {
  stap::kernel::KernelSymbols ks;
  std::string why;
  double t0 = cpu_ms();
  if (!ks.load(why)) {
    std::cerr << "kallsyms: " << why << "\n";
    std::exit(1);
  }
  return cpu_ms() - t0;
}

struct Figures {
  std::vector<double> times;
  void print(const std::string& what) {
    std::sort(times.begin(), times.end());
    std::printf("%s: min %.2f ms, median %.2f ms, max %.2f ms (%zu runs)\n", what.c_str(),
                times.front(), times[times.size() / 2], times.back(), times.size());
  }
};

template <typename F>
Figures measure(int runs, F f) {
  Figures fig;
  for (int i = 0; i < std::max(runs, 1); ++i) fig.times.push_back(f());
  return fig;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  std::string write_to, write_stress_to;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--write") && i + 1 < argc) write_to = argv[++i];
    else if (!std::strcmp(argv[i], "--write-stress") && i + 1 < argc) write_stress_to = argv[++i];
    else {
      std::cerr << "usage: bench_frontend [--write FILE] [--write-stress FILE] [--runs N]\n";
      return 2;
    }
  }
  std::string script = generate_script(200);
  std::string stress = generate_pp_stress();
  if (!write_to.empty()) std::ofstream(write_to) << script;
  if (!write_stress_to.empty()) std::ofstream(write_stress_to) << stress;
  size_t lines = std::count(script.begin(), script.end(), '\n');

  measure(runs, [&] { return run_once(script); })
      .print("passes 1-2 on " + std::to_string(lines) + " lines, 200 probes (target < 50 ms)");
  Figures fig = measure(std::max(runs / 4, 3), [&] { return run_once(stress); });
  double kb = stress.size() / 1024.0;
  std::sort(fig.times.begin(), fig.times.end());
  fig.print("passes 1-2 on the preprocessor stress (" + std::to_string(int(kb)) +
            " KB: 50 nested conditionals, 10,000 uses of a macro 50 deep)");
  std::printf("  = %.2f ms per KB of input (median)\n", fig.times[fig.times.size() / 2] / kb);
  measure(std::max(runs / 4, 3), [] {
    return run_once("global n\nprobe kernel.function(\"*\") { n++ }\nprobe end { println(n) }\n");
  }).print("passes 1-2 of kernel.function(\"*\") over this kernel's symbols and BTF");
  measure(runs, kallsyms_once).print("kallsyms load alone (CPU time)");
  return 0;
}
