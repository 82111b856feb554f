// --metrics' exposition text (loader/output/metrics_text.h) from globals
// over real BPF maps; the live case metrics_prometheus has promtool and a
// Prometheus server read it.
#include <catch2/catch.hpp>

#include <string>

#include "loader/interp/global_store.h"
#include "loader/output/metrics_server.h"
#include "loader/output/metrics_text.h"

using namespace stap;
using ir::Global;
using ir::HistShape;
using ir::Type;

namespace {

// calls (long), name (string: left out), by[string,long] (no foreach
// names), lat (statistic), sizes (hist_log statistic), named[long, long]
// (foreach ([pid, le] in named): le is Prometheus', so key2).
ir::Module metrics_module() {
  ir::Module m;
  m.limits.maxstringlen = 32;
  m.globals = {
      Global{.name = "calls", .type = Type::long_},
      Global{.name = "name", .type = Type::string},
      Global{.name = "by", .type = Type::long_, .keys = {Type::string, Type::long_}},
      Global{.name = "lat", .type = Type::stats},
      Global{.name = "sizes", .type = Type::stats},
      Global{.name = "named", .type = Type::long_, .keys = {Type::long_, Type::long_},
             .key_names = {"pid", "le"}},
  };
  m.globals[4].hist.kind = HistShape::Kind::log;
  ir::assign_layout(m);
  return m;
}

}  // namespace

TEST_CASE("every numeric global is a family, keys as labels, histograms cumulative", "[metrics]") {
  ir::Module m = metrics_module();
  GlobalStore store = GlobalStore::create_maps(m);
  store.set_long(0, 42);
  store.set_string(1, "not a number");
  store.set(2, {Value::of(std::string("b\"q\\\n")), Value::of(int64_t{2})}, Value::of(int64_t{7}));
  store.set(2, {Value::of(std::string("a")), Value::of(int64_t{1})}, Value::of(int64_t{-3}));
  store.stat_add(3, {}, 10);
  store.stat_add(3, {}, 30);
  for (int64_t v : {5, 6, 300}) store.stat_add(4, {}, v);
  store.set(5, {Value::of(int64_t{12}), Value::of(int64_t{3})}, Value::of(int64_t{1}));
  CHECK(metrics_text(m, store, "script_line 1\n") ==
        "# TYPE stap_calls gauge\n"
        "# HELP stap_calls the script's global calls\n"
        "stap_calls 42\n"
        "# TYPE stap_by gauge\n"
        "# HELP stap_by the script's global by\n"
        "stap_by{key1=\"a\",key2=\"1\"} -3\n"
        "stap_by{key1=\"b\\\"q\\\\\\n\",key2=\"2\"} 7\n"
        "# TYPE stap_lat summary\n"
        "# HELP stap_lat the values of the script's statistic lat\n"
        "stap_lat_count 2\n"
        "stap_lat_sum 40\n"
        "# TYPE stap_lat_min gauge\n"
        "# HELP stap_lat_min the least value of lat\n"
        "stap_lat_min 10\n"
        "# TYPE stap_lat_max gauge\n"
        "# HELP stap_lat_max the greatest value of lat\n"
        "stap_lat_max 30\n"
        "# TYPE stap_sizes histogram\n"
        "# HELP stap_sizes the values of the script's statistic sizes\n"
        "stap_sizes_bucket{le=\"7\"} 2\n"
        "stap_sizes_bucket{le=\"15\"} 2\n"
        "stap_sizes_bucket{le=\"31\"} 2\n"
        "stap_sizes_bucket{le=\"63\"} 2\n"
        "stap_sizes_bucket{le=\"127\"} 2\n"
        "stap_sizes_bucket{le=\"255\"} 2\n"
        "stap_sizes_bucket{le=\"511\"} 3\n"
        "stap_sizes_bucket{le=\"+Inf\"} 3\n"
        "stap_sizes_count 3\n"
        "stap_sizes_sum 311\n"
        "# TYPE stap_sizes_min gauge\n"
        "# HELP stap_sizes_min the least value of sizes\n"
        "stap_sizes_min 5\n"
        "# TYPE stap_sizes_max gauge\n"
        "# HELP stap_sizes_max the greatest value of sizes\n"
        "stap_sizes_max 300\n"
        "# TYPE stap_named gauge\n"
        "# HELP stap_named the script's global named\n"
        "stap_named{pid=\"12\",key2=\"3\"} 1\n"
        "script_line 1\n"
        "# EOF\n");
}

TEST_CASE("a statistic never given a value has its families and no samples", "[metrics]") {
  ir::Module m = metrics_module();
  GlobalStore store = GlobalStore::create_maps(m);
  std::string text = metrics_text(m, store);
  CHECK(text.find("# TYPE stap_lat summary\n# HELP stap_lat the values of the script's statistic lat\n"
                  "# TYPE stap_lat_min gauge") != std::string::npos);
  CHECK(text.find("stap_lat_count") == std::string::npos);
  CHECK(text.substr(text.size() - 6) == "# EOF\n");
}

TEST_CASE("--metrics addresses: loopback unless told, [IPv6], ports in range", "[metrics]") {
  std::string host;
  int port = -1;
  REQUIRE(parse_listen_address("9100", host, port));
  CHECK((host == "127.0.0.1" && port == 9100));
  REQUIRE(parse_listen_address("0.0.0.0:80", host, port));
  CHECK((host == "0.0.0.0" && port == 80));
  REQUIRE(parse_listen_address("[::1]:0", host, port));
  CHECK((host == "::1" && port == 0));
  for (const char* bad : {"", ":9", "host:", "70000", "12a", "host:-1", "123456"})
    CHECK_FALSE(parse_listen_address(bad, host, port));
}
