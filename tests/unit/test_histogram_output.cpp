// Histogram text and bucket numbering (loader/histogram_output.h): one
// case per rule, on small shapes.  test_histogram_stap_outputs.cpp checks
// the same code against SystemTap's own testsuite outputs.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "histogram_fixture.h"
#include "loader/output/histogram_output.h"

using namespace histogram_test;

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

