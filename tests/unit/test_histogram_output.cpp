// Histogram text and bucket numbering (loader/histogram_output.h).
//
// The first goldens are SystemTap's own expected output from its testsuite
// (testsuite/systemtap.maps/*.exp: elision.exp is compared exactly there,
// blank line included; for the others the blank line stap always prints
// after a histogram is added), each fed the same values as the .stp script
// that produced it.  The later cases pin each rule down on small shapes.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "loader/histogram_output.h"

using stap::format_histogram;
using stap::hist_linear_bucket;
using stap::hist_linear_bucket_count;
using stap::hist_log_bucket;
using stap::hist_log_bucket_value;
using stap::Histogram;

namespace {

Histogram log_hist() {
  Histogram h;
  h.kind = Histogram::Kind::log;
  h.buckets.assign(stap::kHistLogBuckets, 0);
  return h;
}

Histogram linear_hist(int64_t low, int64_t high, int64_t step) {
  Histogram h;
  h.kind = Histogram::Kind::linear;
  h.low = low;
  h.high = high;
  h.step = step;
  h.buckets.assign(static_cast<size_t>(hist_linear_bucket_count(low, high, step)), 0);
  return h;
}

// h <<< value, `times` times.
void add(Histogram& h, int64_t value, int64_t times = 1) {
  int b = h.kind == Histogram::Kind::log
              ? hist_log_bucket(value)
              : hist_linear_bucket(value, h.low, h.high, h.step);
  REQUIRE(b >= 0);
  REQUIRE(static_cast<size_t>(b) < h.buckets.size());
  h.buckets[static_cast<size_t>(b)] += times;
}

std::string text(const Histogram& h) {
  std::optional<std::string> s = format_histogram(h);
  return s ? *s : "<empty aggregate>";
}

// The values systemtap.maps/linear.stp and linear_overunder.stp add.
void add_key_multiples(Histogram& h) {
  for (int64_t key = 0; key < 100; ++key) {
    for (int64_t m = 1; m <= 15; ++m) add(h, key * m);
    add(h, key * 12);  // the scripts add key*12 twice
  }
}

const char* const kElision0 = R"(value |-------------------------------------------------- count
  300 |                                                   0
  350 |                                                   0
  400 |@                                                  1
  450 |                                                   0
  500 |                                                   0
      ~
  850 |                                                   0
  900 |                                                   0
  950 |@                                                  1
 1000 |                                                   0
 1050 |                                                   0

)";
const char* const kElision1 = R"(value |-------------------------------------------------- count
  300 |                                                   0
  350 |                                                   0
  400 |@                                                  1
  450 |                                                   0
  500 |@                                                  1
  550 |                                                   0
  600 |                                                   0

)";
const char* const kElision2 = R"(value |-------------------------------------------------- count
    0 |@                                                  1
   50 |                                                   0
  100 |                                                   0

)";
const char* const kElision3 = R"(value |-------------------------------------------------- count
    0 |                                                   0
   50 |@                                                  1
  100 |                                                   0
  150 |                                                   0

)";
const char* const kElision4 = R"(value |-------------------------------------------------- count
 1350 |                                                   0
 1400 |                                                   0
 1450 |@                                                  1
 1500 |                                                   0

)";
const char* const kElision5 = R"(value |-------------------------------------------------- count
 1400 |                                                   0
 1450 |                                                   0
 1500 |@                                                  1

)";
const char* const kElision6 = R"(value |-------------------------------------------------- count
  -30 |                                                   0
  -20 |                                                   0
  -10 |@                                                  1
    0 |                                                   0
   10 |                                                   0

)";
const char* const kElision7 = R"(value |-------------------------------------------------- count
  -20 |                                                   0
  -10 |                                                   0
    0 |@                                                  1
   10 |                                                   0
   20 |                                                   0

)";
const char* const kElision8 = R"(value |-------------------------------------------------- count
   32 |                                                   0
   64 |                                                   0
  128 |@                                                  1
  256 |                                                   0
  512 |                                                   0

)";
const char* const kElision9 = R"(value |-------------------------------------------------- count
    0 |@                                                  1
    1 |                                                   0
    2 |                                                   0

)";
const char* const kElision10 = R"( value |-------------------------------------------------- count
-16384 |                                                   0
 -8192 |                                                   0
 -4096 |@                                                  1
 -2048 |                                                   0
 -1024 |                                                   0
       ~
    -8 |                                                   0
    -4 |                                                   0
    -2 |@                                                  1
    -1 |                                                   0
     0 |                                                   0

)";
const char* const kLogEdge0 = R"(value |-------------------------------------------------- count
   -4 |                                                   0
   -2 |                                                   0
   -1 |@                                                  1
    0 |                                                   0
    1 |@                                                  1
    2 |                                                   0
    4 |                                                   0

)";
const char* const kLogEdge1 = R"(value |-------------------------------------------------- count
    0 |@                                                  1
    1 |                                                   0
    2 |                                                   0

)";
const char* const kLogEdge2 = R"(              value |-------------------------------------------------- count
1152921504606846976 |                                                   0
2305843009213693952 |                                                   0
4611686018427387904 |@                                                  1

)";
const char* const kLogEdge3 = R"(value |-------------------------------------------------- count
    0 |                                                   0
    1 |@                                                  1
    2 |@@                                                 2
    4 |@                                                  1
    8 |                                                   0
   16 |                                                   0

)";
const char* const kLogFullRange = R"(               value |-------------------------------------------------- count
-9223372036854775808 |@                                                   1
-4611686018427387904 |@                                                   1
-2305843009213693952 |@                                                   1
-1152921504606846976 |@                                                   1
 -576460752303423488 |@                                                   1
 -288230376151711744 |@                                                   1
 -144115188075855872 |@                                                   1
  -72057594037927936 |@                                                   1
  -36028797018963968 |@                                                   1
  -18014398509481984 |@                                                   1
   -9007199254740992 |@                                                   1
   -4503599627370496 |@                                                   1
   -2251799813685248 |@                                                   1
   -1125899906842624 |@                                                   1
    -562949953421312 |@                                                   1
    -281474976710656 |@                                                   1
    -140737488355328 |@                                                   1
     -70368744177664 |@                                                   1
     -35184372088832 |@                                                   1
     -17592186044416 |@                                                   1
      -8796093022208 |@                                                   1
      -4398046511104 |@                                                   1
      -2199023255552 |@                                                   1
      -1099511627776 |@                                                   1
       -549755813888 |@                                                   1
       -274877906944 |@                                                   1
       -137438953472 |@                                                   1
        -68719476736 |@                                                   1
        -34359738368 |@                                                   1
        -17179869184 |@                                                   1
         -8589934592 |@                                                   1
         -4294967296 |@                                                   1
         -2147483648 |@                                                   1
         -1073741824 |@                                                   1
          -536870912 |@                                                   1
          -268435456 |@                                                   1
          -134217728 |@                                                   1
           -67108864 |@                                                   1
           -33554432 |@                                                   1
           -16777216 |@                                                   1
            -8388608 |@                                                   1
            -4194304 |@                                                   1
            -2097152 |@                                                   1
            -1048576 |@                                                   1
             -524288 |@                                                   1
             -262144 |@                                                   1
             -131072 |@                                                   1
              -65536 |@                                                   1
              -32768 |@                                                   1
              -16384 |@                                                   1
               -8192 |@                                                   1
               -4096 |@                                                   1
               -2048 |@                                                   1
               -1024 |@                                                   1
                -512 |@                                                   1
                -256 |@                                                   1
                -128 |@                                                   1
                 -64 |@                                                   1
                 -32 |@                                                   1
                 -16 |@                                                   1
                  -8 |@                                                   1
                  -4 |@                                                   1
                  -2 |@                                                   1
                  -1 |@                                                   1
                   0 |@@@@@@@@@@@@@@@@@@@@                               20
                   1 |@                                                   1
                   2 |@                                                   1
                   4 |@                                                   1
                   8 |@                                                   1
                  16 |@                                                   1
                  32 |@                                                   1
                  64 |@                                                   1
                 128 |@                                                   1
                 256 |@                                                   1
                 512 |@                                                   1
                1024 |@                                                   1
                2048 |@                                                   1
                4096 |@                                                   1
                8192 |@                                                   1
               16384 |@                                                   1
               32768 |@                                                   1
               65536 |@                                                   1
              131072 |@                                                   1
              262144 |@                                                   1
              524288 |@                                                   1
             1048576 |@                                                   1
             2097152 |@                                                   1
             4194304 |@                                                   1
             8388608 |@                                                   1
            16777216 |@                                                   1
            33554432 |@                                                   1
            67108864 |@                                                   1
           134217728 |@                                                   1
           268435456 |@                                                   1
           536870912 |@                                                   1
          1073741824 |@                                                   1
          2147483648 |@                                                   1
          4294967296 |@                                                   1
          8589934592 |@                                                   1
         17179869184 |@                                                   1
         34359738368 |@                                                   1
         68719476736 |@                                                   1
        137438953472 |@                                                   1
        274877906944 |@                                                   1
        549755813888 |@                                                   1
       1099511627776 |@                                                   1
       2199023255552 |@                                                   1
       4398046511104 |@                                                   1
       8796093022208 |@                                                   1
      17592186044416 |@                                                   1
      35184372088832 |@                                                   1
      70368744177664 |@                                                   1
     140737488355328 |@                                                   1
     281474976710656 |@                                                   1
     562949953421312 |@                                                   1
    1125899906842624 |@                                                   1
    2251799813685248 |@                                                   1
    4503599627370496 |@                                                   1
    9007199254740992 |@                                                   1
   18014398509481984 |@                                                   1
   36028797018963968 |@                                                   1
   72057594037927936 |@                                                   1
  144115188075855872 |@                                                   1
  288230376151711744 |@                                                   1
  576460752303423488 |@                                                   1
 1152921504606846976 |@                                                   1
 2305843009213693952 |@                                                   1
 4611686018427387904 |@                                                   1

)";
const char* const kLinearOverUnder = R"(value |-------------------------------------------------- count
 <250 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@   680
  250 |@@@@@@                                              94
  300 |@@@@@                                               79
  350 |@@@@@                                               79
  400 |@@@@                                                65
  450 |@@@@                                                67
  500 |@@@                                                 55
  550 |@@@                                                 54
  600 |@@@                                                 51
  650 |@@@                                                 45
  700 |@@                                                  41
  750 |@@                                                  40
  800 |@@                                                  34
  850 |@@                                                  33
  900 |@@                                                  31
  950 |@                                                   27
 1000 |@                                                   23
>1000 |@@@@@@@                                            102

)";
const char* const kLinearLarge = R"(      value |-------------------------------------------------- count
          0 |@@@                                                3
  100000000 |@@                                                 2
  200000000 |                                                   0
  300000000 |                                                   0
  400000000 |                                                   0
  500000000 |@@@@@                                              5
  600000000 |                                                   0
  700000000 |                                                   0
  800000000 |                                                   0
  900000000 |                                                   0
 1000000000 |@@@@                                               4
>1000000000 |@                                                  1

)";
const char* const kLinearLargeNeg = R"(       value |-------------------------------------------------- count
<-1000000000 |@                                                  1
 -1000000000 |@@@@                                               4
  -900000000 |                                                   0
  -800000000 |                                                   0
  -700000000 |                                                   0
  -600000000 |                                                   0
  -500000000 |@@@@@                                              5
  -400000000 |                                                   0
  -300000000 |                                                   0
  -200000000 |                                                   0
  -100000000 |@@                                                 2
           0 |@                                                  1

)";
const char* const kLinearOver = R"(value |-------------------------------------------------- count
   90 |                                                      0
  100 |                                                      0
 >100 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 9000

)";
const char* const kLinearUnder = R"(value |-------------------------------------------------- count
<1800 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 100
 1800 |                                                     0
 1900 |                                                     0

)";
const char* const kIxHist = R"(value |-------------------------------------------------- count
    0 |                                                    1
    1 |                                                    1
    2 |@                                                   2
    4 |@@                                                  4
    8 |@@@@                                                8
   16 |@@@@@@@@                                           16
   32 |@@@@@@@@@@@@@@@@                                   32
   64 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                   64
  128 |                                                    0
  256 |                                                    0

value |-------------------------------------------------- count
    0 |                                                     1
    1 |                                                     0
    2 |                                                     1
    4 |                                                     2
    8 |@                                                    4
   16 |@@                                                   8
   32 |@@@@@                                               16
   64 |@@@@@@@@@@                                          32
  128 |@@@@@@@@@@@@@@@@@@@@@                               64
  256 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         128
  512 |                                                     0
 1024 |                                                     0

value |-------------------------------------------------- count
    0 |                                                     1
    1 |                                                     0
    2 |                                                     1
    4 |                                                     1
    8 |                                                     3
   16 |@                                                    5
   32 |@@                                                  11
   64 |@@@@@                                               21
  128 |@@@@@@@@@@                                          43
  256 |@@@@@@@@@@@@@@@@@@@@@                               85
  512 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         171
 1024 |@@@@@@@@@@                                          42
 2048 |                                                     0
 4096 |                                                     0

value |-------------------------------------------------- count
    0 |                                                     1
    1 |                                                     0
    2 |                                                     0
    4 |                                                     1
    8 |                                                     2
   16 |                                                     4
   32 |@                                                    8
   64 |@@                                                  16
  128 |@@@@@                                               32
  256 |@@@@@@@@@@                                          64
  512 |@@@@@@@@@@@@@@@@@@@@@                              128
 1024 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@         256
 2048 |                                                     0
 4096 |                                                     0

)";

}  // namespace

TEST_CASE("stap testsuite elision.stp: linear and log shapes, default elision") {
  auto lin = [](std::initializer_list<int64_t> values) {
    Histogram h = linear_hist(0, 1500, 50);
    for (int64_t v : values) add(h, v);
    return text(h);
  };
  CHECK(lin({444, 999}) == kElision0);
  CHECK(lin({444, 500}) == kElision1);
  CHECK(lin({0}) == kElision2);
  CHECK(lin({50}) == kElision3);
  CHECK(lin({1450}) == kElision4);
  CHECK(lin({1500}) == kElision5);

  Histogram b = linear_hist(-100, 100, 10);
  add(b, -10);
  CHECK(text(b) == kElision6);
  b = linear_hist(-100, 100, 10);
  add(b, 0);
  CHECK(text(b) == kElision7);

  Histogram c = log_hist();
  add(c, 128);
  CHECK(text(c) == kElision8);
  c = log_hist();
  add(c, 0);
  CHECK(text(c) == kElision9);
  c = log_hist();
  add(c, -2);
  add(c, -4096);
  CHECK(text(c) == kElision10);
}

TEST_CASE("stap testsuite log_edge.stp: -1 and 1, zero, INT64_MAX, 1..4") {
  Histogram h = log_hist();
  add(h, -1);
  add(h, 1);
  CHECK(text(h) == kLogEdge0);
  h = log_hist();
  add(h, 0);
  CHECK(text(h) == kLogEdge1);
  h = log_hist();
  add(h, INT64_MAX);
  CHECK(text(h) == kLogEdge2);
  h = log_hist();
  for (int64_t v : {1, 2, 3, 4}) add(h, v);
  CHECK(text(h) == kLogEdge3);
}

TEST_CASE("stap testsuite log.stp: every bucket, INT64_MIN's 20-wide column") {
  Histogram h = log_hist();
  int64_t val = 1;
  for (int i = 0; i < 63; ++i, val = static_cast<int64_t>(static_cast<uint64_t>(val) << 1))
    add(h, val);
  val = 1;
  for (int i = 0; i < 64; ++i, val = static_cast<int64_t>(static_cast<uint64_t>(val) << 1))
    add(h, static_cast<int64_t>(0 - static_cast<uint64_t>(val)));
  add(h, 0, 20);
  CHECK(text(h) == kLogFullRange);
}

TEST_CASE("stap testsuite linear_*.stp: under/overflow rows, scaling, wide labels") {
  Histogram h = linear_hist(250, 1000, 50);
  add_key_multiples(h);
  CHECK(text(h) == kLinearOverUnder);

  h = linear_hist(0, 1000000000, 100000000);
  for (int64_t v : {10000000, 10000000, 10000000, 100000000, 100000000})
    add(h, v);
  add(h, 500000000, 5);
  add(h, 1000000000, 4);
  add(h, 10000000000);
  CHECK(text(h) == kLinearLarge);

  h = linear_hist(-1000000000, 0, 100000000);
  add(h, 0);
  add(h, -100000000, 2);
  add(h, -500000000, 5);
  add(h, -1000000000, 4);
  add(h, -10000000000);
  CHECK(text(h) == kLinearLargeNeg);

  h = linear_hist(0, 100, 10);
  for (int64_t key = 1000; key < 10000; ++key) add(h, key);
  CHECK(text(h) == kLinearOver);

  h = linear_hist(1800, 2500, 100);
  for (int64_t key = 0; key < 100; ++key) add(h, key);
  CHECK(text(h) == kLinearUnder);
}

TEST_CASE("stap testsuite ix_hist.stp: scaled bars, several histograms") {
  std::string all;
  for (int64_t i = 1; i < 5; ++i) {
    Histogram h = log_hist();
    for (int64_t j = 0; j < i * 128; ++j) add(h, i * j);
    all += text(h);
  }
  CHECK(all == kIxHist);
}

// REFERENCE.md's example values (1 four times, 2..3 twice).  Its sketch
// puts the counts under the end of "count"; stap puts them one column
// after the bar area (see the testsuite goldens above), and so does this.
TEST_CASE("the REFERENCE.md example, as stap prints it") {
  Histogram h = log_hist();
  add(h, 1, 4);
  add(h, 2);
  add(h, 3);
  CHECK(text(h) ==
        "value |-------------------------------------------------- count\n"
        "    0 |                                                   0\n"
        "    1 |@@@@                                               4\n"
        "    2 |@@                                                 2\n"
        "    4 |                                                   0\n"
        "    8 |                                                   0\n"
        "\n");
}

TEST_CASE("an empty histogram prints nothing: stap's 'empty aggregate' error") {
  CHECK_FALSE(format_histogram(log_hist()).has_value());
  CHECK_FALSE(format_histogram(linear_hist(0, 100, 10)).has_value());
}

TEST_CASE("the bucket vector must match the kind and parameters") {
  Histogram h = log_hist();
  h.buckets.pop_back();
  CHECK_THROWS_AS(format_histogram(h), std::invalid_argument);
  h = linear_hist(0, 100, 10);
  h.buckets.push_back(1);
  CHECK_THROWS_AS(format_histogram(h), std::invalid_argument);
  h = linear_hist(0, 100, 10);
  h.step = 0;
  CHECK_THROWS_AS(format_histogram(h), std::invalid_argument);
}

TEST_CASE("negative buckets only: two zero rows below, up to 0 and 1 above") {
  Histogram h = log_hist();
  add(h, -1);
  add(h, -5, 2);
  CHECK(text(h) ==
        "value |-------------------------------------------------- count\n"
        "  -16 |                                                   0\n"
        "   -8 |                                                   0\n"
        "   -4 |@@                                                 2\n"
        "   -2 |                                                   0\n"
        "   -1 |@                                                  1\n"
        "    0 |                                                   0\n"
        "    1 |                                                   0\n"
        "\n");
}

TEST_CASE("positive and negative data, the zero run between them elided") {
  Histogram h = log_hist();
  add(h, -100);
  add(h, 1000, 3);
  CHECK(text(h) ==
        "value |-------------------------------------------------- count\n"
        " -256 |                                                   0\n"
        " -128 |                                                   0\n"
        "  -64 |@                                                  1\n"
        "  -32 |                                                   0\n"
        "  -16 |                                                   0\n"
        "      ~\n"
        "  128 |                                                   0\n"
        "  256 |                                                   0\n"
        "  512 |@@@                                                3\n"
        " 1024 |                                                   0\n"
        " 2048 |                                                   0\n"
        "\n");
}

// Data in bucket 1 and in the bucket `gap` zero buckets higher.
std::string with_zero_gap(int gap) {
  Histogram h = log_hist();
  add(h, 1);
  add(h, int64_t{1} << (gap + 1));
  return text(h);
}

TEST_CASE("zero runs of 1 to 4 buckets are printed, 5 or more are elided") {
  const std::string header =
      "value |-------------------------------------------------- count\n";
  const std::string tail =
      "    0 |                                                   0\n"
      "    1 |@                                                  1\n";
  CHECK(with_zero_gap(1) == header + tail +
        "    2 |                                                   0\n"
        "    4 |@                                                  1\n"
        "    8 |                                                   0\n"
        "   16 |                                                   0\n\n");
  CHECK(with_zero_gap(4) == header + tail +
        "    2 |                                                   0\n"
        "    4 |                                                   0\n"
        "    8 |                                                   0\n"
        "   16 |                                                   0\n"
        "   32 |@                                                  1\n"
        "   64 |                                                   0\n"
        "  128 |                                                   0\n\n");
  CHECK(with_zero_gap(5) == header + tail +
        "    2 |                                                   0\n"
        "    4 |                                                   0\n"
        "      ~\n"
        "   16 |                                                   0\n"
        "   32 |                                                   0\n"
        "   64 |@                                                  1\n"
        "  128 |                                                   0\n"
        "  256 |                                                   0\n\n");
  for (int gap = 1; gap <= 4; ++gap) CHECK(with_zero_gap(gap).find('~') == std::string::npos);
  for (int gap = 5; gap <= 20; ++gap) {
    std::string s = with_zero_gap(gap);
    CHECK(s.find("      ~\n") != std::string::npos);
    CHECK(s.find('~') == s.rfind('~'));  // one mark per run
  }
}

TEST_CASE("bars: no scaling up to 50, then the scale rounds up") {
  Histogram h = log_hist();
  add(h, 0, 50);
  add(h, 1, 7);
  CHECK(text(h) ==
        "value |-------------------------------------------------- count\n"
        "    0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 50\n"
        "    1 |@@@@@@@                                             7\n"
        "    2 |                                                    0\n"
        "    4 |                                                    0\n"
        "\n");
  // 51: scale 2, so 51 draws 25 and 1 draws nothing.
  h = log_hist();
  add(h, 0, 51);
  add(h, 1, 1);
  CHECK(text(h) ==
        "value |-------------------------------------------------- count\n"
        "    0 |@@@@@@@@@@@@@@@@@@@@@@@@@                          51\n"
        "    1 |                                                    1\n"
        "    2 |                                                    0\n"
        "    4 |                                                    0\n"
        "\n");
  // 1234567: scale 24692, so it draws 49 and 30000 draws 1; the count
  // column is 7 wide.
  h = log_hist();
  add(h, 5, 1234567);
  add(h, 8, 30000);
  const std::string blank(50, ' ');
  CHECK(text(h) ==
        "value |-------------------------------------------------- count\n"
        "    1 |" + blank + "       0\n"
        "    2 |" + blank + "       0\n"
        "    4 |" + std::string(49, '@') + "  1234567\n"
        "    8 |@" + std::string(49, ' ') + "   30000\n"
        "   16 |" + blank + "       0\n"
        "   32 |" + blank + "       0\n"
        "\n");
}

TEST_CASE("linear: the value column measures lo + step * last index, as stap") {
  // Labels stop at 90000 (5 wide) but stap sizes the column from
  // 0 + 10000 * 10 = 100000, so it is 6 wide.
  Histogram h = linear_hist(0, 90000, 10000);
  add(h, 80000);
  CHECK(text(h) ==
        " value |-------------------------------------------------- count\n"
        " 60000 |                                                   0\n"
        " 70000 |                                                   0\n"
        " 80000 |@                                                  1\n"
        " 90000 |                                                   0\n"
        "\n");
}

TEST_CASE("linear: under- and overflow rows together, steps not dividing the range") {
  Histogram h = linear_hist(0, 25, 10);  // 5 buckets: <0, 0, 10, 20, >20
  add(h, -3);
  add(h, 29, 2);  // still the 20 bucket: it spans 20..29
  add(h, 30, 3);
  CHECK(text(h) ==
        "value |-------------------------------------------------- count\n"
        "   <0 |@                                                  1\n"
        "    0 |                                                   0\n"
        "   10 |                                                   0\n"
        "   20 |@@                                                 2\n"
        "  >20 |@@@                                                3\n"
        "\n");
}

TEST_CASE("hist_log_bucket at its boundaries") {
  CHECK(hist_log_bucket(0) == 64);
  CHECK(hist_log_bucket(1) == 65);
  CHECK(hist_log_bucket(2) == 66);
  CHECK(hist_log_bucket(3) == 66);
  CHECK(hist_log_bucket(4) == 67);
  CHECK(hist_log_bucket(7) == 67);
  CHECK(hist_log_bucket(8) == 68);
  CHECK(hist_log_bucket(1023) == 74);
  CHECK(hist_log_bucket(1024) == 75);
  CHECK(hist_log_bucket(int64_t{1} << 62) == 127);
  CHECK(hist_log_bucket(INT64_MAX) == 127);
  CHECK(hist_log_bucket(-1) == 63);
  CHECK(hist_log_bucket(-2) == 62);
  CHECK(hist_log_bucket(-3) == 62);
  CHECK(hist_log_bucket(-4) == 61);
  CHECK(hist_log_bucket(-INT64_MAX) == 1);
  CHECK(hist_log_bucket(INT64_MIN) == 0);
  for (int k = 0; k < 63; ++k) {
    int64_t p = int64_t{1} << k;
    CHECK(hist_log_bucket(p) == 65 + k);
    CHECK(hist_log_bucket(-p) == 63 - k);
    if (k > 0) CHECK(hist_log_bucket(p - 1) == 64 + k);
  }
}

TEST_CASE("hist_log_bucket_value labels each bucket by its value nearest zero") {
  CHECK(hist_log_bucket_value(64) == 0);
  CHECK(hist_log_bucket_value(65) == 1);
  CHECK(hist_log_bucket_value(66) == 2);
  CHECK(hist_log_bucket_value(127) == int64_t{1} << 62);
  CHECK(hist_log_bucket_value(63) == -1);
  CHECK(hist_log_bucket_value(62) == -2);
  CHECK(hist_log_bucket_value(1) == -(int64_t{1} << 62));
  CHECK(hist_log_bucket_value(0) == INT64_MIN);
  for (int b = 0; b < stap::kHistLogBuckets; ++b)
    CHECK(hist_log_bucket(hist_log_bucket_value(b)) == b);
  CHECK_THROWS_AS(hist_log_bucket_value(-1), std::out_of_range);
  CHECK_THROWS_AS(hist_log_bucket_value(128), std::out_of_range);
}

TEST_CASE("hist_linear_bucket_count: (hi - lo) / step + 3, within 3..128") {
  CHECK(hist_linear_bucket_count(0, 100, 10) == 13);
  CHECK(hist_linear_bucket_count(0, 25, 10) == 5);
  CHECK(hist_linear_bucket_count(0, 125, 1) == 128);
  CHECK(hist_linear_bucket_count(0, 126, 1) == 0);
  CHECK(hist_linear_bucket_count(0, 100, 0) == 0);
  CHECK(hist_linear_bucket_count(0, 100, -10) == 0);
  CHECK(hist_linear_bucket_count(100, 0, 10) == 0);
  CHECK(hist_linear_bucket_count(100, 95, 10) == 3);  // C division truncates
  CHECK(hist_linear_bucket_count(5, 5, 1) == 3);
  CHECK(hist_linear_bucket_count(INT64_MIN, INT64_MAX, int64_t{1} << 58) == 66);
}

TEST_CASE("hist_linear_bucket at the edges of hist_linear(0, 100, 10)") {
  auto b = [](int64_t v) { return hist_linear_bucket(v, 0, 100, 10); };
  CHECK(b(-1) == 0);  // lo - 1
  CHECK(b(INT64_MIN) == 0);
  CHECK(b(0) == 1);  // lo
  CHECK(b(9) == 1);
  CHECK(b(10) == 2);
  CHECK(b(99) == 10);  // hi - 1
  CHECK(b(100) == 11);  // hi: its own regular bucket
  CHECK(b(109) == 11);
  CHECK(b(110) == 12);  // overflow
  CHECK(b(INT64_MAX) == 12);
  CHECK(hist_linear_bucket(5, 0, 100, 0) == -1);
  // Offsets past INT64_MAX are divided as unsigned numbers.
  CHECK(hist_linear_bucket(INT64_MAX, INT64_MIN, INT64_MAX, int64_t{1} << 58) == 64);
  CHECK(hist_linear_bucket(INT64_MIN, INT64_MIN, INT64_MAX, int64_t{1} << 58) == 1);
  CHECK(hist_linear_bucket(-7, -10, 10, 5) == 1);
  CHECK(hist_linear_bucket(-5, -10, 10, 5) == 2);
}
