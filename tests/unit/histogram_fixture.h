// Helpers shared by the histogram tests: empty histograms of each kind,
// `h <<< value` through the shared bucket numbering, and the text.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "loader/output/histogram_output.h"

namespace histogram_test {

using stap::format_histogram;
using stap::hist_linear_bucket;
using stap::hist_linear_bucket_count;
using stap::hist_log_bucket;
using stap::hist_log_bucket_value;
using stap::Histogram;

inline Histogram log_hist() {
  Histogram h;
  h.kind = Histogram::Kind::log;
  h.buckets.assign(stap::kHistLogBuckets, 0);
  return h;
}

inline Histogram linear_hist(int64_t low, int64_t high, int64_t step) {
  Histogram h;
  h.kind = Histogram::Kind::linear;
  h.low = low;
  h.high = high;
  h.step = step;
  h.buckets.assign(static_cast<size_t>(stap::hist_linear_bucket_count(low, high, step)), 0);
  return h;
}

// h <<< value, `times` times.
inline void add(Histogram& h, int64_t value, int64_t times = 1) {
  int b = h.kind == Histogram::Kind::log
              ? stap::hist_log_bucket(value)
              : stap::hist_linear_bucket(value, h.low, h.high, h.step);
  REQUIRE(b >= 0);
  REQUIRE(static_cast<size_t>(b) < h.buckets.size());
  h.buckets[static_cast<size_t>(b)] += times;
}

inline std::string text(const Histogram& h) {
  std::optional<std::string> s = stap::format_histogram(h);
  return s ? *s : "<empty aggregate>";
}

}  // namespace histogram_test
