#include "loader/output/global_json.h"

#include <algorithm>

#include "loader/output/event_drain.h"
#include "loader/output/output_sink.h"

namespace stap {

namespace {

bool key_less(const Key& a, const Key& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].is_string != b[i].is_string) return !a[i].is_string;
    if (a[i].is_string ? a[i].str != b[i].str : a[i].num != b[i].num)
      return a[i].is_string ? a[i].str < b[i].str : a[i].num < b[i].num;
  }
  return a.size() < b.size();
}

Json value_json(const Value& v) {
  if (v.is_string) return v.str;
  return v.num;
}

}  // namespace

Json stat_json(const ir::HistShape& shape, const StatValue& value) {
  Json out = {{"count", value.count},
                        {"sum", value.sum},
                        {"min", value.min},
                        {"max", value.max},
                        {"avg", value.count ? value.sum / value.count : 0},
                        {"variance", stat_variance(value)}};
  if (shape.kind != ir::HistShape::Kind::none && !value.buckets.empty())
    out["buckets"] = buckets_json(histogram_of(shape, value));
  return out;
}

Json global_json(const ir::Module& m, const GlobalStore& store, size_t g) {
  const ir::Global& gl = m.globals.at(g);
  bool stats = gl.type == ir::Type::stats;
  Json out = {{"type", stats ? "stats" : "map"}, {"name", gl.name}};
  if (!gl.is_array()) {
    if (!stats) {
      out["value"] = gl.type == ir::Type::string ? Json(store.get_string(g))
                                                : Json(store.get_long(g));
    } else if (std::optional<StatValue> st = store.stat_get(g, {}); st && st->count > 0) {
      out["value"] = stat_json(gl.hist, *st);
    } else {
      out["value"] = nullptr;  // never given a value: stap prints nothing for it
    }
    return out;
  }
  Json types = Json::array();
  for (ir::Type t : gl.keys) types.push_back(t == ir::Type::string ? "string" : "long");
  out["keys"] = types;
  std::vector<Key> keys = store.keys(g);
  std::sort(keys.begin(), keys.end(), key_less);
  Json entries = Json::array();
  for (const Key& k : keys) {
    Json value;
    if (stats) {
      std::optional<StatValue> st = store.stat_get(g, k);
      if (!st || st->count == 0) continue;
      value = stat_json(gl.hist, *st);
    } else {
      std::optional<Value> v = store.get(g, k);
      if (!v) continue;  // deleted while we read
      value = value_json(*v);
    }
    entries.push_back({{"key", key_json(k)}, {"value", std::move(value)}});
  }
  out["entries"] = std::move(entries);
  return out;
}

}  // namespace stap
