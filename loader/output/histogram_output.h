// The text of print(@hist_log(x)) and print(@hist_linear(x, lo, hi, step)),
// and the bucket numbering that the BPF side (which counts) and the runtime
// (which prints) must agree on.
//
// The bucket layout is SystemTap's own, so that a histogram collected here
// prints exactly as stap prints it (runtime/stat-common.c in stap 4.8 was
// read for the facts):
//
// hist_log: kHistLogBuckets (128) buckets.  Bucket kHistLogBucketZero (64)
//   holds 0.  A positive v with bit length k (1 for 1, 2 for 2..3, 3 for
//   4..7, ..., 63 for INT64_MAX) goes to 64 + k.  A negative v whose
//   magnitude has bit length k goes to 64 - k: -1 to 63, -2..-3 to 62,
//   -4..-7 to 61, ..., INT64_MIN (magnitude 2^63) to 0.  A bucket's label
//   is its value nearest zero: 0, 1, 2, 4 ... and -1, -2, -4 ... INT64_MIN.
//
// hist_linear(lo, hi, step): (hi - lo) / step + 3 buckets (C division,
//   truncating).  Bucket 0 is the underflow (v < lo, labelled "<lo");
//   bucket i in 1 .. n-2 holds lo + (i-1)*step <= v < lo + i*step, labelled
//   lo + (i-1)*step; bucket n-1 is the overflow, labelled ">" followed by
//   lo + (n-3)*step.  Note that, as in stap, the last regular bucket is the
//   one labelled lo + (n-3)*step, so ">hi" collects values from hi + step
//   on when step divides hi - lo.
//
// Two deliberate differences from stap's runtime, which keeps lo, hi and
// step in C ints: here they are int64 throughout, and a step <= 0 is
// refused (hist_linear_bucket_count returns 0) instead of being divided
// by as an unsigned number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stap {

constexpr int kHistLogBuckets = 128;
constexpr int kHistLogBucketZero = 64;
// Largest bucket count of a linear histogram, underflow and overflow
// included (stap's STP_MAX_BUCKETS).
constexpr int kHistMaxLinearBuckets = 128;
// Width of the bar column, in '@'s.
constexpr int kHistWidth = 50;

// The hist_log bucket of a value: 0 .. kHistLogBuckets-1.
int hist_log_bucket(int64_t value);

// The label printed for a hist_log bucket (its value nearest zero).
int64_t hist_log_bucket_value(int bucket);

// How many buckets hist_linear(lo, hi, step) has, underflow and overflow
// included; 0 when the parameters are unusable (step <= 0, or a count
// outside 3 .. kHistMaxLinearBuckets, the range stap accepts).
int hist_linear_bucket_count(int64_t low, int64_t high, int64_t step);

// The hist_linear bucket of a value; -1 when the parameters are unusable
// (hist_linear_bucket_count is 0).
int hist_linear_bucket(int64_t value, int64_t low, int64_t high, int64_t step);

struct Histogram {
  enum class Kind { log, linear };
  Kind kind = Kind::log;
  // hist_linear's parameters; unused for log.
  int64_t low = 0;
  int64_t high = 0;
  int64_t step = 0;
  // One count per bucket, numbered as above: kHistLogBuckets entries for a
  // log histogram, hist_linear_bucket_count(low, high, step) for a linear.
  std::vector<int64_t> buckets;
};

// stap's text for a histogram, ending with the blank line stap prints after
// it.  Returns nullopt when every bucket is zero: stap prints nothing then
// and reports the runtime error "empty aggregate" at the print, which is the
// caller's to raise.  Throws std::invalid_argument if the bucket count does
// not match the kind and parameters.
std::optional<std::string> format_histogram(const Histogram& h);

}  // namespace stap
