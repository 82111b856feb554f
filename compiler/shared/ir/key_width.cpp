// narrow_string_keys(): how many bytes each string key of an array takes in
// its packed key.
//
// A packed string key is MAXSTRINGLEN bytes (128 by default), and a BPF
// hash map hashes and compares every byte of its key on each update.  When
// every string a script ever uses as key k of an array has a bound known at
// compile time (literals, execname(), syscall_name(), a char[16] tracepoint
// field, locals only ever assigned such values, and keys that come out of
// the array itself in foreach) the key is packed in that bound instead:
// `c[execname()]++` hashes 16 bytes, not 128, and `syscall.* { c[name]++ }`
// costs what counting by number costs.  No key is ever cut: a use whose
// bound is unknown keeps the full width for that array.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "base/syscall_table.h"
#include "ir/ir.h"

namespace stap::ir {

namespace {

// What is known of a string value's length.
struct Bound {
  bool known = false;
  size_t len = 0;            // when known: at most this many bytes
  int64_t from_global = -1;  // or: a key of this array's column (foreach)
  size_t from_column = 0;
  static Bound unknown() { return {}; }
  static Bound at_most(size_t n) { return {true, n}; }
};

size_t longest_syscall_name() {
  size_t n = 0;
  for (int64_t nr = 0; nr < syscalls::table_size(); ++nr) n = std::max(n, syscalls::name(nr).size());
  return n;
}

class Analysis {
 public:
  explicit Analysis(const Module& m) : m_(m), need_(m.globals.size()) {
    for (size_t g = 0; g < m.globals.size(); ++g) need_[g].assign(m.globals[g].keys.size(), 0);
  }

  // A function's parameters hold whatever its callers pass: unknown.
  void body(const Node* root, size_t slot_count, size_t param_count = 0) {
    slots_.assign(slot_count, std::nullopt);
    assigned_.assign(slot_count, false);
    for (size_t i = 0; i < param_count && i < slot_count; ++i) assign(int64_t(i), Bound::unknown());
    // Two rounds: a local's bound comes from every assignment to it, which
    // may come after a use in tree order (loops).
    collect(root);
    uses(root);
  }

  // The width of each string key: its bound + NUL, rounded up to 8, or
  // the full MAXSTRINGLEN.
  void apply(Module& m) const {
    const size_t full = size_t(m.limits.maxstringlen);
    for (size_t g = 0; g < m.globals.size(); ++g) {
      Global& gl = m.globals[g];
      gl.key_widths.clear();
      for (size_t k = 0; k < gl.keys.size(); ++k) {
        if (gl.keys[k] != Type::string) {
          gl.key_widths.push_back(8);
          continue;
        }
        size_t want = unknown_.count({g, k}) ? full : (need_[g][k] + 1 + 7) & ~size_t(7);
        gl.key_widths.push_back(uint32_t(std::min(full, std::max<size_t>(want, 8))));
      }
    }
  }

 private:
  // Every assignment to a local: the bound of what it may hold.
  void collect(const Node* n) {
    if (!n) return;
    for (const Node* k : n->kids) collect(k);
    if (n->op == Op::set_local) assign(n->a, bound(n->kids.at(0)));
    if (n->op == Op::try_ && n->a >= 0) assign(n->a, Bound::unknown());
    if (n->op == Op::foreach && n->ints.size() > 5 && n->ints[4] == 0) {
      const Global& g = m_.globals.at(size_t(n->a));
      for (size_t i = 5; i < n->ints.size() && i - 5 < g.keys.size(); ++i) {
        Bound b;
        b.from_global = n->a;
        b.from_column = i - 5;
        assign(n->ints[i], b);
      }
    }
  }

  void assign(int64_t slot, Bound b) {
    if (slot < 0 || size_t(slot) >= slots_.size()) return;
    std::optional<Bound>& cur = slots_[size_t(slot)];
    if (!assigned_[size_t(slot)]) {
      assigned_[size_t(slot)] = true;
      cur = b;
      return;
    }
    if (cur && cur->known && b.known) {
      cur->len = std::max(cur->len, b.len);
    } else if (!(cur && b.from_global >= 0 && cur->from_global == b.from_global &&
                 cur->from_column == b.from_column)) {
      cur = Bound::unknown();
    }
  }

  Bound bound(const Node* n) const {
    switch (n->op) {
      case Op::str: return Bound::at_most(n->s.size());
      case Op::local: {
        size_t s = size_t(n->a);
        if (s >= slots_.size()) return Bound::unknown();
        if (!assigned_[s]) return Bound::at_most(0);  // never assigned: ""

        return slots_[s].value_or(Bound::unknown());
      }
      case Op::set_local: return bound(n->kids.at(0));
      case Op::concat: {
        Bound a = bound(n->kids.at(0)), b = bound(n->kids.at(1));
        return a.known && b.known ? Bound::at_most(a.len + b.len) : Bound::unknown();
      }
      case Op::cond: {
        Bound a = bound(n->kids.at(1)), b = bound(n->kids.at(2));
        return a.known && b.known ? Bound::at_most(std::max(a.len, b.len)) : Bound::unknown();
      }
      case Op::tp_chars: return n->b > 0 ? Bound::at_most(size_t(n->b) - 1) : Bound::unknown();
      case Op::builtin:
        if (n->s == "execname" || n->s == "pexecname") return Bound::at_most(15);
        if (n->s == "syscall_name") return Bound::at_most(longest_syscall_name());
        return Bound::unknown();
      default: return Bound::unknown();
    }
  }

  void uses(const Node* n) {
    if (!n) return;
    for (const Node* k : n->kids) uses(k);
    size_t keys = 0;
    switch (n->op) {
      case Op::elem: case Op::in_elem: case Op::delete_elem: case Op::stat_get:
      case Op::print_hist:
        keys = n->kids.size();
        break;
      case Op::set_elem: case Op::add_elem: case Op::stat_add: case Op::hist_bucket:
        keys = n->kids.empty() ? 0 : n->kids.size() - 1;
        break;
      case Op::foreach:
        // Slice keys: kids[2...].
        for (size_t i = 2; i < n->kids.size(); ++i) key_use(n->a, i - 2, n->kids[i]);
        return;
      default: return;
    }
    for (size_t i = 0; i < keys; ++i) key_use(n->a, i, n->kids[i]);
  }

  void key_use(int64_t global, size_t column, const Node* key) {
    if (global < 0 || size_t(global) >= m_.globals.size()) return;
    const Global& g = m_.globals[size_t(global)];
    if (column >= g.keys.size() || g.keys[column] != Type::string || key->op == Op::any) return;
    Bound b = bound(key);
    if (b.from_global == global && b.from_column == column) return;  // its own key
    if (!b.known) {
      unknown_.insert({size_t(global), column});
      return;
    }
    need_[size_t(global)][column] = std::max(need_[size_t(global)][column], b.len);
  }

 private:
  const Module& m_;
  std::vector<std::vector<size_t>> need_;
  std::set<std::pair<size_t, size_t>> unknown_;
  std::vector<std::optional<Bound>> slots_;
  std::vector<bool> assigned_;
};

}  // namespace

void narrow_string_keys(Module& m) {
  Analysis a(m);
  for (const Function& f : m.functions) a.body(f.body, f.slots.size(), f.param_count);
  for (const Probe& p : m.probes) a.body(p.body, p.slots.size());
  a.apply(m);
}

}  // namespace stap::ir
