// The globals over real BPF maps (loader/global_store.h); needs root, as
// the whole suite does.
#include <catch2/catch.hpp>

#include <bpf/bpf.h>

#include <cstring>
#include <thread>
#include <vector>

#include "loader/interp/global_store.h"
#include "loader/output/histogram_output.h"

using namespace stap;
using ir::Global;
using ir::HistShape;
using ir::Type;

namespace {

// 0 long scalar (init 5), 1 string scalar (init "hi"), 2 long[long] of 2
// entries, 3 string[string,long], 4 wrapping long[long] of 2, 5 scalar
// statistic with hist_log, 6 statistic array [string] with hist_linear.
ir::Module store_module() {
  ir::Module m;
  m.limits.maxstringlen = 16;
  m.globals = {
      Global{.name = "n", .type = Type::long_, .init_num = 5},
      Global{.name = "s", .type = Type::string, .init_str = "hi"},
      Global{.name = "a", .type = Type::long_, .keys = {Type::long_}, .max_entries = 2},
      Global{.name = "b", .type = Type::string, .keys = {Type::string, Type::long_}},
      Global{.name = "w", .type = Type::long_, .keys = {Type::long_}, .max_entries = 2, .wrap = true},
      Global{.name = "st", .type = Type::stats},
      Global{.name = "sa", .type = Type::stats, .keys = {Type::string}},
  };
  m.globals[5].hist.kind = HistShape::Kind::log;
  m.globals[6].hist = HistShape{HistShape::Kind::linear, 0, 10, 5};  // 5 buckets
  ir::assign_layout(m);
  return m;
}

Key k(int64_t v) { return Key{Value::of(v)}; }

}  // namespace

TEST_CASE("scalars start from their initializers and live in the mmapped map", "[store]") {
  ir::Module m = store_module();
  GlobalStore store = GlobalStore::create_maps(m);
  CHECK(store.get_long(0) == 5);
  CHECK(store.get_string(1) == "hi");
  CHECK(store.add_long(0, 10) == 15);
  CHECK(store.add_long(0, INT64_MAX) == static_cast<int64_t>(15ull + INT64_MAX));  // wraps
  store.set_long(0, -3);
  CHECK(store.get_long(0) == -3);

  store.set_string(1, "abcdefghijklmnopqrstuvwxyz");
  CHECK(store.get_string(1) == "abcdefghijklmno");  // MAXSTRINGLEN 16: 15 bytes kept

  // The same bytes through the map's own syscall interface.
  store.header().state = STAP_STATE_RUNNING;
  std::vector<char> value(4096);
  uint32_t zero = 0;
  REQUIRE(bpf_map_lookup_elem(store.globals_fd(), &zero, value.data()) == 0);
  stap_globals_header h;
  std::memcpy(&h, value.data(), sizeof h);
  CHECK(h.state == STAP_STATE_RUNNING);
  int64_t n;
  std::memcpy(&n, value.data() + m.globals[0].offset, 8);
  CHECK(n == -3);

  store.clear(0);
  store.clear(1);
  CHECK(store.get_long(0) == 0);
  CHECK(store.get_string(1).empty());
}

TEST_CASE("concurrent adds to a long scalar are not lost", "[store]") {
  ir::Module m = store_module();
  GlobalStore store = GlobalStore::create_maps(m);
  store.set_long(0, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 100000; ++i) store.add_long(0, 1);
    });
  for (auto& t : threads) t.join();
  CHECK(store.get_long(0) == 400000);
}

TEST_CASE("arrays: set, get, remove, keys, full, wrap", "[store]") {
  ir::Module m = store_module();
  GlobalStore store = GlobalStore::create_maps(m);
  CHECK_FALSE(store.get(2, k(1)).has_value());
  CHECK(store.set(2, k(1), Value::of(int64_t{10})));
  CHECK(store.set(2, k(-2), Value::of(int64_t{20})));
  CHECK(store.get(2, k(1)) == Value::of(int64_t{10}));
  CHECK(store.set(2, k(1), Value::of(int64_t{11})));  // replacing is not growing
  CHECK_FALSE(store.set(2, k(3), Value::of(int64_t{30})));  // a[2] is full
  auto keys = store.keys(2);
  REQUIRE(keys.size() == 2);
  CHECK(std::find(keys.begin(), keys.end(), k(-2)) != keys.end());
  CHECK(store.remove(2, k(1)));
  CHECK_FALSE(store.remove(2, k(1)));
  CHECK(store.keys(2).size() == 1);

  Key key{Value::of(std::string("a very long key string")), Value::of(int64_t{7})};
  CHECK(store.set(3, key, Value::of(std::string("a very long value string"))));
  CHECK(store.get(3, key) == Value::of(std::string("a very long val")));
  keys = store.keys(3);
  REQUIRE(keys.size() == 1);
  CHECK(keys[0][0] == Value::of(std::string("a very long key")));  // keys are cut too
  CHECK(keys[0][1] == Value::of(int64_t{7}));
  CHECK(store.get(3, keys[0]).has_value());

  for (int64_t i = 0; i < 10; ++i) CHECK(store.set(4, k(i), Value::of(i)));  // LRU: never full
  CHECK(store.keys(4).size() <= 2);

  store.clear(3);
  CHECK(store.keys(3).empty());
}

TEST_CASE("statistics: user adds, and values merged over CPUs", "[store]") {
  ir::Module m = store_module();
  GlobalStore store = GlobalStore::create_maps(m);
  auto empty = store.stat_get(5, {});
  REQUIRE(empty.has_value());  // a scalar statistic always has its one entry
  CHECK(empty->count == 0);
  CHECK_FALSE(store.stat_get(6, {Value::of(std::string("x"))}).has_value());

  for (int64_t v : {1, 2, 3, 0, -4}) store.stat_add(5, {}, v);
  auto st = store.stat_get(5, {});
  REQUIRE(st);
  CHECK(st->count == 5);
  CHECK(st->sum == 2);
  CHECK(st->min == -4);
  CHECK(st->max == 3);
  CHECK(st->sum_squares == 30);
  REQUIRE(st->buckets.size() == 128);
  CHECK(st->buckets[hist_log_bucket(1)] == 1);
  CHECK(st->buckets[hist_log_bucket(2)] == 2);  // 2 and 3
  CHECK(st->buckets[hist_log_bucket(-4)] == 1);
  CHECK(st->buckets[64] == 1);

  // Simulate CPU 1 (and the last CPU) having counted too.
  const int cpus = store.possible_cpus();
  if (cpus < 2) {
    WARN("one possible CPU: per-CPU merging not checked");
    return;
  }
  Key key{Value::of(std::string("k"))};
  store.stat_add(6, key, 7);  // CPU 0: one value, linear bucket 2 (5..9)
  const size_t stride = (m.globals[6].value_size + 7) & ~size_t{7};
  std::vector<char> values(stride * static_cast<size_t>(cpus), 0);
  char packed[16] = "k";
  REQUIRE(bpf_map_lookup_elem(store.map_fd(6), packed, values.data()) == 0);
  auto* cpu1 = reinterpret_cast<stap_stat*>(values.data() + stride);
  cpu1->count = 2, cpu1->sum = -100, cpu1->min = -120, cpu1->max = 20, cpu1->sum_squares = 14800;
  cpu1->buckets[0] = 1;  // underflow
  cpu1->buckets[4] = 1;  // overflow
  auto* last = reinterpret_cast<stap_stat*>(values.data() + stride * static_cast<size_t>(cpus - 1));
  if (cpus > 2) {
    last->count = 1, last->sum = 3, last->min = 3, last->max = 3, last->sum_squares = 9;
    last->buckets[1] = 1;
  }
  REQUIRE(bpf_map_update_elem(store.map_fd(6), packed, values.data(), BPF_ANY) == 0);

  st = store.stat_get(6, key);
  REQUIRE(st);
  const bool three = cpus > 2;
  CHECK(st->count == (three ? 4 : 3));
  CHECK(st->sum == (three ? -90 : -93));
  CHECK(st->min == -120);
  CHECK(st->max == 20);
  CHECK(st->sum_squares == (three ? 14858 : 14849));
  CHECK(st->buckets == (three ? std::vector<int64_t>{1, 1, 1, 0, 1} : std::vector<int64_t>{1, 0, 1, 0, 1}));

  // An empty CPU's zero min/max does not count.
  store.clear(6);
  CHECK(store.keys(6).empty());
  std::fill(values.begin(), values.end(), 0);
  cpu1->count = 1, cpu1->sum = 50, cpu1->min = 50, cpu1->max = 50;
  REQUIRE(bpf_map_update_elem(store.map_fd(6), packed, values.data(), BPF_ANY) == 0);
  st = store.stat_get(6, key);
  CHECK(st->min == 50);
  CHECK(st->max == 50);

  store.clear(5);
  CHECK(store.stat_get(5, {})->count == 0);
}
