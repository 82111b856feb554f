// Module <-> bytes.  Writer and reader walk the fields in the same order;
// the reader then checks every index and operand count (check_module) so
// that the interpreter and the loader can trust a module that came out of
// an object file exactly as much as one lowering built.
//
// Encoding: "STAPIR09", then unsigned LEB128 varints; signed values are
// zigzag-encoded; strings are a length and the bytes; a node is op, type,
// a, b, c, s, kid count, kids (pre-order), int count, ints, loc; a body is
// a presence byte and a node.
#include "ir/serialize.h"

#include <cctype>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <variant>

namespace stap::ir {

namespace {

// 02: probe specs per kind (ir/probe_spec.h), written as the variant
// index and the kind's fields.
constexpr char kMagic[] = "STAPIR09";
constexpr size_t kMagicLen = 8;
// Deeper trees than this are refused rather than risking the reader's (and
// later the interpreter's) stack: a left-nested chain of 4000 operators is
// far beyond any script.
constexpr int kMaxDepth = 4000;

// ---------------------------------------------------------------- writer

class Writer {
 public:
  std::string out;

  void u(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      if (v) byte |= 0x80;
      out.push_back(static_cast<char>(byte));
    } while (v);
  }
  void i(int64_t v) { u((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void str(const std::string& s) {
    u(s.size());
    out += s;
  }
  void types(const std::vector<Type>& ts) {
    u(ts.size());
    for (Type t : ts) u(static_cast<uint8_t>(t));
  }
  void node(const Node& n) {
    u(static_cast<uint8_t>(n.op));
    u(static_cast<uint8_t>(n.type));
    i(n.a);
    i(n.b);
    i(n.c);
    str(n.s);
    u(n.kids.size());
    for (const Node* k : n.kids) node(*k);
    u(n.ints.size());
    for (int64_t v : n.ints) i(v);
    u(n.loc);
  }
  void body(const Node* n) {
    u(n ? 1 : 0);
    if (n) node(*n);
  }
  // One field of a probe spec (ProbeSpec's fields()).
  void field(int64_t v) { i(v); }
  void field(bool v) { u(v); }
  void field(const std::string& v) { str(v); }
  void field(SessionSpec::Event v) { u(static_cast<uint8_t>(v)); }
  void field(const std::vector<std::string>& v) {
    u(v.size());
    for (const std::string& x : v) str(x);
  }
  void field(const std::vector<uint64_t>& v) {
    u(v.size());
    for (uint64_t x : v) i(static_cast<int64_t>(x));
  }
  void spec(const ProbeSpec& spec) {
    u(spec.index());
    std::visit([this](const auto& s) { s.fields(s, [this](const auto& f) { field(f); }); }, spec);
  }
};

// ---------------------------------------------------------------- reader

struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  Reader(std::string_view bytes, Module& m) : in_(bytes), m_(m) {}

  uint64_t u() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) throw Malformed("truncated");
      uint8_t byte = static_cast<uint8_t>(in_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    throw Malformed("varint too long");
  }
  int64_t i() {
    uint64_t z = u();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  bool flag() {
    uint64_t v = u();
    if (v > 1) throw Malformed("bad flag");
    return v == 1;
  }
  // A count of things each taking at least one byte: never more than what
  // is left, so hostile counts cannot make us allocate.
  size_t count() {
    uint64_t n = u();
    if (n > in_.size() - pos_) throw Malformed("count exceeds input");
    return static_cast<size_t>(n);
  }
  std::string str() {
    size_t n = count();
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  template <typename E>
  E enum_value(E last, const char* what) {
    uint64_t v = u();
    if (v > static_cast<uint64_t>(last)) throw Malformed(std::string("bad ") + what);
    return static_cast<E>(v);
  }
  Type type() { return enum_value(Type::stats, "type"); }
  std::vector<Type> types() {
    std::vector<Type> ts(count());
    for (Type& t : ts) t = type();
    return ts;
  }
  uint32_t u32() {
    uint64_t v = u();
    if (v > UINT32_MAX) throw Malformed("value out of range");
    return static_cast<uint32_t>(v);
  }

  Node* node(int depth) {
    if (depth > kMaxDepth) throw Malformed("nodes nested too deeply");
    Node* n = m_.make(enum_value(kLastOp, "opcode"));
    n->type = type();
    n->a = i();
    n->b = i();
    n->c = i();
    n->s = str();
    n->kids.resize(count());
    for (Node*& k : n->kids) k = node(depth + 1);
    n->ints.resize(count());
    for (int64_t& v : n->ints) v = i();
    n->loc = u32();
    return n;
  }
  Node* body() { return flag() ? node(0) : nullptr; }

  void field(int64_t& v) { v = i(); }
  void field(bool& v) { v = flag(); }
  void field(std::string& v) { v = str(); }
  void field(SessionSpec::Event& v) { v = enum_value(SessionSpec::kLastEvent, "session event"); }
  void field(std::vector<std::string>& v) {
    v.resize(count());
    for (std::string& x : v) x = str();
  }
  void field(std::vector<uint64_t>& v) {
    v.resize(count());
    for (uint64_t& x : v) x = static_cast<uint64_t>(i());
  }
  ProbeSpec spec();

  void module();
  bool at_end() const { return pos_ == in_.size(); }

 private:
  void global(Global& g);
  void function(Function& f);
  void probe(Probe& p);

  std::string_view in_;
  size_t pos_ = 0;
  Module& m_;
};

void Reader::global(Global& g) {
  g.name = str();
  g.type = type();
  g.keys = types();
  g.key_names.resize(count());
  for (std::string& n : g.key_names) n = str();
  g.max_entries = i();
  g.wrap = flag();
  g.init_num = i();
  g.init_str = str();
  g.hist.kind = enum_value(HistShape::Kind::linear, "histogram kind");
  g.hist.low = i();
  g.hist.high = i();
  g.hist.step = i();
  g.offset = u32();
  g.map_name = str();
  g.key_widths.resize(count());
  for (uint32_t& w : g.key_widths) w = u32();
  g.coded_keys.resize(count());
  for (uint8_t& c : g.coded_keys) c = flag();
  g.key_size = u32();
  g.value_size = u32();
}

void Reader::function(Function& f) {
  f.name = str();
  f.ret = type();
  f.param_count = count();
  f.slots = types();
  f.body = body();
  f.recursive = flag();
}

// The alternative numbered `index`, default-constructed (a compile-time
// table over the variant's alternatives).
template <size_t... I>
ProbeSpec spec_at(size_t index, std::index_sequence<I...>) {
  static const ProbeSpec kDefaults[] = {ProbeSpec(std::in_place_index<I>)...};
  return kDefaults[index];
}

ProbeSpec Reader::spec() {
  constexpr size_t kKinds = std::variant_size_v<ProbeSpec>;
  uint64_t index = u();
  if (index >= kKinds) throw Malformed("bad probe kind");
  ProbeSpec spec = spec_at(index, std::make_index_sequence<kKinds>());
  std::visit([this](auto& s) { s.fields(s, [this](auto& f) { field(f); }); }, spec);
  return spec;
}

void Reader::probe(Probe& p) {
  p.pp = str();
  p.pn = str();
  p.context = enum_value(Context::user, "probe context");
  p.spec = spec();
  p.slots = types();
  p.body = body();
  p.program_name = str();
  p.location = str();
  p.derivation = str();
  p.displays_global = i();
}

void Reader::module() {
  if (in_.size() < kMagicLen || in_.substr(0, kMagicLen) != std::string_view(kMagic, kMagicLen))
    throw Malformed("not a stap-bpf module (bad magic)");
  pos_ = kMagicLen;
  m_.script_name = str();
  m_.limits.maxstringlen = i();
  m_.limits.maxmapentries = i();
  m_.limits.maxerrors = i();
  m_.limits.maxaction = i();
  m_.timing = u() != 0;
  m_.globals.resize(count());
  for (Global& g : m_.globals) global(g);
  m_.functions.resize(count());
  for (Function& f : m_.functions) function(f);
  m_.probes.resize(count());
  for (Probe& p : m_.probes) probe(p);
  m_.formats.resize(count());
  for (std::string& f : m_.formats) f = str();
  m_.locations.resize(count());
  for (Location& l : m_.locations) l.text = str();
  m_.key_literals.resize(count());
  for (std::string& s : m_.key_literals) s = str();
}

// ---------------------------------------------------------------- checks

// Checks one body against the module: every index in range, every opcode
// with the operands its convention (ir.h) promises.
class Checker {
 public:
  Checker(const Module& m, const std::vector<Type>& slots, std::string where)
      : m_(m), slots_(slots), where_(std::move(where)) {}

  void check(const Node& n) {
    if (n.loc >= m_.locations.size()) fail(n, "location index out of range");
    for (const Node* k : n.kids)
      if (!k) fail(n, "missing operand");
    operands(n);
    for (const Node* k : n.kids) check(*k);
  }

 private:
  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    // By number: the opcode names live with the IR printer.
    throw Malformed(where_ + ": opcode " + std::to_string(static_cast<int>(n.op)) + ": " + what);
  }
  void kids(const Node& n, size_t want) const {
    if (n.kids.size() != want) fail(n, "wrong operand count");
  }
  void slot(const Node& n, int64_t s) const {
    if (s < 0 || static_cast<uint64_t>(s) >= slots_.size()) fail(n, "slot out of range");
  }
  const Global& global(const Node& n) const {
    if (n.a < 0 || static_cast<uint64_t>(n.a) >= m_.globals.size()) fail(n, "global out of range");
    return m_.globals[static_cast<size_t>(n.a)];
  }
  // An array (or statistic) global indexed by exactly its keys, plus `extra` kids.
  const Global& keyed(const Node& n, size_t extra, bool stats) const {
    const Global& g = global(n);
    if ((g.type == Type::stats) != stats) fail(n, "wrong kind of global");
    if (!stats && !g.is_array()) fail(n, "not an array");
    kids(n, g.keys.size() + extra);
    return g;
  }
  void no_any(const Node& n, size_t from, size_t to) const {
    for (size_t k = from; k < to; ++k)
      if (n.kids[k]->op == Op::any) fail(n, "'*' not allowed here");
  }
  void operands(const Node& n) const;
  void foreach_operands(const Node& n) const;

  const Module& m_;
  const std::vector<Type>& slots_;
  std::string where_;
};

void Checker::operands(const Node& n) const {
  switch (n.op) {
    case Op::num: case Op::str: case Op::any: case Op::exit: case Op::nop:
    case Op::brk: case Op::cont: case Op::next:
    case Op::tp_field: case Op::tp_chars: case Op::tp_dataloc:
    case Op::sys_nr: case Op::sys_ret: case Op::fn_name: case Op::procfs_value:
    case Op::verdict: case Op::ctx_address:
      return kids(n, 0);
    case Op::fn_arg: case Op::fn_ret:
      // 12 arguments: a BPF trampoline's most (MAX_BPF_FUNC_ARGS).
      if (n.a < 0 || n.a > 11 || !(n.b == 1 || n.b == 2 || n.b == 4 || n.b == 8))
        fail(n, "bad function argument");
      return kids(n, 0);
    case Op::set_verdict: case Op::set_procfs_value: return kids(n, 1);
    case Op::kread: case Op::uread:
      if (!(n.b == 1 || n.b == 2 || n.b == 4 || n.b == 8)) fail(n, "bad read size");
      return kids(n, 1);
    case Op::reg:
      if (n.a < 0 || n.a > 160 || n.a % 8) fail(n, "bad register offset");
      return kids(n, 0);
    case Op::sys_arg:
      if (n.a < 0 || n.a > 5 || !(n.b == 1 || n.b == 2 || n.b == 4 || n.b == 8))
        fail(n, "bad system call argument");
      return kids(n, 0);
    case Op::local: kids(n, 0); return slot(n, n.a);
    case Op::set_local: kids(n, 1); return slot(n, n.a);
    case Op::global: case Op::set_global: case Op::add_global:
      if (!global(n).in_globals_map()) fail(n, "not a scalar");
      if (n.op == Op::add_global && global(n).type != Type::long_) fail(n, "not a long");
      return kids(n, n.op == Op::global ? 0 : 1);
    case Op::elem: keyed(n, 0, false); return no_any(n, 0, n.kids.size());
    case Op::set_elem: case Op::add_elem: keyed(n, 1, false); return no_any(n, 0, n.kids.size());
    case Op::in_elem: case Op::delete_elem: global(n); return kids(n, global(n).keys.size());
    case Op::clear_global: global(n); return kids(n, 0);
    case Op::stat_add: case Op::hist_bucket: keyed(n, 1, true); return no_any(n, 0, n.kids.size());
    case Op::stat_get:
      if (n.b < 0 || n.b > static_cast<int64_t>(StatOp::variance)) fail(n, "bad aggregate");
      [[fallthrough]];
    case Op::print_hist: keyed(n, 0, true); return no_any(n, 0, n.kids.size());
    case Op::neg: case Op::bit_not: case Op::log_not: case Op::regex_match:
    case Op::error: case Op::expr:
      return kids(n, 1);
    case Op::cond: case Op::if_: case Op::loop: return kids(n, 3);
    case Op::call:
      if (n.a < 0 || static_cast<uint64_t>(n.a) >= m_.functions.size()) fail(n, "function out of range");
      return kids(n, m_.functions[static_cast<size_t>(n.a)].param_count);
    case Op::printf: case Op::sprintf:
      if (n.a < 0 || static_cast<uint64_t>(n.a) >= m_.formats.size()) fail(n, "format out of range");
      return;
    case Op::builtin: case Op::block: return;
    case Op::ret: if (n.kids.size() > 1) fail(n, "wrong operand count"); return;
    case Op::try_:
      kids(n, 2);
      if (n.a != -1) slot(n, n.a);
      return;
    case Op::foreach: return foreach_operands(n);
    default:
      if (n.op >= Op::add && n.op <= Op::concat) return kids(n, 2);
      fail(n, "unknown opcode");
  }
}

// ints = {value_slot, sort_column, sort_direction, sort_aggregate, hist, key_slot...}
void Checker::foreach_operands(const Node& n) const {
  const Global& g = global(n);
  if (n.kids.size() < 2 || n.ints.size() < 5) fail(n, "wrong operand count");
  const int64_t hist = n.ints[4];
  const size_t key_slots = n.ints.size() - 5;
  const size_t slice = n.kids.size() - 2;
  if (n.ints[0] != -1) slot(n, n.ints[0]);
  for (size_t k = 5; k < n.ints.size(); ++k) slot(n, n.ints[k]);
  if (n.ints[2] < -1 || n.ints[2] > 1) fail(n, "bad sort direction");
  if (n.ints[3] < 0 || n.ints[3] > static_cast<int64_t>(StatOp::variance)) fail(n, "bad aggregate");
  if (hist < 0 || hist > 2) fail(n, "bad histogram kind");
  if (hist) {
    // One bucket-index slot; kids[2...] index the statistic exactly.
    if (g.type != Type::stats || g.hist.kind == HistShape::Kind::none) fail(n, "not a histogram");
    if (key_slots != 1 || slice != g.keys.size()) fail(n, "wrong operand count");
    return no_any(n, 2, n.kids.size());
  }
  if (!g.is_array()) fail(n, "not an array");
  if (key_slots != g.keys.size() || (slice != 0 && slice != g.keys.size()))
    fail(n, "wrong operand count");
  if (n.ints[1] < 0 || static_cast<uint64_t>(n.ints[1]) > g.keys.size()) fail(n, "bad sort column");
}

void check_global(const Global& g, const Limits& limits, size_t index) {
  std::string where = "global " + std::to_string(index);
  if (g.type == Type::none) throw Malformed(where + ": no type");
  if (g.keys.size() > 9) throw Malformed(where + ": too many keys");
  for (Type k : g.keys)
    if (k != Type::long_ && k != Type::string) throw Malformed(where + ": bad key type");
  if (g.max_entries < 0) throw Malformed(where + ": bad size");
  if (!g.key_widths.empty() && g.key_widths.size() != g.keys.size())
    throw Malformed(where + ": bad key widths");
  if (!g.coded_keys.empty() && g.coded_keys.size() != g.keys.size())
    throw Malformed(where + ": bad key codes");
  // Key names become label names outside (--metrics): identifiers only.
  if (!g.key_names.empty() && g.key_names.size() != g.keys.size())
    throw Malformed(where + ": bad key names");
  for (const std::string& n : g.key_names)
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0])) ||
        n.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
      throw Malformed(where + ": bad key name");
  for (size_t k = 0; k < g.coded_keys.size(); ++k)
    if (g.coded_keys[k] && (g.keys[k] != Type::string || g.key_width(k, 0) != 8))
      throw Malformed(where + ": a coded key must be an 8-byte string key");
  for (size_t k = 0; k < g.key_widths.size(); ++k) {
    uint32_t w = g.key_widths[k];
    bool ok = g.keys[k] == Type::string
                  ? int64_t(w) == limits.maxstringlen ||
                        (w >= 8 && w % 8 == 0 && int64_t(w) < limits.maxstringlen)
                  : w == 8;
    if (!ok) throw Malformed(where + ": bad key width");
  }
  if (g.type == Type::stats && g.hist.kind != HistShape::Kind::none) {
    int b = g.hist.buckets();
    if (b < 3 || b > 130) throw Malformed(where + ": bad histogram shape");
  } else if (g.hist.kind != HistShape::Kind::none) {
    throw Malformed(where + ": histogram on a non-statistic");
  }
}

void check_module(const Module& m) {
  if (m.limits.maxstringlen < 2 || m.limits.maxstringlen > (1 << 20))
    throw Malformed("bad MAXSTRINGLEN");
  if (m.limits.maxmapentries < 1 || m.limits.maxmapentries > (int64_t{1} << 32))
    throw Malformed("bad MAXMAPENTRIES");
  if (m.locations.empty()) throw Malformed("no locations");
  for (size_t g = 0; g < m.globals.size(); ++g) check_global(m.globals[g], m.limits, g);

  // The layout must be the one assign_layout() gives these globals: the
  // runtime indexes mmapped memory and map buffers with it.
  std::vector<Global> laid = m.globals;
  Module copy;
  copy.limits = m.limits;
  copy.globals = std::move(laid);
  assign_layout(copy);
  for (size_t g = 0; g < m.globals.size(); ++g) {
    const Global &a = m.globals[g], &b = copy.globals[g];
    if (a.offset != b.offset || a.map_name != b.map_name || a.key_size != b.key_size ||
        a.value_size != b.value_size)
      throw Malformed("global " + std::to_string(g) + ": layout does not match its limits");
  }

  for (size_t f = 0; f < m.functions.size(); ++f) {
    const Function& fn = m.functions[f];
    if (fn.param_count > fn.slots.size()) throw Malformed("function " + fn.name + ": bad parameters");
    if (!fn.body) throw Malformed("function " + fn.name + ": no body");
    Checker(m, fn.slots, "function " + fn.name).check(*fn.body);
  }
  for (size_t p = 0; p < m.probes.size(); ++p) {
    const Probe& pr = m.probes[p];
    if (!pr.body) throw Malformed("probe " + std::to_string(p) + ": no body");
    if (pr.displays_global < -1 || pr.displays_global >= int64_t(m.globals.size()))
      throw Malformed("probe " + std::to_string(p) + ": displays no such global");
    Checker(m, pr.slots, "probe " + std::to_string(p)).check(*pr.body);
  }
}

}  // namespace

std::string serialize(const Module& m) {
  Writer w;
  w.out.assign(kMagic, kMagicLen);
  w.str(m.script_name);
  w.i(m.limits.maxstringlen);
  w.i(m.limits.maxmapentries);
  w.i(m.limits.maxerrors);
  w.i(m.limits.maxaction);
  w.u(m.timing);
  w.u(m.globals.size());
  for (const Global& g : m.globals) {
    w.str(g.name);
    w.u(static_cast<uint8_t>(g.type));
    w.types(g.keys);
    w.u(g.key_names.size());
    for (const std::string& n : g.key_names) w.str(n);
    w.i(g.max_entries);
    w.u(g.wrap);
    w.i(g.init_num);
    w.str(g.init_str);
    w.u(static_cast<uint8_t>(g.hist.kind));
    w.i(g.hist.low);
    w.i(g.hist.high);
    w.i(g.hist.step);
    w.u(g.offset);
    w.str(g.map_name);
    w.u(g.key_widths.size());
    for (uint32_t kw : g.key_widths) w.u(kw);
    w.u(g.coded_keys.size());
    for (uint8_t c : g.coded_keys) w.u(c);
    w.u(g.key_size);
    w.u(g.value_size);
  }
  w.u(m.functions.size());
  for (const Function& f : m.functions) {
    w.str(f.name);
    w.u(static_cast<uint8_t>(f.ret));
    w.u(f.param_count);
    w.types(f.slots);
    w.body(f.body);
    w.u(f.recursive);
  }
  w.u(m.probes.size());
  for (const Probe& p : m.probes) {
    w.str(p.pp);
    w.str(p.pn);
    w.u(static_cast<uint8_t>(p.context));
    w.spec(p.spec);
    w.types(p.slots);
    w.body(p.body);
    w.str(p.program_name);
    w.str(p.location);
    w.str(p.derivation);
    w.i(p.displays_global);
  }
  w.u(m.formats.size());
  for (const std::string& f : m.formats) w.str(f);
  w.u(m.locations.size());
  for (const Location& l : m.locations) w.str(l.text);
  w.u(m.key_literals.size());
  for (const std::string& s : m.key_literals) w.str(s);
  return std::move(w.out);
}

bool deserialize(std::string_view bytes, Module& out, std::string& error) {
  try {
    Module m;
    Reader r(bytes, m);
    r.module();
    if (!r.at_end()) throw Malformed("trailing bytes");
    check_module(m);
    out = std::move(m);
    return true;
  } catch (const Malformed& e) {
    error = std::string("bad module: ") + e.what();
    return false;
  }
}

}  // namespace stap::ir
