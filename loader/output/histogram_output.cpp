// Histogram text, as stap 4.8 prints it.  See histogram_output.h for the
// bucket layout; the rules of the text are noted where they are applied.
#include "loader/output/histogram_output.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace stap {

namespace {

// Rows of zero buckets kept next to data; a zero row farther than this from
// every non-zero row is elided.
constexpr int kHistElision = 2;

uint64_t magnitude(int64_t v) {
  // Unsigned negation, so that INT64_MIN gives 2^63 without overflow.
  return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

// Characters needed to print v in decimal, sign included.
int needed_space(int64_t v) {
  int space = v < 0 ? 1 : 0;
  uint64_t m = magnitude(v);
  do {
    ++space;
    m /= 10;
  } while (m != 0);
  return space;
}

// Wrapping int64 arithmetic: labels of absurd linear parameters must not
// be undefined behaviour.
int64_t wrap_add_mul(int64_t base, int64_t step, int64_t times) {
  uint64_t r = static_cast<uint64_t>(base) +
               static_cast<uint64_t>(step) * static_cast<uint64_t>(times);
  return static_cast<int64_t>(r);
}

void append_padded(std::string& out, int width, const std::string& text) {
  if (static_cast<int>(text.size()) < width)
    out.append(static_cast<size_t>(width) - text.size(), ' ');
  out += text;
}

// The rows printed: buckets [low, high], and whether they reach the linear
// underflow and overflow buckets.
struct RowRange {
  int low = -1;
  int high = 0;
  bool under = false;
  bool over = false;
};

RowRange row_range(const Histogram& h) {
  const std::vector<int64_t>& b = h.buckets;
  const int n = static_cast<int>(b.size());
  RowRange r;
  for (int i = 0; i < n; ++i) {
    if (b[i] <= 0) continue;
    if (r.low == -1) r.low = i;
    r.high = i;
  }
  // Two zero rows of margin on each side of the data.  A log histogram
  // never widens below the zero bucket into negatives that hold nothing.
  for (int i = 0; i < kHistElision; ++i) {
    bool can_lower = r.low > 0;
    if (h.kind == Histogram::Kind::log && r.low == kHistLogBucketZero)
      can_lower = false;
    if (can_lower) --r.low;
    if (r.high < n - 1) ++r.high;
  }
  if (h.kind == Histogram::Kind::linear) {
    // The underflow and overflow rows appear only when they count something.
    if (r.low == 0 && b[0] == 0) ++r.low;
    if (r.high == n - 1 && b[r.high] == 0) --r.high;
    r.under = r.low == 0;
    r.over = r.high == n - 1;
  }
  return r;
}

// Width of the value column: the widest of the end labels, at least as wide
// as "value".  For linear, stap measures lo + step*high (the bucket index,
// not the label's lo + step*(high-1)), so the column can be one digit wider
// than the labels need; that is kept, to match its text.
int value_width(const Histogram& h, const RowRange& r) {
  int width;
  if (h.kind == Histogram::Kind::linear) {
    width = std::max(needed_space(h.low) + (r.under ? 1 : 0),
                     needed_space(wrap_add_mul(h.low, h.step, r.high)) +
                         (r.over ? 1 : 0));
  } else {
    width = std::max(needed_space(hist_log_bucket_value(r.high)),
                     needed_space(hist_log_bucket_value(r.low)));
  }
  return std::max(width, 5);
}

// A row is elided when it and every row within kHistElision of it (inside
// the printed range) are zero.
bool elided(const std::vector<int64_t>& b, const RowRange& r, int i) {
  int first = std::max(r.low, i - kHistElision);
  int last = std::min(r.high, i + kHistElision);
  for (int k = first; k <= last; ++k)
    if (b[k] != 0) return false;
  return true;
}

// The row's label: prefix ("<", ">" or "") and value.
std::pair<std::string, int64_t> row_label(const Histogram& h, int i) {
  if (h.kind == Histogram::Kind::log) return {"", hist_log_bucket_value(i)};
  const int n = static_cast<int>(h.buckets.size());
  if (i == 0) return {"<", h.low};
  if (i == n - 1) return {">", wrap_add_mul(h.low, h.step, i - 2)};
  return {"", wrap_add_mul(h.low, h.step, i - 1)};
}

void check_shape(const Histogram& h) {
  size_t want = h.kind == Histogram::Kind::log
                    ? kHistLogBuckets
                    : static_cast<size_t>(
                          hist_linear_bucket_count(h.low, h.high, h.step));
  if (want == 0)
    throw std::invalid_argument("format_histogram: unusable hist_linear parameters");
  if (h.buckets.size() != want)
    throw std::invalid_argument("format_histogram: wrong number of buckets");
}

}  // namespace

int hist_log_bucket(int64_t value) {
  if (value == 0) return kHistLogBucketZero;
  int bits = static_cast<int>(std::bit_width(magnitude(value)));
  return value > 0 ? kHistLogBucketZero + bits : kHistLogBucketZero - bits;
}

int64_t hist_log_bucket_value(int bucket) {
  if (bucket < 0 || bucket >= kHistLogBuckets)
    throw std::out_of_range("hist_log_bucket_value: no such bucket");
  if (bucket == kHistLogBucketZero) return 0;
  if (bucket > kHistLogBucketZero)
    return int64_t{1} << (bucket - kHistLogBucketZero - 1);
  // -2^(63-bucket): INT64_MIN for 0, ..., -1 for 63 (arithmetic shift).
  return INT64_MIN >> bucket;
}

int hist_linear_bucket_count(int64_t low, int64_t high, int64_t step) {
  if (step <= 0) return 0;
  // 128-bit, so that hi - lo cannot overflow; '/' truncates as C's does.
  __int128 count = (static_cast<__int128>(high) - low) / step + 3;
  if (count < 3 || count > kHistMaxLinearBuckets) return 0;
  return static_cast<int>(count);
}

int hist_linear_bucket(int64_t value, int64_t low, int64_t high, int64_t step) {
  int count = hist_linear_bucket_count(low, high, step);
  if (count == 0) return -1;
  if (value < low) return 0;
  uint64_t offset = static_cast<uint64_t>(value) - static_cast<uint64_t>(low);
  uint64_t index = offset / static_cast<uint64_t>(step) + 1;
  return static_cast<int>(std::min<uint64_t>(index, static_cast<uint64_t>(count - 1)));
}

std::optional<std::string> format_histogram(const Histogram& h) {
  check_shape(h);
  const std::vector<int64_t>& b = h.buckets;
  int64_t valmax = *std::max_element(b.begin(), b.end());
  if (valmax <= 0) return std::nullopt;

  RowRange rows = row_range(h);
  // Bars are scaled only when the largest count would not fit; the scale
  // rounds up so that the largest bar is at most kHistWidth.
  int64_t scale = valmax <= kHistWidth ? 1 : (valmax + kHistWidth - 1) / kHistWidth;
  int count_width = needed_space(valmax);
  int val_width = value_width(h, rows);

  std::string out;
  append_padded(out, val_width, "value");
  out += " |";
  out.append(kHistWidth, '-');
  out += " count\n";

  bool eliding = false;
  for (int i = rows.low; i <= rows.high; ++i) {
    if (elided(b, rows, i)) {
      eliding = true;
      continue;
    }
    if (eliding) {
      // One "~" row stands for the whole elided run.
      out.append(static_cast<size_t>(val_width), ' ');
      out += " ~\n";
      eliding = false;
    }
    auto [prefix, value] = row_label(h, i);
    append_padded(out, val_width - needed_space(value), prefix);
    out += std::to_string(value);
    out += " |";
    int64_t bar = b[i] / scale;
    out.append(static_cast<size_t>(bar), '@');
    // The count is right-aligned in a column that starts after the bar
    // area and one space, and is as wide as the largest count.
    append_padded(out, static_cast<int>(kHistWidth - bar + 1 + count_width),
                  std::to_string(b[i]));
    out += '\n';
  }
  out += '\n';
  return out;
}

}  // namespace stap
