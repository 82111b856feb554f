// Pass 5: run a compiled object.  Shared by `stap` (after passes 1-4 or a
// cache hit) and the runtime-only `stapbpf` binary.
//
//   open the object from memory (libbpf), read its module (.stapbpf.meta),
//   size maps (MAXMAPENTRIES, buffer size), load, mmap the globals,
//   run begin probes, attach kernel-context probes, set state RUNNING,
//   start -c CMD; then drain the ring buffer, fire interval timers, watch
//   signals, the -c child and -T; on exit(), SIGINT/SIGTERM, child exit or
//   timeout: state STOPPING (no kernel probe body runs from then on), drain
//   what is left, run end probes, report lost records and errors, then
//   detach and destroy every program, map and link.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stap {

struct RunOptions {
  int verbose = 0;                // -v count
  std::string output_file;        // -o FILE
  std::string command;            // -c CMD
  int64_t target_pid = 0;         // -x PID
  int64_t timeout_s = 0;          // -T SEC
  bool suppress_warnings = false; // -w
  int64_t buffer_mb = 0;          // -s NUM (0: default)
  std::string module_name;        // module_name(): -m NAME, stap_<hash>, or the
                                  // object file's name; empty: "stap"
  bool suppress_handler_errors = false;  // --suppress-handler-errors
  std::string folded_file;        // --folded=FILE: stack-keyed aggregates as folded stacks
  std::string pprof_file;         // --pprof=FILE: the same as a gzipped pprof profile
  bool json = false;              // --format=json: JSON lines (loader/output/output_sink.h)
  std::string metrics_host;       // --metrics=[ADDR:]PORT (loader/output/metrics_server.h);
  int metrics_port = -1;          //   -1: no endpoint, 0: any free port
  std::vector<std::string> symbol_modules;  // -d FILE: also unwound through (loader/unwind_tables.h)
};

// Returns the process exit code (0 on a normal end, 1 on failure); prints
// stap's messages on stderr.
int run_object(std::string_view object_bytes, const RunOptions& options);

}  // namespace stap
