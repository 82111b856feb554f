#include "loader/output/output_sink.h"

#include <algorithm>
#include <limits>

#include "ir/key_codes.h"
#include "loader/symbols/stack_symbols.h"

namespace stap {

namespace {

// Output bytes need not be UTF-8 (a %s of kernel memory, a binary key):
// such bytes become U+FFFD rather than an exception mid-run.
std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void write_line(std::FILE* out, const Json& j) {
  std::string line = dump(j);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), out);
}

// Values of a log bucket: 0 alone; a positive bucket from its label to
// just under twice it; a negative one from just over twice its label up
// to it (histogram_output.h numbers them).
std::pair<int64_t, int64_t> log_bounds(int b) {
  int64_t label = hist_log_bucket_value(b);
  if (b == kHistLogBucketZero) return {0, 0};
  constexpr int64_t top = std::numeric_limits<int64_t>::max();
  if (b > kHistLogBucketZero) return {label, label > top / 2 ? top : label * 2 - 1};
  if (label == std::numeric_limits<int64_t>::min()) return {label, label};
  return {label < -(top / 2) ? -top : label * 2 + 1, label};
}

}  // namespace

void OutputSink::print(std::string_view text) {
  if (!json()) {
    std::fwrite(text.data(), 1, text.size(), out_);
    return;
  }
  if (text.empty()) return;
  // The hot path of a printf-heavy script: the fixed envelope around the
  // text as the library escapes it, without building an object per call
  // (the same bytes record() would write).
  std::string line = "{\"type\":\"printf\",\"data\":";
  line += dump(Json(std::string(text)));
  line += "}\n";
  std::fwrite(line.data(), 1, line.size(), out_);
}

void OutputSink::histogram(const std::string& global, const Key& key, const Histogram& h,
                           std::string_view text) {
  if (!json()) {
    std::fwrite(text.data(), 1, text.size(), out_);
    return;
  }
  // An empty statistic prints nothing in text; the record says it is empty.
  write_line(out_, {{"type", "hist"},
                    {"name", global},
                    {"key", key_json(key)},
                    {"kind", h.kind == Histogram::Kind::log ? "log" : "linear"},
                    {"buckets", buckets_json(h)}});
}

void OutputSink::error(const std::string& message) {
  if (json()) return write_line(out_, {{"type", "error"}, {"msg", message}});
  std::fflush(out_);
  std::fprintf(stderr, "ERROR: %s\n", message.c_str());
}

void OutputSink::warning(const std::string& message) {
  if (json()) return write_line(out_, {{"type", "warning"}, {"msg", message}});
  std::fflush(out_);
  std::fprintf(stderr, "WARNING: %s\n", message.c_str());
}

void OutputSink::record(const Json& object) { write_line(out_, object); }

Json key_json(const Key& key) {
  Json out = Json::array();
  for (const Value& v : key) {
    if (v.is_string && ir::is_stack_code(v.num)) {
      std::vector<std::string> frames = stack_symbols().folded(v.num);
      std::reverse(frames.begin(), frames.end());
      out.push_back(frames);
    } else if (v.is_string) {
      out.push_back(v.str);
    } else {
      out.push_back(v.num);
    }
  }
  return out;
}

Json buckets_json(const Histogram& h) {
  Json out = Json::array();
  size_t n = h.buckets.size();
  for (size_t i = 0; i < n; ++i) {
    if (h.buckets[i] == 0) continue;
    Json b;
    if (h.kind == Histogram::Kind::log) {
      auto [lo, hi] = log_bounds(int(i));
      b["min"] = lo;
      b["max"] = hi;
    } else {
      // Bucket 0 is the underflow, n-1 the overflow, bucket i from
      // low + (i-1)*step up to one under the next (histogram_output.h).
      if (i > 0) b["min"] = h.low + int64_t(i - 1) * h.step;
      if (i + 1 < n) b["max"] = i == 0 ? h.low - 1 : h.low + int64_t(i) * h.step - 1;
    }
    b["count"] = h.buckets[i];
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace stap
