// User-context probes: statements, expressions, calls and errors.
//
// THE SEMANTIC MODEL (the BPF side must agree; from stap 4.8's translator
// and runtime, checked in its sources):
//  - longs are int64 wrapping as two's complement: + - * and unary - are
//    done on uint64;
//  - `/` and `%` by 0 raise "division by 0" (stap's words, runtime/arith.c);
//    x / -1 is -x (so INT64_MIN / -1 is INT64_MIN), x % 1 and x % -1 are 0;
//    otherwise C's truncating division;
//  - `<<` and `>>` use the count & 63 (stap emits `(a) << ((b) & 63)`);
//    `>>` is arithmetic, `<<` wraps;
//  - comparisons are signed; string comparisons are bytewise (strcmp);
//    && and || short-circuit and give 0/1;
//  - a string stored into a global (scalar or array value, or key) is cut
//    to MAXSTRINGLEN-1 bytes, as a kernel buffer holds it; locals and
//    intermediate values are not cut here; error() cuts its message;
//  - an absent array element reads as 0 or "";
//  - statistics: @count and @sum of an empty aggregate are 0; @min, @max,
//    @avg, @variance and @hist_*(x)[i] raise "empty aggregate"; @avg is
//    sum / count truncated; @variance is the sample variance
//    (n*sum(x^2) - sum(x)^2) / (n*(n-1)) truncated, 0 below two values;
//  - a full array raises "Array overflow, check MAXMAPENTRIES" (or
//    "... check size limit (N)" for `global a[N]`);
//  - MAXACTION: as stap counts (translate.cxx record_actions): every
//    statement run costs one action (blocks and a for loop's increment
//    expression none), and so does entering a loop and each test of its
//    condition; when MAXACTION * 10 actions (stap's MAXACTION_INTERRUPTIBLE)
//    are used up the probe ends with "MAXACTION exceeded" near the loop
//    body's first token or the statement's keyword, as stap's check names
//    them; try/catch cannot catch it;
//  - a runtime error ends the probe: ProbeOutcome.message is the message,
//    then " near " and the location of the node that raised it, or of the
//    statement running when that node has none;  catch (msg) gets the
//    message alone.
#include <cstring>
#include <stdexcept>

#include "loader/output/histogram_output.h"
#include "loader/interp/interpreter_impl.h"
#include "loader/output/printf_output.h"

namespace stap {

using interp::Flow;
using interp::RuntimeError;
using ir::Node;
using ir::Op;
using ir::Type;

// ---------------------------------------------------------------- set up

Interpreter::Impl::Impl(const ir::Module& module, GlobalStore& s, InterpreterHost& h)
    : m(module), store(s), host(h) {
  formats.resize(module.formats.size());
  if (!host.sink) own_sink = std::make_unique<OutputSink>(host.out, OutputFormat::text);
  sink = host.sink ? host.sink : own_sink.get();
}

Interpreter::Interpreter(const ir::Module& module, GlobalStore& store, InterpreterHost host)
    : module_(module), store_(store), host_(std::move(host)) {
  impl_ = std::make_unique<Impl>(module_, store_, host_);
}

Interpreter::~Interpreter() = default;

ProbeOutcome Interpreter::run_probe(size_t index, int subject) {
  return impl_->run(index, subject);
}

std::string& Interpreter::procfs_text() { return impl_->procfs_text; }

ProbeOutcome Interpreter::Impl::run(size_t index, int task) {
  ProbeOutcome outcome;
  const ir::Probe& p = m.probes.at(index);
  subject = task;
  interp::Frame f;
  for (Type t : p.slots) f.slots.push_back(zero_of(t));
  probe = &p;
  frame = &f;
  actions = 0;
  depth = 0;
  last_loc = 0;
  try {
    if (p.body) exec(*p.body);
  } catch (const RuntimeError& e) {
    outcome.error = true;
    outcome.message = e.message;
    if (e.loc != 0 && e.loc < m.locations.size())
      outcome.message += " near " + m.locations[e.loc].text;
  } catch (const interp::LeaveProbe&) {
  } catch (const std::exception& e) {
    // A map the kernel refused, or a module inconsistent with its maps.
    outcome.error = true;
    outcome.message = std::string("internal error: ") + e.what();
    if (last_loc != 0 && last_loc < m.locations.size())
      outcome.message += " near " + m.locations[last_loc].text;
  }
  frame = nullptr;
  return outcome;
}

// ---------------------------------------------------------------- helpers

void Interpreter::Impl::raise(std::string message, const Node& at) {
  throw RuntimeError{std::move(message), at.loc ? at.loc : last_loc};
}

void Interpreter::Impl::charge(const Node& at) {
  // stap subtracts from its budget and fails when nothing is left.  Its
  // probes run interruptible (runtime_defines.h: INTERRUPTIBLE 1), so the
  // budget is MAXACTION_INTERRUPTIBLE, MAXACTION * 10: a begin probe may
  // run a loop of 5000 iterations.
  const int64_t budget = m.limits.maxaction * interp::kInterruptibleFactor;
  if (m.limits.maxaction > 0 && ++actions >= budget)
    throw RuntimeError{"MAXACTION exceeded", at.loc ? at.loc : last_loc, false};
}

Value Interpreter::Impl::zero_of(Type t) const {
  return t == Type::string ? Value::of(std::string()) : Value::of(int64_t{0});
}

std::string Interpreter::Impl::cut(std::string s) const {
  size_t max = static_cast<size_t>(m.limits.maxstringlen - 1);
  if (s.size() > max) s.resize(max);
  return s;
}

int64_t Interpreter::Impl::eval_long(const Node& n) {
  Value v = eval(n);
  if (v.is_string) raise("internal error: a string where a long belongs", n);
  return v.num;
}

std::string Interpreter::Impl::eval_string(const Node& n) {
  Value v = eval(n);
  if (!v.is_string) raise("internal error: a long where a string belongs", n);
  return std::move(v.str);
}

Key Interpreter::Impl::eval_keys(const Node& n, size_t first, size_t count) {
  Key key;
  for (size_t i = first; i < first + count; ++i) key.push_back(eval(*n.kids[i]));
  return key;
}

namespace {

std::string overflow_message(const ir::Global& g) {
  if (g.max_entries > 0)
    return "Array overflow, check size limit (" + std::to_string(g.max_entries) + ")";
  return "Array overflow, check MAXMAPENTRIES";
}

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

// Every binary operator on longs but division, in one place.
int64_t long_binary(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::add: return s(u(a) + u(b));
    case Op::sub: return s(u(a) - u(b));
    case Op::mul: return s(u(a) * u(b));
    case Op::shl: return s(u(a) << (b & 63));
    case Op::shr: return a >> (b & 63);  // arithmetic (C++20 defines it)
    case Op::bit_and: return a & b;
    case Op::bit_or: return a | b;
    case Op::bit_xor: return a ^ b;
    case Op::lt: return a < b;
    case Op::le: return a <= b;
    case Op::gt: return a > b;
    case Op::ge: return a >= b;
    case Op::eq: return a == b;
    case Op::ne: return a != b;
    default: throw std::logic_error("not a long operator");
  }
}

// Division as stap's _stp_div64/_stp_mod64 (b != 0 checked by the caller).
int64_t long_divide(Op op, int64_t a, int64_t b) {
  if (op == Op::div) return b == -1 ? s(0 - u(a)) : a / b;
  return (b == 1 || b == -1) ? 0 : a % b;
}

int64_t string_compare(Op op, const std::string& a, const std::string& b) {
  int c = std::strcmp(a.c_str(), b.c_str());  // stops at a NUL, as stap's C strings
  switch (op) {
    case Op::str_lt: return c < 0;
    case Op::str_le: return c <= 0;
    case Op::str_gt: return c > 0;
    case Op::str_ge: return c >= 0;
    case Op::str_eq: return c == 0;
    case Op::str_ne: return c != 0;
    default: throw std::logic_error("not a string comparison");
  }
}

// One frame deeper for the length of a call.
class CallScope {
 public:
  CallScope(Interpreter::Impl& in, interp::Frame* f)
      : in_(in), saved_frame_(in.frame), saved_loc_(in.last_loc) {
    in_.frame = f;
    ++in_.depth;
  }
  ~CallScope() {
    in_.frame = saved_frame_;
    in_.last_loc = saved_loc_;
    --in_.depth;
  }

 private:
  Interpreter::Impl& in_;
  interp::Frame* saved_frame_;
  uint32_t saved_loc_;
};

}  // namespace

// ---------------------------------------------------------------- statements

Flow Interpreter::Impl::exec(const Node& n) {
  if (n.loc) last_loc = n.loc;
  switch (n.op) {
    case Op::block:
      for (const Node* k : n.kids) {
        Flow f = exec(*k);
        if (f != Flow::normal) return f;
      }
      return Flow::normal;
    case Op::nop: return Flow::normal;
    case Op::if_:
      charge(n);
      return eval_long(*n.kids[0]) ? exec(*n.kids[1]) : exec(*n.kids[2]);
    case Op::loop:
      charge(n);
      for (;;) {
        charge(n);  // the iteration, the last (failing) condition included
        if (n.kids[0]->op != Op::nop && !eval_long(*n.kids[0])) return Flow::normal;
        Flow f = exec(*n.kids[1]);
        if (f == Flow::brk) return Flow::normal;
        if (f == Flow::ret) return f;
        last_loc = n.loc ? n.loc : last_loc;
        // The increment is an expression in stap: no action of its own.
        const Node& incr = *n.kids[2];
        if (incr.op == Op::expr)
          eval(*incr.kids[0]);
        else
          exec(incr);
      }
    case Op::foreach: return exec_foreach(n);
    case Op::ret:
      charge(n);
      if (!n.kids.empty()) frame->ret = eval(*n.kids[0]);
      return Flow::ret;
    case Op::brk: charge(n); return Flow::brk;
    case Op::cont: charge(n); return Flow::cont;
    case Op::next: charge(n); throw interp::LeaveProbe{};
    case Op::try_:
      try {
        return exec(*n.kids[0]);
      } catch (const RuntimeError& e) {
        if (!e.catchable) throw;
        if (n.a >= 0) frame->slots.at(static_cast<size_t>(n.a)) = Value::of(e.message);
        charge(n);
        return exec(*n.kids[1]);
      }
    default:  // expr, or an expression standing as a statement
      // Charged after it runs: stap checks an expression statement's
      // action at the next check point, after the statement (so a loop
      // body `{ e++ }` runs 4999 times in a budget of 10000, not 4998).
      eval(n.op == Op::expr ? *n.kids[0] : n);
      charge(n);
      return Flow::normal;
  }
}

// ---------------------------------------------------------------- expressions

Value Interpreter::Impl::eval(const Node& n) {
  switch (n.op) {
    case Op::num: return Value::of(n.a);
    case Op::str: return Value::of(n.s);
    case Op::local: return frame->slots.at(static_cast<size_t>(n.a));
    case Op::set_local: {
      Value v = eval(*n.kids[0]);
      frame->slots.at(static_cast<size_t>(n.a)) = v;
      return v;
    }
    case Op::global:
      if (m.globals.at(static_cast<size_t>(n.a)).type == Type::string)
        return Value::of(store.get_string(static_cast<size_t>(n.a)));
      return Value::of(store.get_long(static_cast<size_t>(n.a)));
    case Op::set_global: {
      Value v = eval(*n.kids[0]);
      if (v.is_string) {
        v.str = cut(std::move(v.str));
        store.set_string(static_cast<size_t>(n.a), v.str);
      } else {
        store.set_long(static_cast<size_t>(n.a), v.num);
      }
      return v;
    }
    case Op::add_global: {
      int64_t d = eval_long(*n.kids[0]);
      int64_t now = store.add_long(static_cast<size_t>(n.a), d);
      return Value::of(n.b ? s(u(now) - u(d)) : now);
    }
    case Op::elem: {
      const auto g = static_cast<size_t>(n.a);
      std::optional<Value> v = store.get(g, eval_keys(n, 0, n.kids.size()));
      return v ? *v : zero_of(m.globals.at(g).type);
    }
    case Op::set_elem: case Op::add_elem: return set_element(n);
    case Op::in_elem: return Value::of(int64_t{element_exists(n)});
    case Op::delete_elem: delete_elements(n); return Value::of(int64_t{0});
    case Op::clear_global: store.clear(static_cast<size_t>(n.a)); return Value::of(int64_t{0});
    case Op::stat_add: {
      const auto g = static_cast<size_t>(n.a);
      Key key = eval_keys(n, 0, n.kids.size() - 1);
      int64_t v = eval_long(*n.kids.back());
      try {
        store.stat_add(g, key, v);
      } catch (const std::length_error&) {
        raise(overflow_message(m.globals[g]), n);
      }
      return Value::of(int64_t{0});
    }
    case Op::stat_get: return Value::of(aggregate(n));
    case Op::hist_bucket: return Value::of(bucket(n));
    case Op::print_hist:
      if (n.type == Type::string) return Value::of(histogram_text(n));
      print_histogram(n);
      return Value::of(int64_t{0});
    case Op::neg: return Value::of(s(0 - u(eval_long(*n.kids[0]))));
    case Op::bit_not: return Value::of(~eval_long(*n.kids[0]));
    case Op::log_not: return Value::of(int64_t{eval_long(*n.kids[0]) == 0});
    case Op::div: case Op::mod: {
      int64_t a = eval_long(*n.kids[0]);
      int64_t b = eval_long(*n.kids[1]);
      if (b == 0) raise("division by 0", n);
      return Value::of(long_divide(n.op, a, b));
    }
    case Op::log_and:
      return Value::of(int64_t{eval_long(*n.kids[0]) != 0 && eval_long(*n.kids[1]) != 0});
    case Op::log_or:
      return Value::of(int64_t{eval_long(*n.kids[0]) != 0 || eval_long(*n.kids[1]) != 0});
    case Op::concat: {
      std::string a = eval_string(*n.kids[0]);
      return Value::of(a + eval_string(*n.kids[1]));
    }
    case Op::str_lt: case Op::str_le: case Op::str_gt: case Op::str_ge:
    case Op::str_eq: case Op::str_ne: {
      std::string a = eval_string(*n.kids[0]);
      return Value::of(string_compare(n.op, a, eval_string(*n.kids[1])));
    }
    case Op::regex_match: {
      bool hit = regex_match(eval_string(*n.kids[0]), n.s, n);
      return Value::of(int64_t{n.b ? !hit : hit});
    }
    case Op::cond: return eval_long(*n.kids[0]) ? eval(*n.kids[1]) : eval(*n.kids[2]);
    case Op::call: return call(n);
    case Op::builtin: return builtin(n);
    case Op::printf: {
      sink->print(format_call(n, false));
      return Value::of(int64_t{0});
    }
    case Op::sprintf: return Value::of(format_call(n, true));
    // stap's error() clears the statement it would name (logging.stp sets
    // last_stmt to NULL): "ERROR: msg" with no location.
    case Op::error: throw RuntimeError{cut(eval_string(*n.kids[0])), 0};
    case Op::exit:
      if (host.request_exit) host.request_exit();
      return Value::of(int64_t{0});
    case Op::kread: return Value::of(kernel_read(n));
    case Op::uread: raise("user memory cannot be read in a begin, end, error or timer probe: it has no probed process", n);
    case Op::tp_field: case Op::tp_chars: case Op::tp_dataloc:
      raise("tracepoint fields cannot be read in a begin, end, error or timer probe", n);
    case Op::procfs_value: return Value::of(procfs_text);
    case Op::set_procfs_value: return Value::of(set_procfs_text(eval_string(*n.kids[0]), n));
    default:
      if (n.op >= Op::add && n.op <= Op::ne) {
        int64_t a = eval_long(*n.kids[0]);
        return Value::of(long_binary(n.op, a, eval_long(*n.kids[1])));
      }
      raise(std::string("internal error: opcode ") + std::to_string(static_cast<int>(n.op)) +
                " is not an expression",
            n);
  }
}

// A procfs read probe's text: at most .maxsize(N) - 1 bytes (MAXSTRINGLEN
// by default); more is cut, and an error, as in stap.
std::string Interpreter::Impl::set_procfs_text(std::string text, const Node& at) {
  const ir::ProcfsSpec* spec = probe ? probe->as<ir::ProcfsSpec>() : nullptr;
  size_t size = static_cast<size_t>(spec && spec->maxsize > 0 ? spec->maxsize : m.limits.maxstringlen);
  procfs_text = std::move(text);
  if (procfs_text.size() + 1 > size) {
    size_t wanted = procfs_text.size() + 1;
    procfs_text.resize(size - 1);
    raise("buffer size exceeded, consider .maxsize(" + std::to_string(wanted) + ").", at);
  }
  return procfs_text;
}

// ---------------------------------------------------------------- arrays

Value Interpreter::Impl::set_element(const Node& n) {
  const auto g = static_cast<size_t>(n.a);
  Key key = eval_keys(n, 0, n.kids.size() - 1);
  Value v = eval(*n.kids.back());
  if (n.op == Op::add_elem) {
    // Read-modify-write: a map element cannot be updated atomically from
    // user space; kernel probes add to it atomically among themselves.
    std::optional<Value> old = store.get(g, key);
    int64_t before = old ? old->num : 0;
    int64_t after = s(u(before) + u(v.num));
    if (!store.set(g, key, Value::of(after))) raise(overflow_message(m.globals[g]), n);
    return Value::of(n.b ? before : after);
  }
  if (v.is_string) v.str = cut(std::move(v.str));
  if (!store.set(g, key, v)) raise(overflow_message(m.globals[g]), n);
  return v;
}

bool interp::key_matches(const Key& key, const std::vector<std::optional<Value>>& pattern) {
  for (size_t i = 0; i < key.size() && i < pattern.size(); ++i)
    if (pattern[i] && !(*pattern[i] == key[i])) return false;
  return true;
}

std::vector<std::optional<Value>> Interpreter::Impl::eval_pattern(const Node& n, size_t first) {
  std::vector<std::optional<Value>> pattern;
  const ir::Global& g = m.globals.at(static_cast<size_t>(n.a));
  for (size_t i = first; i < n.kids.size(); ++i) {
    if (n.kids[i]->op == Op::any) {
      pattern.emplace_back();
      continue;
    }
    Value v = eval(*n.kids[i]);
    // Keys are stored cut: compare with the cut value.
    if (v.is_string && i - first < g.keys.size()) v.str = cut(std::move(v.str));
    pattern.emplace_back(std::move(v));
  }
  return pattern;
}

bool Interpreter::Impl::element_exists(const Node& n) {
  const auto g = static_cast<size_t>(n.a);
  auto pattern = eval_pattern(n, 0);
  bool wild = false;
  Key key;
  for (auto& p : pattern) {
    if (!p) wild = true;
    key.push_back(p ? *p : Value{});
  }
  if (wild) {
    for (const Key& k : store.keys(g))
      if (interp::key_matches(k, pattern)) return true;
    return false;
  }
  if (m.globals[g].type == Type::stats) return store.stat_get(g, key).has_value();
  return store.get(g, key).has_value();
}

void Interpreter::Impl::delete_elements(const Node& n) {
  const auto g = static_cast<size_t>(n.a);
  auto pattern = eval_pattern(n, 0);
  for (const auto& p : pattern) {
    if (p) continue;
    for (const Key& k : store.keys(g))
      if (interp::key_matches(k, pattern)) store.remove(g, k);
    return;
  }
  Key key;
  for (auto& p : pattern) key.push_back(*p);
  store.remove(g, key);
}

// ---------------------------------------------------------------- statistics

Key Interpreter::Impl::stat_key(const Node& n, size_t keys) {
  Key key = eval_keys(n, 0, keys);
  for (Value& v : key)
    if (v.is_string) v.str = cut(std::move(v.str));
  return key;
}

std::optional<StatValue> Interpreter::Impl::stat_of(const Node& n, size_t keys) {
  std::optional<StatValue> st = store.stat_get(static_cast<size_t>(n.a), stat_key(n, keys));
  if (st && st->count == 0) st.reset();
  return st;
}

int64_t Interpreter::Impl::aggregate(const Node& n) {
  auto op = static_cast<ir::StatOp>(n.b);
  std::optional<StatValue> st = stat_of(n, n.kids.size());
  if (!st) {
    if (op == ir::StatOp::count || op == ir::StatOp::sum) return 0;
    raise("empty aggregate", n);
  }
  switch (op) {
    case ir::StatOp::count: return st->count;
    case ir::StatOp::sum: return st->sum;
    case ir::StatOp::min: return st->min;
    case ir::StatOp::max: return st->max;
    case ir::StatOp::avg: return st->sum / st->count;
    case ir::StatOp::variance: return stat_variance(*st);
  }
  return 0;
}

int64_t Interpreter::Impl::bucket(const Node& n) {
  std::optional<StatValue> st = stat_of(n, n.kids.size() - 1);
  int64_t index = eval_long(*n.kids.back());
  if (!st) raise("empty aggregate", n);
  if (index < 0 || static_cast<uint64_t>(index) >= st->buckets.size())
    raise("histogram index out of range", n);
  return st->buckets[static_cast<size_t>(index)];
}

void Interpreter::Impl::print_histogram(const Node& n) {
  Histogram h;
  std::string text = histogram_text(n, &h);
  sink->histogram(m.globals.at(static_cast<size_t>(n.a)).name, stat_key(n, n.kids.size()), h, text);
}

// The histogram's text (sprint's value: cut to MAXSTRINGLEN - 1 bytes).
std::string Interpreter::Impl::histogram_text(const Node& n, Histogram* shown) {
  const ir::Global& g = m.globals.at(static_cast<size_t>(n.a));
  std::optional<StatValue> st = stat_of(n, n.kids.size());
  Histogram h;
  h.kind = g.hist.kind == ir::HistShape::Kind::linear ? Histogram::Kind::linear : Histogram::Kind::log;
  h.low = g.hist.low;
  h.high = g.hist.high;
  h.step = g.hist.step;
  h.buckets = st ? st->buckets : std::vector<int64_t>(static_cast<size_t>(g.hist.buckets()), 0);
  std::optional<std::string> text = format_histogram(h);
  if (!text) raise("empty aggregate", n);
  if (shown) {
    *shown = std::move(h);
    return *text;
  }
  size_t room = static_cast<size_t>(m.limits.maxstringlen) - 1;
  if (text->size() > room) text->resize(room);
  return *text;
}

// ---------------------------------------------------------------- calls, printf

Value Interpreter::Impl::call(const Node& n) {
  const ir::Function& f = m.functions.at(static_cast<size_t>(n.a));
  if (depth >= interp::kMaxNesting) throw RuntimeError{"MAXNESTING exceeded", n.loc ? n.loc : last_loc};
  interp::Frame callee;
  for (Type t : f.slots) callee.slots.push_back(zero_of(t));
  for (size_t i = 0; i < f.param_count && i < n.kids.size(); ++i) callee.slots[i] = eval(*n.kids[i]);
  callee.ret = zero_of(f.ret);
  CallScope scope(*this, &callee);
  // Inside the callee, an error from a node without a location of its own
  // is reported at the call until a located statement runs.
  if (n.loc) last_loc = n.loc;
  if (f.body) exec(*f.body);
  return std::move(callee.ret);
}

const std::vector<PrintfPiece>& Interpreter::Impl::format(size_t index, const Node& at) {
  if (index >= formats.size()) raise("internal error: no format " + std::to_string(index), at);
  if (!formats[index]) {
    auto pieces = std::make_unique<std::vector<PrintfPiece>>();
    std::string error;
    if (!parse_printf_format(m.formats[index], *pieces, error)) raise(error, at);
    formats[index] = std::move(pieces);
  }
  return *formats[index];
}

std::string Interpreter::Impl::format_call(const Node& n, bool to_string) {
  const std::vector<PrintfPiece>& pieces = format(static_cast<size_t>(n.a), n);
  for (const PrintfPiece& p : pieces)
    if (p.conversion == 'm' || p.conversion == 'M')
      raise("%m and %M cannot read memory in a begin, end, error or timer probe", n);
  std::vector<PrintfValue> args;
  for (const Node* k : n.kids) {
    Value v = eval(*k);
    args.push_back(v.is_string ? PrintfValue::of(std::move(v.str)) : PrintfValue::of(v.num));
  }
  try {
    if (to_string)
      return format_sprintf(pieces, args, static_cast<size_t>(m.limits.maxstringlen));
    return format_printf(pieces, args);
  } catch (const std::invalid_argument& e) {
    raise(std::string("internal error: ") + e.what(), n);
  }
}

}  // namespace stap
