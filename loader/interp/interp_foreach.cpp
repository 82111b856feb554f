// foreach in user context: over an array or a statistic array (sorted or
// in map order, with `limit` and slices), or over the buckets of a
// histogram.  What stap 4.8 does, from its translator:
//  - the limit expression is evaluated once, before the loop; it counts
//    the elements visited, including those a slice then skips (stap checks
//    the limit before the slice);
//  - sorting by value (column 0) of a statistic array sorts by the
//    aggregate named (`@sum-`), @count when none is;
//  - stap sorts stably over its map's insertion order; a BPF hash map has
//    no such order, so ties here are broken by the keys, ascending, which
//    makes the order reproducible; unsorted loops go in map order;
//  - `foreach (i in @hist_log(s))` visits EVERY bucket index, 0 .. the
//    bucket count - 1, empty or not; a value variable gets the bucket's
//    count.  An empty statistic visits its buckets with counts of 0.
//  - actions (MAXACTION) as stap counts them: one to start, one per step
//    of an array loop (its end included), one per histogram bucket.
#include <algorithm>
#include <cstring>

#include "loader/interp/interpreter_impl.h"

namespace stap {

using interp::Flow;
using ir::Node;
using ir::Op;
using ir::Type;

namespace {

struct Entry {
  Key key;
  Value value;      // arrays; for statistics the aggregate sorted on
  StatValue stat;   // statistics
};

int compare_values(const Value& a, const Value& b) {
  if (a.is_string || b.is_string) return std::strcmp(a.str.c_str(), b.str.c_str());
  return a.num < b.num ? -1 : a.num > b.num ? 1 : 0;
}

int compare_keys(const Key& a, const Key& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (int c = compare_values(a[i], b[i])) return c;
  return 0;
}

int64_t stat_column(const StatValue& st, ir::StatOp op) {
  switch (op) {
    case ir::StatOp::count: return st.count;
    case ir::StatOp::sum: return st.sum;
    case ir::StatOp::min: return st.min;
    case ir::StatOp::max: return st.max;
    case ir::StatOp::avg: return st.count ? st.sum / st.count : 0;
    case ir::StatOp::variance: return stat_variance(st);
  }
  return st.count;
}

void sort_entries(std::vector<Entry>& entries, int64_t column, int64_t direction) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return compare_keys(a.key, b.key) < 0; });
  auto column_of = [column](const Entry& e) -> const Value& {
    return column == 0 ? e.value : e.key[static_cast<size_t>(column - 1)];
  };
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    int c = compare_values(column_of(a), column_of(b));
    return direction > 0 ? c < 0 : c > 0;
  });
}

}  // namespace

Flow Interpreter::Impl::exec_foreach(const Node& n) {
  if (n.ints.at(4) != 0) return foreach_hist(n);
  const auto g = static_cast<size_t>(n.a);
  const ir::Global& global = m.globals.at(g);
  const bool stats = global.type == Type::stats;
  const int64_t value_slot = n.ints[0], column = n.ints[1], direction = n.ints[2];
  const auto aggregate = static_cast<ir::StatOp>(n.ints[3]);
  charge(n);

  const bool limited = n.kids[1]->op != Op::nop;
  const int64_t limit = limited ? eval_long(*n.kids[1]) : 0;
  std::vector<std::optional<Value>> slice;
  if (n.kids.size() > 2) slice = eval_pattern(n, 2);

  // A snapshot: pass 2 rejects changing the array inside its own loop.
  std::vector<Entry> entries;
  const bool need_values = value_slot >= 0 || (direction != 0 && column == 0);
  for (Key& key : store.keys(g)) {
    Entry e{std::move(key), {}, {}};
    if (stats && need_values) {
      std::optional<StatValue> st = store.stat_get(g, e.key);
      if (!st) continue;  // removed meanwhile
      e.stat = std::move(*st);
      e.value = Value::of(stat_column(e.stat, aggregate));
    } else if (need_values) {
      std::optional<Value> v = store.get(g, e.key);
      if (!v) continue;
      e.value = std::move(*v);
    }
    entries.push_back(std::move(e));
  }
  if (direction != 0) sort_entries(entries, column, direction);

  int64_t visited = 0;
  for (size_t i = 0;; ++i) {
    charge(n);  // each step of the iterator, the last (at the end) included
    if (i == entries.size()) break;
    const Entry& e = entries[i];
    if (limited && visited++ >= limit) break;
    if (!slice.empty() && !interp::key_matches(e.key, slice)) continue;
    for (size_t k = 0; k + 5 < n.ints.size() && k < e.key.size(); ++k)
      frame->slots.at(static_cast<size_t>(n.ints[5 + k])) = e.key[k];
    if (value_slot >= 0) frame->slots.at(static_cast<size_t>(value_slot)) = e.value;
    Flow flow = Flow::normal;
    if (foreach_body(n, flow)) return flow;
  }
  return Flow::normal;
}

Flow Interpreter::Impl::foreach_hist(const Node& n) {
  const ir::Global& global = m.globals.at(static_cast<size_t>(n.a));
  const int64_t value_slot = n.ints[0];
  charge(n);
  const bool limited = n.kids[1]->op != Op::nop;
  const int64_t limit = limited ? eval_long(*n.kids[1]) : 0;

  Key key;
  for (size_t i = 2; i < n.kids.size(); ++i) {
    Value v = eval(*n.kids[i]);
    if (v.is_string) v.str = cut(std::move(v.str));
    key.push_back(std::move(v));
  }
  std::optional<StatValue> st = store.stat_get(static_cast<size_t>(n.a), key);
  std::vector<int64_t> buckets =
      st ? st->buckets : std::vector<int64_t>(static_cast<size_t>(global.hist.buckets()), 0);

  int64_t visited = 0;
  for (size_t b = 0; b < buckets.size(); ++b) {
    if (limited && visited++ >= limit) break;
    charge(n);
    frame->slots.at(static_cast<size_t>(n.ints.at(5))) = Value::of(static_cast<int64_t>(b));
    if (value_slot >= 0) frame->slots.at(static_cast<size_t>(value_slot)) = Value::of(buckets[b]);
    Flow flow = Flow::normal;
    if (foreach_body(n, flow)) return flow;
  }
  return Flow::normal;
}

// Runs the body once; true when the loop ends here (break, or a return
// that `flow` carries out).
bool Interpreter::Impl::foreach_body(const Node& n, Flow& flow) {
  Flow f = exec(*n.kids[0]);
  if (n.loc) last_loc = n.loc;
  if (f == Flow::brk) {
    flow = Flow::normal;
    return true;
  }
  if (f == Flow::ret) {
    flow = Flow::ret;
    return true;
  }
  return false;
}

}  // namespace stap
