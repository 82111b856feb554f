// Where the script's output goes, as text (stap's) or as JSON lines
// (--format=json): one object a line, each with a "type".  Every writer of
// the run's output (the ring-buffer drain, the interpreter's printf and
// print(@hist_*), the closing reports, the runtime's errors and warnings)
// goes through one sink, so the two formats cannot drift apart.
//
// The JSON records (field names are stable; README.md, "Output for
// programs", has an example of each):
//   printf   {"type":"printf","data":TEXT}            one printf/print/log call
//   hist     {"type":"hist","name":G,"key":[...],"kind":"log"|"linear",
//             "buckets":[{"min":A,"max":B,"count":N},...]}  non-empty buckets;
//             a linear underflow has no "min", an overflow no "max"
//   map      {"type":"map","name":G,"value":V}        a scalar global at exit
//            {"type":"map","name":G,"keys":["string","long"],
//             "entries":[{"key":[...],"value":V},...]}   an array at exit
//   stats    as map, each value {"count","sum","min","max","avg","variance"}
//            (and "buckets" when the statistic has a histogram)
//   timing   one probe of -t's report (probe_timing.h)
//   error    {"type":"error","msg":TEXT}    a runtime error (ERROR: in text)
//   warning  {"type":"warning","msg":TEXT}
//   lost     {"type":"lost","records":N}    records the full buffer dropped
//   attached {"type":"attached","probes":N,"list":[{"pp":P,"mechanism":M},...]}
//   exit     {"type":"exit","status":N}     the last record of a run
// Diagnostics before the run (parse, semantic, load and attach errors) stay
// text on stderr: they come before the stream starts.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "loader/interp/global_store.h"
#include "loader/output/histogram_output.h"

namespace stap {

// Keys in the order written: "type" first, as a reader scanning lines wants.
using Json = nlohmann::ordered_json;

enum class OutputFormat { text, json };

class OutputSink {
 public:
  OutputSink(std::FILE* out, OutputFormat format) : out_(out), format_(format) {}

  bool json() const { return format_ == OutputFormat::json; }
  std::FILE* file() const { return out_; }

  // printf, print, log, print_backtrace ...: the bytes, or a printf record.
  void print(std::string_view text);
  // print(@hist_*(G[key])): stap's text for it (empty: nothing printed), or
  // a hist record.
  void histogram(const std::string& global, const Key& key, const Histogram& h,
                 std::string_view text);
  // A runtime ERROR or WARNING: "ERROR: msg" on stderr after the output
  // so far, or an error/warning record in the stream.
  void error(const std::string& message);
  void warning(const std::string& message);
  // Any other record (the caller builds it with its "type").
  void record(const Json& object);

  void flush() { std::fflush(out_); }

 private:
  std::FILE* out_;
  OutputFormat format_;
};

// A key as JSON: longs as numbers, strings as strings; a stack-coded
// column (backtrace(), ubacktrace()) as its frame names, leaf first.
Json key_json(const Key& key);
// The non-empty buckets of a histogram with their bounds.
Json buckets_json(const Histogram& h);

}  // namespace stap
