// --pprof=FILE: every array or statistic keyed by a stack (a stack code
// column, as for --folded: s[backtrace()], c[ubacktrace()]++,
// p[execname(), ubacktrace()]) written at exit as one gzipped
// profile.proto, pprof's format (github.com/google/pprof, proto/
// profile.proto, compiled by protoc at build time: loader/CMakeLists.txt),
// which `go tool pprof`, Grafana Pyroscope and Parca read.
//
// One pprof Sample per element whose key holds a stack:
//   - its locations leaf first, as pprof wants: a key's kernel frames
//     (innermost first), then its user frames (the reverse of --folded's
//     root-first lines); one Location per distinct frame address (per
//     process for user frames: their addresses mean something only there),
//     its Function the frame's symbol, its Mapping the binary ("[kernel
//     .kallsyms]" for the kernel, a module's name, a program's path);
//   - its values: sample type "samples"/"count" is a statistic's @count or
//     a long array's value; when the script has a stack-keyed statistic a
//     second type "sum"/"units" holds its @sum (and a long array's value
//     again, its sum of what was added); "samples" is the default type;
//   - its labels: "global" the aggregate's name (several aggregates share
//     one profile: `pprof -tagfocus=global=NAME` picks one), and the
//     script's foreach name (Global::key_label) or "keyN"
//     for each other key column N (1-based, the position in the key, as
//     --metrics names them): a string label for a string, numeric for a
//     long.
// Building is over plain data (PprofSample) so that it can be tested
// without a kernel; pprof_samples() reads the maps into that data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "loader/interp/global_store.h"
#include "loader/symbols/stack_symbols.h"

namespace stap {

struct PprofFrame {
  uint64_t address = 0;
  std::string function;  // empty: unknown (the Location gets no Line)
  std::string binary;    // the Mapping's file name; empty: no Mapping
  bool user = false;     // with tgid: which address space `address` is in
  uint32_t tgid = 0;
};

struct PprofLabel {
  std::string key;
  bool numeric = false;
  std::string str;
  int64_t num = 0;
};

struct PprofSample {
  std::vector<PprofFrame> frames;  // leaf first
  std::vector<PprofLabel> labels;
  int64_t count = 0, sum = 0;
};

struct PprofInput {
  std::vector<PprofSample> samples;
  bool with_sum = false;  // a second sample type, "sum"
  int64_t time_nanos = 0, duration_nanos = 0;
};

// The serialized (not yet gzipped) perftools.profiles.Profile.
std::string pprof_encode(const PprofInput& in);

// `bytes` gzipped into `path`: written to a temporary file beside it and
// renamed over it, so that a failed write leaves neither a partial
// profile nor a temporary file (a path that is not a regular file, such
// as /dev/stdout, is written in place).  False with `error` set.
bool write_gzipped(const std::string& path, const std::string& bytes, std::string& error);

// The samples of every stack-keyed global of `m`; `aggregates` is how many
// globals could hold stacks (arrays or statistics with a coded key column).
PprofInput pprof_samples(const ir::Module& m, const GlobalStore& store, StackSymbols& stacks,
                         size_t& aggregates);

// pprof_samples() encoded and written to `path`.  False with `error` set;
// `warning` is set when the profile is empty (and still written: a
// valid profile with no samples, so that whatever reads the file finds it).
bool write_pprof_profile(const std::string& path, const ir::Module& m, const GlobalStore& store,
                         StackSymbols& stacks, std::string& error, std::string& warning);

}  // namespace stap
