// Histogram text checked against SystemTap's own expected output from its
// testsuite (testsuite/systemtap.maps/*.exp: elision.exp is compared exactly
// there, blank line included; for the others the blank line stap always
// prints after a histogram is added), each fed the same values as the .stp
// script that produced it.  test_histogram_output.cpp pins each rule down
// on small shapes.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "histogram_fixture.h"
#include "loader/output/histogram_output.h"

using namespace histogram_test;

namespace {

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

