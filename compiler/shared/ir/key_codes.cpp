#include "ir/key_codes.h"

#include <map>
#include <set>

#include "base/syscall_table.h"
#include "ir/ir.h"

namespace stap::ir {

namespace {
StackCodec* stack_codec = nullptr;
}  // namespace

void set_stack_codec(StackCodec* codec) { stack_codec = codec; }

std::string stack_identity(int64_t code) {
  return stack_codec ? stack_codec->identity(code) : std::to_string(code);
}

bool is_stack_key(const Node& n) {
  if (n.op != Op::builtin) return false;
  const std::string& f = n.s;
  if (f == "backtrace" || f == "ubacktrace" || f == "sprint_backtrace" ||
      f == "sprint_ubacktrace" || f == "probefunc")
    return n.kids.empty();
  if (f == "callers" || f == "ucallers") return n.kids.size() == 1;
  if (f == "symname" || f == "usymname")  // of the probe's own address only
    return n.kids.size() == 1 && n.kids[0]->op == Op::builtin && n.kids[0]->kids.empty() &&
           n.kids[0]->s == (f == "symname" ? "addr" : "uaddr");
  return false;
}

std::optional<int64_t> key_code(const Module& m, const std::string& s) {
  if (s.empty()) return -1;
  if (stack_codec)
    if (std::optional<int64_t> c = stack_codec->code(s)) return c;
  int64_t nr = syscalls::number(s);
  if (nr >= 0 && syscalls::name(nr) == s) return nr;  // exact: "newfstat" is not fstat's
  for (size_t i = 0; i < m.key_literals.size(); ++i)
    if (m.key_literals[i] == s) return kLiteralBase + int64_t(i);
  return std::nullopt;
}

std::string key_string(const Module& m, int64_t code) {
  if (is_stack_code(code)) return stack_codec ? stack_codec->text(code) : std::string();
  if (code >= kLiteralBase) {
    size_t i = size_t(code - kLiteralBase);
    return i < m.key_literals.size() ? m.key_literals[i] : std::string();
  }
  return code >= 0 ? std::string(syscalls::name(code)) : std::string();
}

namespace {

// The node kinds that take array keys, and how many of their kids are keys.
size_t key_count(const Node& n) {
  switch (n.op) {
    case Op::elem: case Op::in_elem: case Op::delete_elem: case Op::stat_get:
    case Op::print_hist:
      return n.kids.size();
    case Op::set_elem: case Op::add_elem: case Op::stat_add: case Op::hist_bucket:
      return n.kids.empty() ? 0 : n.kids.size() - 1;
    default: return 0;
  }
}

template <typename F>
void each_node(Node* n, F&& f) {
  if (!n) return;
  f(*n);
  for (Node* k : n->kids) each_node(k, f);
}

// ---------------------------------------------------------------- forwarding
// In a syscall probe, `name = "openat"; c[name]++` (the tapset alias's
// prologue, then the script) becomes `c[syscall_name(<the call's number>)]++`
// when "openat" is the name of the probe's call, and the assignment goes
// when nothing else reads `name`.  Then every syscall.* body is the same
// code, one body serves every call, and the key can be coded as the number.
class Forwarder {
 public:
  Forwarder(Module& m, Probe& p) : m_(m), p_(p) {}

  void run() {
    each_node(p_.body, [&](Node& n) {
      if (n.op == Op::set_local) ++writes_[n.a];
      if (n.op == Op::try_ && n.a >= 0) writes_[n.a] += 2;
      if (n.op == Op::foreach)
        for (size_t i = 5; i < n.ints.size(); ++i) writes_[n.ints[i]] += 2;
      if (n.op == Op::foreach && !n.ints.empty()) writes_[n.ints[0]] += 2;
    });
    straight_line(p_.body);
    // Assignments of a literal nothing reads any more: gone.
    std::map<int64_t, int> reads;
    each_node(p_.body, [&](Node& n) {
      if (n.op == Op::local) ++reads[n.a];
    });
    each_node(p_.body, [&](Node& n) {
      if (n.op != Op::expr || n.kids.size() != 1) return;
      const Node& set = *n.kids[0];
      if (set.op == Op::set_local && set.kids.size() == 1 && set.kids[0]->op == Op::str &&
          reads[set.a] == 0 && literal_.count(set.a)) {
        n.op = Op::nop;
        n.kids.clear();
      }
    });
  }

 private:
  // The statements of a block that run in order, nested blocks included.
  void straight_line(Node* n) {
    if (!n) return;
    if (n->op != Op::block) {
      rewrite_keys(n);
      const Node* set = n->op == Op::expr && n->kids.size() == 1 ? n->kids[0] : nullptr;
      if (set && set->op == Op::set_local && set->kids.size() == 1 &&
          set->kids[0]->op == Op::str && writes_[set->a] == 1)
        literal_[set->a] = set->kids[0]->s;
      return;
    }
    for (Node* k : n->kids) straight_line(k);
  }

  void rewrite_keys(Node* stmt) {
    each_node(stmt, [&](Node& n) {
      size_t keys = key_count(n);
      for (size_t i = 0; i < keys; ++i) {
        Node*& kid = n.kids[i];
        std::string value;
        if (kid->op == Op::local && literal_.count(kid->a)) value = literal_[kid->a];
        else if (kid->op == Op::str) value = kid->s;
        else continue;
        if (value.empty() || syscalls::name(p_.as<SyscallSpec>()->nr) != value) {
          if (kid->op == Op::local) {  // the literal itself, then
            Node* lit = m_.make(Op::str, Type::string);
            lit->s = value;
            lit->loc = kid->loc;
            kid = lit;
          }
          continue;
        }
        Node* nr = m_.make(Op::sys_nr, Type::long_);
        Node* name = m_.make(Op::builtin, Type::string);
        name->s = "syscall_name";
        name->kids = {nr};
        name->loc = kid->loc;
        kid = name;
      }
    });
  }

  Module& m_;
  Probe& p_;
  std::map<int64_t, int> writes_;
  std::map<int64_t, std::string> literal_;
};

// ---------------------------------------------------------------- coding
using Column = std::pair<size_t, size_t>;  // (global, key index)

class Coder {
 public:
  explicit Coder(Module& m) : m_(m), ok_(m.globals.size()), used_(m.globals.size()) {
    for (size_t g = 0; g < m.globals.size(); ++g) {
      ok_[g].assign(m.globals[g].keys.size(), true);
      used_[g].assign(m.globals[g].keys.size(), false);
    }
  }

  void body(Node* root) {
    // Locals that only ever hold keys out of arrays' columns (foreach):
    // as a key they are codable when all those columns end up coded
    // (codes mean the same in every array).
    std::map<int64_t, std::set<Column>> own;
    std::set<int64_t> other;
    each_node(root, [&](Node& n) {
      if (n.op == Op::foreach && n.ints.size() > 5 && n.ints[4] == 0)
        for (size_t i = 5; i < n.ints.size(); ++i) own[n.ints[i]].insert({size_t(n.a), i - 5});
      if (n.op == Op::set_local) other.insert(n.a);
      if (n.op == Op::try_ && n.a >= 0) other.insert(n.a);
    });
    each_node(root, [&](Node& n) {
      size_t keys = n.op == Op::foreach ? n.kids.size() : key_count(n);
      size_t first = n.op == Op::foreach ? 2 : 0;
      for (size_t i = first; i < keys; ++i) {
        size_t column = i - first;
        const Node& kid = *n.kids[i];
        if (n.a < 0 || size_t(n.a) >= m_.globals.size()) continue;
        const Global& g = m_.globals[size_t(n.a)];
        if (column >= g.keys.size() || g.keys[column] != Type::string || kid.op == Op::any) continue;
        used_[size_t(n.a)][column] = true;
        if (kid.op == Op::str) {
          literals_[{size_t(n.a), column}].insert(kid.s);
        } else if (kid.op == Op::builtin && kid.s == "syscall_name" && kid.kids.size() == 1) {
        } else if (is_stack_key(kid)) {
        } else if (kid.op == Op::local && own.count(kid.a) && !other.count(kid.a)) {
          for (const Column& from : own[kid.a]) needs_[{size_t(n.a), column}].insert(from);
        } else {
          ok_[size_t(n.a)][column] = false;
        }
      }
    });
  }

  void apply() {
    // A column keyed by a local out of a column left uncoded is uncoded too.
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& [col, froms] : needs_)
        for (const Column& from : froms)
          if (ok_[col.first][col.second] && !(ok_[from.first][from.second] && used_[from.first][from.second])) {
            ok_[col.first][col.second] = false;
            changed = true;
          }
    }
    m_.key_literals.clear();
    for (size_t g = 0; g < m_.globals.size(); ++g) {
      Global& gl = m_.globals[g];
      gl.coded_keys.assign(gl.keys.size(), false);
      bool any = false;
      for (size_t k = 0; k < gl.keys.size(); ++k) {
        if (gl.keys[k] != Type::string || !ok_[g][k] || !used_[g][k]) continue;
        gl.coded_keys[k] = true;
        any = true;
        if (gl.key_widths.size() == gl.keys.size()) gl.key_widths[k] = 8;
        for (const std::string& s : literals_[{g, k}])
          if (!key_code(m_, s)) m_.key_literals.push_back(s);
      }
      if (!any) gl.coded_keys.clear();
    }
  }

 private:
  Module& m_;
  std::vector<std::vector<bool>> ok_, used_;
  std::map<Column, std::set<Column>> needs_;  // column -> columns its local keys come from
  std::map<std::pair<size_t, size_t>, std::set<std::string>> literals_;
};

}  // namespace

void forward_syscall_names(Module& m) {
  for (Probe& p : m.probes)
    if (const SyscallSpec* sc = p.as<SyscallSpec>(); sc && sc->nr >= 0 && p.body)
      Forwarder(m, p).run();
}

void code_string_keys(Module& m) {
  Coder coder(m);
  for (Function& f : m.functions) coder.body(f.body);
  for (Probe& p : m.probes) coder.body(p.body);
  coder.apply();
}

}  // namespace stap::ir
