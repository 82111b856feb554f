#include "loader/output/metrics_text.h"

#include <algorithm>

#include "ir/key_codes.h"
#include "loader/output/event_drain.h"
#include "loader/output/output_sink.h"
#include "loader/symbols/stack_symbols.h"

namespace stap {

namespace {

std::string label_text(const Value& v) {
  if (v.is_string && ir::is_stack_code(v.num)) {
    std::string out;
    for (const std::string& f : stack_symbols().folded(v.num)) out += (out.empty() ? "" : ";") + f;
    return out;
  }
  return v.is_string ? v.str : std::to_string(v.num);
}

// A key column's label: the script's foreach name for it, unless that is
// a name Prometheus keeps for itself (le, __*); then key<N>.
std::string label_name(const ir::Global& g, size_t k) {
  std::string name = g.key_label(k);
  if (name == "le" || name.rfind("__", 0) == 0) return "key" + std::to_string(k + 1);
  return name;
}

// {pid="12",name="a"} (and more labels after, e.g. le), or "" for none.
std::string labels(const ir::Global& g, const Key& key, const std::string& more = {}) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i)
    out += (out.empty() ? "" : ",") + label_name(g, i) + "=\"" + escape_label(label_text(key[i])) + "\"";
  if (!more.empty()) out += (out.empty() ? "" : ",") + more;
  return out.empty() ? "" : "{" + out + "}";
}

void family(std::string& out, const std::string& name, const char* type, const std::string& help) {
  out += "# TYPE " + name + " " + type + "\n";
  out += "# HELP " + name + " " + help + "\n";
}

void sample(std::string& out, const std::string& name, const std::string& labels, int64_t value) {
  out += name + labels + " " + std::to_string(value) + "\n";
}

// The inclusive upper bound of each bucket, ascending: what le says.
// The last (overflow, or the top log bucket) is +Inf.
std::vector<std::string> upper_bounds(const Histogram& h) {
  std::vector<std::string> out;
  Histogram every = h;
  std::fill(every.buckets.begin(), every.buckets.end(), 1);
  for (const Json& b : buckets_json(every))
    out.push_back(b.contains("max") ? std::to_string(b["max"].get<int64_t>()) : "+Inf");
  if (!out.empty()) out.back() = "+Inf";
  return out;
}

void stat_samples(std::string& out, const std::string& name, const ir::Global& g, const Key& key,
                  const StatValue& st, std::string& mins, std::string& maxes) {
  if (g.hist.kind != ir::HistShape::Kind::none) {
    Histogram h = histogram_of(g.hist, st);
    std::vector<std::string> le = upper_bounds(h);
    // The bounds from the first bucket with values to the last, then
    // +Inf: empty buckets at either end add nothing to the cumulative
    // counts (a log histogram has 128).
    size_t first = h.buckets.size(), last = 0;
    for (size_t i = 0; i < h.buckets.size(); ++i)
      if (h.buckets[i]) first = std::min(first, i), last = i;
    int64_t running = 0;
    for (size_t i = first; i <= last && i + 1 < le.size(); ++i) {
      running += h.buckets[i];
      sample(out, name + "_bucket", labels(g, key, "le=\"" + le[i] + "\""), running);
    }
    sample(out, name + "_bucket", labels(g, key, "le=\"+Inf\""), st.count);
  }
  sample(out, name + "_count", labels(g, key), st.count);
  sample(out, name + "_sum", labels(g, key), st.sum);
  sample(mins, name + "_min", labels(g, key), st.min);
  sample(maxes, name + "_max", labels(g, key), st.max);
}

bool key_less(const Key& a, const Key& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    std::string x = label_text(a[i]), y = label_text(b[i]);
    if (a[i].is_string ? x != y : a[i].num != b[i].num) return a[i].is_string ? x < y : a[i].num < b[i].num;
  }
  return a.size() < b.size();
}

void global_families(std::string& out, const ir::Module& m, const GlobalStore& store, size_t g) {
  const ir::Global& gl = m.globals[g];
  std::string name = "stap_" + gl.name;
  if (gl.type == ir::Type::string) return;
  std::vector<Key> keys = gl.is_array() ? store.keys(g) : std::vector<Key>{Key{}};
  std::sort(keys.begin(), keys.end(), key_less);
  if (gl.type == ir::Type::long_) {
    family(out, name, "gauge", "the script's global " + gl.name);
    for (const Key& k : keys) {
      if (!gl.is_array()) { sample(out, name, "", store.get_long(g)); continue; }
      if (std::optional<Value> v = store.get(g, k); v && !v->is_string) sample(out, name, labels(gl, k), v->num);
    }
    return;
  }
  bool hist = gl.hist.kind != ir::HistShape::Kind::none;
  family(out, name, hist ? "histogram" : "summary", "the values of the script's statistic " + gl.name);
  std::string mins, maxes;
  for (const Key& k : keys)
    if (std::optional<StatValue> st = store.stat_get(g, k); st && st->count > 0)
      stat_samples(out, name, gl, k, *st, mins, maxes);
  family(out, name + "_min", "gauge", "the least value of " + gl.name);
  out += mins;
  family(out, name + "_max", "gauge", "the greatest value of " + gl.name);
  out += maxes;
}

}  // namespace

std::string escape_label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string metrics_text(const ir::Module& m, const GlobalStore& store, const std::string& extra) {
  std::string out;
  for (size_t g = 0; g < m.globals.size(); ++g) global_families(out, m, store, g);
  out += extra;
  if (!extra.empty() && extra.back() != '\n') out += '\n';
  out += "# EOF\n";
  return out;
}

}  // namespace stap
