// The script's globals as the runtime sees them: the same BPF maps the
// kernel-context probes use, read and written from user space.
//
//  - long/string scalars: the mmapped value of stap_globals (header first,
//    then each scalar at Global::offset); longs are updated atomically so
//    a user-context `x++` and a kernel `x++` never lose each other;
//  - arrays: their hash map, keys packed as Global::key_size bytes;
//  - statistics: per-CPU maps, merged over every possible CPU on read.
//
// Nothing here knows about BPF programs: tests create the maps with
// create_maps() and no object at all.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bpf_runtime/stap_layout.h"
#include "ir/ir.h"

struct bpf_object;

namespace stap {

// One key or value of a global, decoded.
struct Value {
  bool is_string = false;
  // A string read out of a stack-coded key column (ir/key_codes.h) keeps
  // its stack code here: used as a key again, it is that stack, even when
  // its text (cut at MAXSTRINGLEN) equals another stack's.
  int64_t num = 0;
  std::string str;
  static Value of(int64_t n) { return Value{false, n, {}}; }
  static Value of(std::string s) { return Value{true, 0, std::move(s)}; }
  // Strings compare by text, as in scripts.
  bool operator==(const Value& o) const {
    return is_string == o.is_string && (is_string ? str == o.str : num == o.num);
  }
};
using Key = std::vector<Value>;

// A statistic merged over CPUs.
struct StatValue {
  int64_t count = 0, sum = 0, min = 0, max = 0, sum_squares = 0;
  std::vector<int64_t> buckets;  // HistShape::buckets() entries
};

// @variance of merged values, as the BPF side computes it:
// (n * sum_squares - sum^2) / (n * (n - 1)) truncated, 0 below two values.
int64_t stat_variance(const StatValue& st);

class GlobalStore {
 public:
  // Over the maps of a loaded object (found by name; the globals map
  // mmapped).  Throws std::runtime_error naming what is missing.  Both
  // constructors give every scalar its initial value (Global::init_num /
  // init_str): make the store once, after loading, before any probe runs.
  GlobalStore(const ir::Module& module, bpf_object* object);
  // Creates the maps itself (for the runtime's own tests); they are closed
  // by the destructor.
  static GlobalStore create_maps(const ir::Module& module);
  ~GlobalStore();
  GlobalStore(GlobalStore&&) noexcept;
  GlobalStore(const GlobalStore&) = delete;

  stap_globals_header& header();

  // Scalars.
  int64_t get_long(size_t global) const;
  void set_long(size_t global, int64_t v);
  int64_t add_long(size_t global, int64_t delta);  // returns the new value
  std::string get_string(size_t global) const;
  void set_string(size_t global, const std::string& v);

  // Arrays (long or string values).  get returns nullopt when absent.
  std::optional<Value> get(size_t global, const Key& key) const;
  // False when the map is full (the caller raises stap's error).
  bool set(size_t global, const Key& key, const Value& v);
  bool remove(size_t global, const Key& key);
  void clear(size_t global);  // arrays, statistics and scalars
  // Every key of an array or statistic array, in map order.
  std::vector<Key> keys(size_t global) const;

  // Statistics (scalar: empty key).
  void stat_add(size_t global, const Key& key, int64_t value);
  std::optional<StatValue> stat_get(size_t global, const Key& key) const;

  // The map behind a global (-1 for a scalar in the globals map), and the
  // globals map itself: for code that reads a map directly (tests writing
  // per-CPU values, print_hist records keyed by packed bytes).
  int map_fd(size_t global) const;
  int globals_fd() const;
  int possible_cpus() const;

 private:
  GlobalStore() = default;
  void init_scalars();  // both constructors: scalars take their initial values
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace stap
