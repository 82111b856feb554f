// The JSON lines of --format=json (loader/output/output_sink.h) over a
// temporary file, read back with the JSON parser; the live case
// json_output runs them against the kernel.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "loader/output/output_sink.h"

using namespace stap;

namespace {

struct Captured {
  std::FILE* file = std::tmpfile();
  ~Captured() { std::fclose(file); }
  std::string text() {
    std::fflush(file);
    std::rewind(file);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file)) > 0) out.append(buf, n);
    return out;
  }
  std::vector<Json> lines() {
    std::vector<Json> out;
    std::string all = text();
    for (size_t at = 0; at < all.size();) {
      size_t end = all.find('\n', at);
      REQUIRE(end != std::string::npos);  // every record ends its line
      out.push_back(Json::parse(all.substr(at, end - at)));
      at = end + 1;
    }
    return out;
  }
};

Histogram log_hist(std::vector<std::pair<int, int64_t>> counts) {
  Histogram h;
  h.buckets.assign(kHistLogBuckets, 0);
  for (auto [b, n] : counts) h.buckets[size_t(b)] = n;
  return h;
}

}  // namespace

TEST_CASE("text output is the bytes as given", "[output]") {
  Captured c;
  OutputSink sink(c.file, OutputFormat::text);
  sink.print("a\n");
  sink.histogram("h", {}, log_hist({{kHistLogBucketZero, 1}}), "stap's text\n");
  CHECK(c.text() == "a\nstap's text\n");
}

TEST_CASE("printf records keep the text, bytes that are not UTF-8 replaced", "[output]") {
  Captured c;
  OutputSink sink(c.file, OutputFormat::json);
  sink.print("hit 1\n");
  sink.print("");  // nothing printed, no record
  sink.print("\xff\"quoted\"");
  std::vector<Json> lines = c.lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == Json{{"type", "printf"}, {"data", "hit 1\n"}});
  CHECK(lines[1]["data"] == "\xEF\xBF\xBD\"quoted\"");
  CHECK(c.text().rfind("{\"type\":", 0) == 0);  // the type first
}

TEST_CASE("log buckets carry their bounds", "[output]") {
  // 0; 1; 2..3; 4..7; -1; -2..-3; INT64_MIN and the top bucket.
  Histogram h = log_hist({{64, 1}, {65, 2}, {66, 3}, {67, 4}, {63, 5}, {62, 6}, {0, 7}, {127, 8}});
  Json b = buckets_json(h);
  REQUIRE(b.size() == 8);
  CHECK(b[0] == Json{{"min", INT64_MIN}, {"max", INT64_MIN}, {"count", 7}});
  CHECK(b[1] == Json{{"min", -3}, {"max", -2}, {"count", 6}});
  CHECK(b[2] == Json{{"min", -1}, {"max", -1}, {"count", 5}});
  CHECK(b[3] == Json{{"min", 0}, {"max", 0}, {"count", 1}});
  CHECK(b[4] == Json{{"min", 1}, {"max", 1}, {"count", 2}});
  CHECK(b[5] == Json{{"min", 2}, {"max", 3}, {"count", 3}});
  CHECK(b[6] == Json{{"min", 4}, {"max", 7}, {"count", 4}});
  CHECK(b[7]["min"] == int64_t(1) << 62);
  CHECK(b[7]["max"] == INT64_MAX);
}

TEST_CASE("linear buckets: the underflow has no min, the overflow no max", "[output]") {
  Histogram h;
  h.kind = Histogram::Kind::linear;
  h.low = 0, h.high = 100, h.step = 10;
  h.buckets.assign(size_t(hist_linear_bucket_count(0, 100, 10)), 0);
  h.buckets[size_t(hist_linear_bucket(-3, 0, 100, 10))] = 1;
  h.buckets[size_t(hist_linear_bucket(25, 0, 100, 10))] = 2;
  h.buckets[size_t(hist_linear_bucket(500, 0, 100, 10))] = 3;
  Json b = buckets_json(h);
  REQUIRE(b.size() == 3);
  CHECK(b[0] == Json{{"max", -1}, {"count", 1}});
  CHECK(b[1] == Json{{"min", 20}, {"max", 29}, {"count", 2}});
  CHECK(b[2]["count"] == 3);
  CHECK_FALSE(b[2].contains("max"));
  // The last regular bucket is [100, 110) (histogram_output.h).
  CHECK(b[2]["min"] == 110);
}

TEST_CASE("errors and warnings become records in JSON", "[output]") {
  Captured c;
  OutputSink sink(c.file, OutputFormat::json);
  sink.error("division by 0");
  sink.warning("careful");
  sink.histogram("lat", {Value::of(std::string("cat")), Value::of(int64_t{3})},
                 log_hist({{66, 1}}), "ignored in JSON");
  std::vector<Json> lines = c.lines();
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == Json{{"type", "error"}, {"msg", "division by 0"}});
  CHECK(lines[1] == Json{{"type", "warning"}, {"msg", "careful"}});
  CHECK(lines[2]["name"] == "lat");
  CHECK(lines[2]["key"] == Json::array({"cat", 3}));
  CHECK(lines[2]["kind"] == "log");
}
