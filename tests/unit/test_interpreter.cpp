// User-context probes (loader/interpreter.h) over real maps: modules built
// by hand, probes run, output and map contents checked.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <climits>
#include <fstream>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <bpf/bpf.h>

#include "ir/serialize.h"
#include "loader/interp/interpreter.h"

using namespace stap;
using ir::Node;
using ir::Op;
using ir::Type;

namespace {

constexpr Type L = Type::long_;
constexpr Type S = Type::string;
constexpr Type N = Type::none;

// A module under construction, then run.
class Script {
 public:
  ir::Module m;

  Script() {
    m.script_name = "t.stp";
    m.limits.maxstringlen = 16;
  }
  ~Script() {
    interp_.reset();
    store_.reset();
    if (out_) std::fclose(out_);
    std::free(buf_);
  }

  Node* num(int64_t v) { return leaf(Op::num, L, v); }
  Node* str(std::string s) {
    Node* n = leaf(Op::str, S);
    n->s = std::move(s);
    return n;
  }
  Node* leaf(Op op, Type t, int64_t a = 0, int64_t b = 0) {
    Node* n = m.make(op, t);
    n->a = a;
    n->b = b;
    return n;
  }
  Node* op(Op op, Type t, std::vector<Node*> kids, int64_t a = 0, int64_t b = 0) {
    Node* n = leaf(op, t, a, b);
    n->kids = std::move(kids);
    return n;
  }
  Node* at(Node* n, const std::string& where) {
    n->loc = m.add_location(where);
    return n;
  }
  Node* block(std::vector<Node*> stmts) { return op(Op::block, N, std::move(stmts)); }
  Node* expr(Node* e) { return op(Op::expr, N, {e}); }
  Node* nop() { return leaf(Op::nop, N); }
  Node* local(int64_t slot, Type t) { return leaf(Op::local, t, slot); }
  Node* set_local(int64_t slot, Node* v) { return op(Op::set_local, v->type, {v}, slot); }
  // printf(fmt, args...) as a statement
  Node* print(const std::string& fmt, std::vector<Node*> args) {
    return expr(op(Op::printf, N, std::move(args), m.add_format(fmt)));
  }
  Node* builtin(const std::string& name, Type t, std::vector<Node*> args) {
    Node* n = op(Op::builtin, t, std::move(args));
    n->s = name;
    return n;
  }

  size_t global(ir::Global g) {
    m.globals.push_back(std::move(g));
    return m.globals.size() - 1;
  }
  size_t function(ir::Function f) {
    m.functions.push_back(std::move(f));
    return m.functions.size() - 1;
  }
  size_t probe(std::vector<Type> slots, std::vector<Node*> stmts) {
    ir::Probe p;
    p.pp = "begin";
    p.slots = std::move(slots);
    p.body = block(std::move(stmts));
    m.probes.push_back(std::move(p));
    return m.probes.size() - 1;
  }

  ProbeOutcome run(size_t probe = 0) {
    if (!interp_) start();
    return interp_->run_probe(probe);
  }
  // Runs probe 0, which must not fail, and returns what it printed.
  std::string output_of_run() {
    ProbeOutcome o = run();
    INFO(o.message);
    CHECK_FALSE(o.error);
    return output();
  }
  std::string output() {
    std::fflush(out_);
    std::string s(buf_, len_);
    return s;
  }
  GlobalStore& store() {
    if (!interp_) start();
    return *store_;
  }
  int exits = 0;

 private:
  void start() {
    ir::assign_layout(m);
    store_.emplace(GlobalStore::create_maps(m));
    out_ = open_memstream(&buf_, &len_);
    InterpreterHost host;
    host.out = out_;
    host.target_pid = 4242;
    host.request_exit = [this] { ++exits; };
    interp_.emplace(m, *store_, host);
  }
  std::optional<GlobalStore> store_;
  std::optional<Interpreter> interp_;
  std::FILE* out_ = nullptr;
  char* buf_ = nullptr;
  size_t len_ = 0;
};

std::string hex_of(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string run_error(Script& s) {
  ProbeOutcome o = s.run();
  CHECK(o.error);
  return o.message;
}

}  // namespace

// ---------------------------------------------------------------- operators

TEST_CASE("long arithmetic wraps and divides as stap's runtime", "[interp]") {
  Script s;
  auto bin = [&](Op op, int64_t a, int64_t b) { return s.op(op, L, {s.num(a), s.num(b)}); };
  s.probe({}, {s.print("%d %d %d %d %d %d\n", {bin(Op::add, INT64_MAX, 1), bin(Op::div, INT64_MIN, -1),
                                                bin(Op::div, -7, 2), bin(Op::mod, -7, 2),
                                                bin(Op::mod, 7, -1), bin(Op::mul, INT64_MAX, 2)}),
               s.print("%d %d %d %d\n", {bin(Op::shl, 1, 65), bin(Op::shr, -8, 1), bin(Op::shr, -1, 70),
                                          bin(Op::shl, 1, 63)}),
               s.print("%d %d %d %d\n", {s.op(Op::neg, L, {s.num(INT64_MIN)}), s.op(Op::bit_not, L, {s.num(0)}),
                                          s.op(Op::log_not, L, {s.num(5)}), bin(Op::bit_xor, 6, 3)}),
               s.print("%d%d%d%d%d%d\n", {bin(Op::lt, -1, 0), bin(Op::le, 1, 0), bin(Op::gt, 0, -1),
                                          bin(Op::ge, 2, 2), bin(Op::eq, 3, 3), bin(Op::ne, 3, 3)})});
  CHECK(s.output_of_run() ==
        "-9223372036854775808 -9223372036854775808 -3 -1 0 -2\n"
        "2 -4 -1 -9223372036854775808\n"
        "-9223372036854775808 -1 0 5\n"
        "101110\n");
}

TEST_CASE("&& and || short-circuit; ?: picks one side", "[interp]") {
  Script s;
  Node* boom = s.op(Op::div, L, {s.num(1), s.num(0)});
  Node* boom2 = s.op(Op::div, L, {s.num(1), s.num(0)});
  Node* boom3 = s.op(Op::div, L, {s.num(1), s.num(0)});
  s.probe({}, {s.print("%d %d %d\n", {s.op(Op::log_and, L, {s.num(0), boom}), s.op(Op::log_or, L, {s.num(7), boom2}),
                                      s.op(Op::cond, L, {s.num(1), s.num(4), boom3})})});
  CHECK(s.output_of_run() == "0 1 4\n");
}

TEST_CASE("division by 0 is a runtime error near its operator", "[interp]") {
  Script s;
  s.probe({L}, {s.print("before\n", {}),
                s.expr(s.set_local(0, s.at(s.op(Op::div, L, {s.num(1), s.local(0, L)}), "operator '/' at t.stp:1:30"))),
                s.print("after\n", {})});
  ProbeOutcome o = s.run();
  CHECK(o.error);
  CHECK(o.message == "division by 0 near operator '/' at t.stp:1:30");
  CHECK(s.output() == "before\n");  // the probe ends at the error
}

TEST_CASE("an error without a location of its own is reported at its statement", "[interp]") {
  Script s;
  Node* stmt = s.at(s.expr(s.op(Op::mod, L, {s.num(1), s.num(0)})), "operator '=' at t.stp:2:3");
  s.probe({}, {stmt});
  CHECK(run_error(s) == "division by 0 near operator '=' at t.stp:2:3");
}

TEST_CASE("strings: concatenation, bytewise comparison, cutting in globals only", "[interp]") {
  Script s;
  size_t g = s.global({.name = "gs", .type = S});
  size_t arr = s.global({.name = "ga", .type = S, .keys = {L}});
  Node* cat = s.op(Op::concat, S, {s.str("0123456789"), s.str("abcdefghij")});
  s.probe({S}, {s.expr(s.set_local(0, cat)),
                s.expr(s.op(Op::set_global, S, {s.local(0, S)}, static_cast<int64_t>(g))),
                s.expr(s.op(Op::set_elem, S, {s.num(1), s.local(0, S)}, static_cast<int64_t>(arr))),
                s.print("%s|%s|%s\n", {s.local(0, S), s.leaf(Op::global, S, static_cast<int64_t>(g)),
                                        s.op(Op::elem, S, {s.num(1)}, static_cast<int64_t>(arr))}),
                s.print("%d%d%d%d\n", {s.op(Op::str_lt, L, {s.str("a"), s.str("b")}),
                                        s.op(Op::str_gt, L, {s.str("\xff"), s.str("a")}),
                                        s.op(Op::str_eq, L, {s.str("ab"), s.str("ab")}),
                                        s.op(Op::str_le, L, {s.str("b"), s.str("ab")})}),
                s.print("[%s]\n", {s.op(Op::elem, S, {s.num(2)}, static_cast<int64_t>(arr))})});
  CHECK(s.output_of_run() == "0123456789abcdefghij|0123456789abcde|0123456789abcde\n1110\n[]\n");
}

TEST_CASE("long globals: ++x, x++, +=, absent elements read 0", "[interp]") {
  Script s;
  size_t x = s.global({.name = "x", .type = L, .init_num = 10});
  size_t a = s.global({.name = "a", .type = L, .keys = {S}});
  auto gx = static_cast<int64_t>(x), ga = static_cast<int64_t>(a);
  s.probe({}, {s.print("%d %d %d\n", {s.op(Op::add_global, L, {s.num(1)}, gx, 0), s.op(Op::add_global, L, {s.num(1)}, gx, 1),
                                      s.leaf(Op::global, L, gx)}),
               s.print("%d %d %d\n", {s.op(Op::add_elem, L, {s.str("k"), s.num(5)}, ga, 0),
                                      s.op(Op::add_elem, L, {s.str("k"), s.num(1)}, ga, 1),
                                      s.op(Op::elem, L, {s.str("nothing")}, ga)})});
  CHECK(s.output_of_run() == "11 11 12\n5 5 0\n");
  CHECK(s.store().get(a, {Value::of(std::string("k"))}) == Value::of(int64_t{6}));
}

TEST_CASE("a full array is stap's Array overflow error", "[interp]") {
  Script s;
  size_t a = s.global({.name = "a", .type = L, .keys = {L}, .max_entries = 1});
  auto ga = static_cast<int64_t>(a);
  s.probe({}, {s.expr(s.op(Op::set_elem, L, {s.num(1), s.num(1)}, ga)),
               s.expr(s.at(s.op(Op::set_elem, L, {s.num(2), s.num(1)}, ga), "identifier 'a' at t.stp:3:1"))});
  CHECK(run_error(s) == "Array overflow, check size limit (1) near identifier 'a' at t.stp:3:1");
}

TEST_CASE("in and delete, with and without '*'", "[interp]") {
  Script s;
  size_t a = s.global({.name = "a", .type = L, .keys = {L, S}});
  auto ga = static_cast<int64_t>(a);
  auto set = [&](int64_t k1, const char* k2) { return s.expr(s.op(Op::set_elem, L, {s.num(k1), s.str(k2), s.num(1)}, ga)); };
  auto in = [&](Node* k1, Node* k2) { return s.op(Op::in_elem, L, {k1, k2}, ga); };
  auto any = [&] { return s.leaf(Op::any, N); };
  s.probe({}, {set(1, "x"), set(1, "y"), set(2, "x"),
               s.print("%d%d%d%d\n", {in(s.num(1), s.str("x")), in(s.num(3), s.str("x")), in(any(), s.str("y")),
                                      in(s.num(3), any())}),
               s.expr(s.op(Op::delete_elem, N, {s.num(1), any()}, ga)),
               s.print("%d%d\n", {in(s.num(1), any()), in(s.num(2), s.str("x"))}),
               s.expr(s.op(Op::delete_elem, N, {s.num(2), s.str("x")}, ga)),
               s.print("%d\n", {in(any(), any())})});
  CHECK(s.output_of_run() == "1010\n01\n0\n");
}

// ---------------------------------------------------------------- control

TEST_CASE("try/catch catches an error raised in a called function", "[interp]") {
  Script s;
  ir::Function f{.name = "f", .ret = L, .param_count = 1, .slots = {L}};
  f.body = s.block({s.op(Op::ret, N, {s.at(s.op(Op::div, L, {s.num(10), s.local(0, L)}), "operator '/' at t.stp:1:20")})});
  size_t fi = s.function(f);
  Node* call = s.op(Op::call, L, {s.num(0)}, static_cast<int64_t>(fi));
  Node* call_ok = s.op(Op::call, L, {s.num(5)}, static_cast<int64_t>(fi));
  Node* t = s.op(Op::try_, N, {s.block({s.print("%d\n", {call_ok}), s.print("%d\n", {call}), s.print("not here\n", {})}),
                               s.block({s.print("caught: %s\n", {s.local(0, S)})})},
                 0);
  Node* thrown = s.op(Op::error, N, {s.str("my own error message, long")});
  Node* t2 = s.op(Op::try_, N, {s.block({s.expr(thrown)}), s.block({s.print("again: %s\n", {s.local(0, S)})})}, 0);
  s.probe({S}, {t, t2, s.print("end\n", {})});
  CHECK(s.output_of_run() == "2\ncaught: division by 0\nagain: my own error me\nend\n");
}

TEST_CASE("error() ends the probe with its message alone, as stap's", "[interp]") {
  Script s;
  // Even after a located statement ran, error() names no place.
  Node* earlier = s.at(s.op(Op::if_, N, {s.num(1), s.block({}), s.nop()}), "keyword at t.stp:1:9");
  s.probe({}, {earlier, s.expr(s.at(s.op(Op::error, N, {s.str("boom")}), "identifier 'error' at t.stp:1:15")),
               s.print("not here\n", {})});
  CHECK(run_error(s) == "boom");
  CHECK(s.output().empty());
}

TEST_CASE("MAXACTION ends a runaway loop and cannot be caught", "[interp]") {
  Script s;
  s.m.limits.maxaction = 50;
  Node* loop = s.at(s.op(Op::loop, N, {s.nop(), s.block({s.expr(s.num(1))}), s.nop()}), "keyword at t.stp:1:9");
  s.probe({S}, {s.op(Op::try_, N, {loop, s.print("caught\n", {})}, 0)});
  CHECK(run_error(s) == "MAXACTION exceeded near keyword at t.stp:1:9");
  CHECK(s.output().empty());
}

TEST_CASE("a loop within the budget runs; break, continue and return work", "[interp]") {
  Script s;
  // for (i = 0; i < 10; i++) { if (i == 2) continue; if (i == 5) break; print i }
  auto i = [&] { return s.local(0, L); };
  Node* body = s.block({s.op(Op::if_, N, {s.op(Op::eq, L, {i(), s.num(2)}), s.leaf(Op::cont, N), s.nop()}),
                        s.op(Op::if_, N, {s.op(Op::eq, L, {i(), s.num(5)}), s.leaf(Op::brk, N), s.nop()}),
                        s.print("%d", {i()})});
  Node* loop = s.op(Op::loop, N, {s.op(Op::lt, L, {i(), s.num(10)}), body,
                                  s.expr(s.set_local(0, s.op(Op::add, L, {i(), s.num(1)})))});
  s.probe({L}, {loop, s.print("|", {}), s.op(Op::ret, N, {}), s.print("not here", {})});
  CHECK(s.output_of_run() == "0134|");
}

TEST_CASE("recursion deeper than the nesting limit is an error", "[interp]") {
  Script s;
  ir::Function f{.name = "r", .ret = L, .param_count = 1, .slots = {L}, .recursive = true};
  size_t fi = s.function(f);
  Node* again = s.op(Op::call, L, {s.op(Op::add, L, {s.local(0, L), s.num(1)})}, static_cast<int64_t>(fi));
  s.m.functions[fi].body = s.block({s.op(Op::ret, N, {again})});
  s.m.limits.maxaction = 100000;
  s.probe({}, {s.expr(s.at(s.op(Op::call, L, {s.num(0)}, static_cast<int64_t>(fi)), "identifier 'r' at t.stp:2:1"))});
  CHECK(run_error(s) == "MAXNESTING exceeded near identifier 'r' at t.stp:2:1");
}

TEST_CASE("exit() asks the session to stop and the probe goes on; next leaves it", "[interp]") {
  Script s;
  s.probe({}, {s.expr(s.leaf(Op::exit, N)), s.print("still here\n", {}), s.leaf(Op::next, N), s.print("not here\n", {})});
  CHECK(s.output_of_run() == "still here\n");
  CHECK(s.exits == 1);
}

// ---------------------------------------------------------------- printf

TEST_CASE("printf and sprintf use stap's formatting; sprintf is cut at MAXSTRINGLEN", "[interp]") {
  Script s;
  Node* sp = s.op(Op::sprintf, S, {s.num(255), s.str("a long string here")}, s.m.add_format("%#x:%s"));
  s.probe({}, {s.print("[%5s|%-4d|%x|%c]\n", {s.str("ab"), s.num(7), s.num(255), s.num('z')}),
               s.print("%s\n", {sp})});
  CHECK(s.output_of_run() == "[   ab|7   |ff|z]\n0xff:a long str\n");
}

// ---------------------------------------------------------------- statistics

TEST_CASE("aggregates: empty ones, count, sum, min, max, avg, variance", "[interp]") {
  Script s;
  size_t st = s.global({.name = "st", .type = Type::stats});
  auto g = static_cast<int64_t>(st);
  auto agg = [&](ir::StatOp op) { return s.leaf(Op::stat_get, L, g, static_cast<int64_t>(op)); };
  auto add = [&](int64_t v) { return s.expr(s.op(Op::stat_add, N, {s.num(v)}, g)); };
  s.probe({}, {s.print("%d %d\n", {agg(ir::StatOp::count), agg(ir::StatOp::sum)}),
               add(1), add(2), add(3), add(10),
               s.print("%d %d %d %d %d %d\n", {agg(ir::StatOp::count), agg(ir::StatOp::sum), agg(ir::StatOp::min),
                                                agg(ir::StatOp::max), agg(ir::StatOp::avg), agg(ir::StatOp::variance)})});
  // variance of 1 2 3 10: mean 4, squares of deviations 9+4+1+36 = 50, /3 = 16
  CHECK(s.output_of_run() == "0 0\n4 16 1 10 4 16\n");

  Script e;
  size_t st2 = e.global({.name = "st", .type = Type::stats});
  e.probe({}, {e.print("%d\n", {e.at(e.leaf(Op::stat_get, L, static_cast<int64_t>(st2), static_cast<int64_t>(ir::StatOp::min)),
                                     "operator '@min' at t.stp:1:20")})});
  CHECK(run_error(e) == "empty aggregate near operator '@min' at t.stp:1:20");
}

TEST_CASE("histograms: buckets, printing, an empty one", "[interp]") {
  Script s;
  ir::Global h{.name = "h", .type = Type::stats};
  h.hist.kind = ir::HistShape::Kind::log;
  auto g = static_cast<int64_t>(s.global(h));
  auto add = [&](int64_t v) { return s.expr(s.op(Op::stat_add, N, {s.num(v)}, g)); };
  s.probe({}, {add(1), add(1), add(1), add(1), add(2), add(3),
               s.print("%d %d\n", {s.op(Op::hist_bucket, L, {s.num(65)}, g), s.op(Op::hist_bucket, L, {s.num(66)}, g)}),
               s.expr(s.leaf(Op::print_hist, N, g))});
  CHECK(s.output_of_run() ==
        "4 2\n"
        "value |-------------------------------------------------- count\n"
        "    0 |                                                   0\n"
        "    1 |@@@@                                               4\n"
        "    2 |@@                                                 2\n"
        "    4 |                                                   0\n"
        "    8 |                                                   0\n"
        "\n");

  Script e;
  auto ge = static_cast<int64_t>(e.global(h));
  e.probe({}, {e.expr(e.at(e.leaf(Op::print_hist, N, ge), "operator '@hist_log' at t.stp:1:7"))});
  CHECK(run_error(e) == "empty aggregate near operator '@hist_log' at t.stp:1:7");

  Script r;
  auto gr = static_cast<int64_t>(r.global(h));
  r.probe({}, {r.expr(r.op(Op::stat_add, N, {r.num(1)}, gr)), r.print("%d\n", {r.op(Op::hist_bucket, L, {r.num(128)}, gr)})});
  CHECK(run_error(r) == "histogram index out of range");
}

// ---------------------------------------------------------------- foreach

namespace {

// foreach over global g: ints = {value_slot, column, direction, aggregate, hist, key slots...}
Node* foreach_node(Script& s, int64_t g, std::vector<int64_t> ints, Node* body, Node* limit = nullptr,
                   std::vector<Node*> slice = {}) {
  std::vector<Node*> kids{body, limit ? limit : s.nop()};
  kids.insert(kids.end(), slice.begin(), slice.end());
  Node* n = s.op(Op::foreach, N, kids, g);
  n->ints = std::move(ints);
  return n;
}

// a[1] = 30, a[2] = 10, a[3] = 20, a[4] = 10; prints "k=v " per iteration.
struct ArrayLoop {
  Script s;
  int64_t g;
  ArrayLoop() {
    g = static_cast<int64_t>(s.global({.name = "a", .type = L, .keys = {L}}));
  }
  std::string run(std::vector<int64_t> ints, Node* limit = nullptr) {
    std::vector<Node*> stmts;
    for (auto [k, v] : std::vector<std::pair<int64_t, int64_t>>{{1, 30}, {2, 10}, {3, 20}, {4, 10}})
      stmts.push_back(s.expr(s.op(Op::set_elem, L, {s.num(k), s.num(v)}, g)));
    stmts.push_back(foreach_node(s, g, std::move(ints), s.block({s.print("%d=%d ", {s.local(1, L), s.local(0, L)})}), limit));
    s.probe({L, L}, stmts);
    return s.output_of_run();
  }
};

}  // namespace

TEST_CASE("foreach over an array: sorted by value or key, either way, ties by key", "[interp]") {
  CHECK(ArrayLoop().run({0, 0, -1, 0, 0, 1}) == "1=30 3=20 2=10 4=10 ");
  CHECK(ArrayLoop().run({0, 0, 1, 0, 0, 1}) == "2=10 4=10 3=20 1=30 ");
  CHECK(ArrayLoop().run({0, 1, -1, 0, 0, 1}) == "4=10 3=20 2=10 1=30 ");
  CHECK(ArrayLoop().run({0, 1, 1, 0, 0, 1}) == "1=30 2=10 3=20 4=10 ");
}

TEST_CASE("foreach limit is evaluated once and counts iterations", "[interp]") {
  ArrayLoop l;
  CHECK(l.run({0, 0, -1, 0, 0, 1}, l.s.num(2)) == "1=30 3=20 ");
  ArrayLoop z;
  CHECK(z.run({0, 0, -1, 0, 0, 1}, z.s.num(0)).empty());
}

TEST_CASE("foreach unsorted visits every element once, in map order", "[interp]") {
  ArrayLoop l;
  std::string out = l.run({0, 0, 0, 0, 0, 1});
  for (const char* part : {"1=30 ", "2=10 ", "3=20 ", "4=10 "}) CHECK(out.find(part) != std::string::npos);
  CHECK(out.size() == 20);
}

TEST_CASE("foreach over a slice; the limit counts skipped elements as stap does", "[interp]") {
  auto run = [](Node* (*limit)(Script&)) {
    Script s;
    auto g = static_cast<int64_t>(s.global({.name = "a", .type = L, .keys = {L, S}}));
    std::vector<Node*> stmts;
    for (auto [k1, k2] : std::vector<std::pair<int64_t, const char*>>{{1, "x"}, {1, "y"}, {2, "x"}})
      stmts.push_back(s.expr(s.op(Op::set_elem, L, {s.num(k1), s.str(k2), s.num(k1)}, g)));
    stmts.push_back(foreach_node(s, g, {-1, 1, 1, 0, 0, 0, 1},
                                 s.block({s.print("%d%s ", {s.local(0, L), s.local(1, S)})}), limit(s),
                                 {s.leaf(Op::any, N), s.str("x")}));
    s.probe({L, S}, stmts);
    return s.output_of_run();
  };
  CHECK(run([](Script&) -> Node* { return nullptr; }) == "1x 2x ");
  CHECK(run([](Script& s) { return s.num(2); }) == "1x ");
}

TEST_CASE("foreach break, and return from a function inside a foreach", "[interp]") {
  Script s;
  auto g = static_cast<int64_t>(s.global({.name = "a", .type = L, .keys = {L}}));
  ir::Function f{.name = "first_over", .ret = L, .param_count = 1, .slots = {L, L}};
  Node* test = s.op(Op::if_, N, {s.op(Op::gt, L, {s.local(1, L), s.local(0, L)}), s.op(Op::ret, N, {s.local(1, L)}), s.nop()});
  f.body = s.block({foreach_node(s, g, {-1, 1, 1, 0, 0, 1}, s.block({test})), s.op(Op::ret, N, {s.num(-1)})});
  auto fi = static_cast<int64_t>(s.function(f));
  std::vector<Node*> stmts;
  for (int64_t k = 1; k <= 5; ++k) stmts.push_back(s.expr(s.op(Op::set_elem, L, {s.num(k), s.num(0)}, g)));
  Node* brk = s.op(Op::if_, N, {s.op(Op::eq, L, {s.local(0, L), s.num(3)}), s.leaf(Op::brk, N), s.nop()});
  stmts.push_back(foreach_node(s, g, {-1, 1, 1, 0, 0, 0}, s.block({brk, s.print("%d", {s.local(0, L)})})));
  stmts.push_back(s.print(" %d %d\n", {s.op(Op::call, L, {s.num(2)}, fi), s.op(Op::call, L, {s.num(9)}, fi)}));
  s.probe({L}, stmts);
  CHECK(s.output_of_run() == "12 3 -1\n");
}

TEST_CASE("foreach over a statistic array sorts by @count unless told", "[interp]") {
  auto run = [](int64_t direction, ir::StatOp agg) {
    Script s;
    auto g = static_cast<int64_t>(s.global({.name = "st", .type = Type::stats, .keys = {S}}));
    std::vector<Node*> stmts;
    // "a": 3 values summing 3; "b": 1 value of 100; "c": 2 values summing 20
    for (auto [k, v] : std::vector<std::pair<const char*, int64_t>>{{"a", 1}, {"a", 1}, {"a", 1}, {"b", 100}, {"c", 10}, {"c", 10}})
      stmts.push_back(s.expr(s.op(Op::stat_add, N, {s.str(k), s.num(v)}, g)));
    Node* count = s.op(Op::stat_get, L, {s.local(0, S)}, g, static_cast<int64_t>(ir::StatOp::count));
    stmts.push_back(foreach_node(s, g, {-1, 0, direction, static_cast<int64_t>(agg), 0, 0},
                                 s.block({s.print("%s%d ", {s.local(0, S), count})})));
    s.probe({S}, stmts);
    return s.output_of_run();
  };
  CHECK(run(-1, ir::StatOp::count) == "a3 c2 b1 ");
  CHECK(run(-1, ir::StatOp::sum) == "b1 c2 a3 ");
  CHECK(run(1, ir::StatOp::max) == "a3 c2 b1 ");
  CHECK(run(1, ir::StatOp::avg) == "a3 c2 b1 ");
}

TEST_CASE("foreach over histogram buckets visits every bucket with its count", "[interp]") {
  Script s;
  ir::Global h{.name = "h", .type = Type::stats, .keys = {L}};
  h.hist = ir::HistShape{ir::HistShape::Kind::linear, 0, 10, 5};  // 5 buckets
  auto g = static_cast<int64_t>(s.global(h));
  std::vector<Node*> stmts;
  for (int64_t v : {-3, 7, 8, 100}) stmts.push_back(s.expr(s.op(Op::stat_add, N, {s.num(1), s.num(v)}, g)));
  stmts.push_back(foreach_node(s, g, {1, 0, 0, 0, 2, 0}, s.block({s.print("%d:%d ", {s.local(0, L), s.local(1, L)})}),
                               nullptr, {s.num(1)}));
  stmts.push_back(s.print("| ", {}));
  stmts.push_back(foreach_node(s, g, {1, 0, 0, 0, 2, 0}, s.block({s.print("%d:%d ", {s.local(0, L), s.local(1, L)})}),
                               s.num(2), {s.num(1)}));
  s.probe({L, L}, stmts);
  CHECK(s.output_of_run() == "0:1 1:0 2:2 3:0 4:1 | 0:1 1:0 ");
}

// ---------------------------------------------------------------- builtins

namespace {

std::string one(Type t, const std::string& name, std::function<std::vector<Node*>(Script&)> args,
                const std::string& fmt = "") {
  Script s;
  Node* call = s.builtin(name, t, args(s));
  s.probe({}, {s.print(fmt.empty() ? (t == S ? "%s" : "%d") : fmt, {call})});
  return s.output_of_run();
}

}  // namespace

TEST_CASE("string builtins behave as stap's tapset functions", "[interp]") {
  using A = std::vector<Node*>;
  CHECK(one(L, "strlen", [](Script& s) { return A{s.str("hello")}; }) == "5");
  CHECK(one(S, "substr", [](Script& s) { return A{s.str("hello"), s.num(1), s.num(3)}; }) == "ell");
  CHECK(one(S, "substr", [](Script& s) { return A{s.str("hello"), s.num(5), s.num(3)}; }).empty());
  CHECK(one(S, "substr", [](Script& s) { return A{s.str("hello"), s.num(-1), s.num(3)}; }).empty());
  CHECK(one(L, "isinstr", [](Script& s) { return A{s.str("hello"), s.str("ll")}; }) == "1");
  CHECK(one(L, "strpos", [](Script& s) { return A{s.str("hello"), s.str("lo")}; }) == "3");
  CHECK(one(L, "strpos", [](Script& s) { return A{s.str("hello"), s.str("x")}; }) == "-1");
  CHECK(one(S, "str_replace", [](Script& s) { return A{s.str("a-b-c"), s.str("-"), s.str("+=")}; }) == "a+=b+=c");
  CHECK(one(L, "stringat", [](Script& s) { return A{s.str("abc"), s.num(1)}; }) == "98");
  CHECK(one(S, "text_str", [](Script& s) { return A{s.str("a\"\n\xc3\xa9")}; }) == "a\\\"\\n\\u00E9");
  CHECK(one(S, "text_str", [](Script& s) { return A{s.str("\\\x01")}; }) == "\\\\\\001");
  // 15 bytes of output at most; an escape that does not fit ends it
  CHECK(one(S, "text_str", [](Script& s) { return A{s.str("0123456789ab\xc3\xa9")}; }) == "0123456789ab");
  CHECK(one(S, "string_quoted", [](Script& s) { return A{s.str("abc")}; }) == "\"abc\"");
  // MAXSTRINGLEN 16: at most 15 bytes, the last three as "...
  CHECK(one(S, "string_quoted", [](Script& s) { return A{s.str("0123456789abcdefgh")}; }) == "\"0123456789\"...");
  CHECK(one(S, "text_strn", [](Script& s) { return A{s.str("abcdefgh"), s.num(8), s.num(1)}; }) == "\"abc\"...");
  CHECK(one(S, "text_strn", [](Script& s) { return A{s.str("abcdef"), s.num(8), s.num(1)}; }) == "\"abcdef\"");
  CHECK(one(S, "text_strn", [](Script& s) { return A{s.str("abcdef"), s.num(3), s.num(0)}; }) == "abc");
  CHECK(one(L, "strtol", [](Script& s) { return A{s.str("-0x1fz"), s.num(16)}; }) == "-31");
  CHECK(one(L, "strtol", [](Script& s) { return A{s.str("017"), s.num(0)}; }) == "15");
  CHECK(one(L, "strtol", [](Script& s) { return A{s.str("12ab"), s.num(10)}; }) == "12");
  CHECK(one(L, "isdigit", [](Script& s) { return A{s.str("7a")}; }) == "1");
  CHECK(one(L, "isdigit", [](Script& s) { return A{s.str("")}; }) == "0");
  CHECK(one(S, "errno_str", [](Script& s) { return A{s.num(-2)}; }) == "ENOENT");
  CHECK(one(S, "ctime", [](Script& s) { return A{s.num(0)}; }) == "Thu Jan  1 00:00:00 1970");
  CHECK(one(S, "ctime", [](Script& s) { return A{s.num(1700000000)}; }) == "Tue Nov 14 22:13:20 2023");
  CHECK(one(L, "MAJOR", [](Script& s) { return A{s.builtin("MKDEV", L, {s.num(8), s.num(17)})}; }) == "8");
  CHECK(one(L, "MINOR", [](Script& s) { return A{s.builtin("MKDEV", L, {s.num(8), s.num(17)})}; }) == "17");
}

TEST_CASE("stringat out of range is stap's error", "[interp]") {
  Script s;
  s.probe({}, {s.print("%d", {s.builtin("stringat", L, {s.str("abc"), s.num(3)})})});
  CHECK(run_error(s) == "Position out of bounds");
}

TEST_CASE("tokenize keeps its input between calls and skips empty tokens", "[interp]") {
  Script s;
  auto tok = [&](std::vector<Node*> a) { return s.builtin("tokenize", S, std::move(a)); };
  s.probe({}, {s.print("%s|%s|%s|%s|\n", {tok({s.str(",a,,b c"), s.str(", ")}), tok({s.str(""), s.str(", ")}),
                                          tok({s.str(", ")}), tok({s.str(", ")})})});
  CHECK(s.output_of_run() == "a|b|c||\n");
}

TEST_CASE("context builtins in user context are the runtime's own", "[interp]") {
  using A = std::vector<Node*>;
  CHECK(one(L, "pid", [](Script&) { return A{}; }) == std::to_string(getpid()));
  CHECK(one(L, "target", [](Script&) { return A{}; }) == "4242");
  CHECK(one(S, "pp", [](Script&) { return A{}; }) == "begin");
  CHECK(one(S, "ppfunc", [](Script&) { return A{}; }).empty());
  CHECK_FALSE(one(S, "execname", [](Script&) { return A{}; }).empty());
  CHECK(std::stoll(one(L, "gettimeofday_s", [](Script&) { return A{}; })) > 1600000000);
}

TEST_CASE("regular expressions: =~, !~, matched() and ngroups()", "[interp]") {
  Script s;
  Node* m = s.op(Op::regex_match, L, {s.str("key=value")});
  m->s = "^([a-z]+)=(v(x)?[a-z]*)$";
  Node* not_m = s.op(Op::regex_match, L, {s.str("abc")}, 0, 1);
  not_m->s = "^b";
  s.probe({}, {s.print("%d %d %s %s [%s] %d\n", {not_m, m, s.builtin("matched", S, {s.num(1)}), s.builtin("matched", S, {s.num(2)}),
                                                 s.builtin("matched", S, {s.num(3)}), s.builtin("ngroups", L, {})})});
  CHECK(s.output_of_run() == "1 1 key value [] 4\n");
}

TEST_CASE("log, assert and builtins that need kernel context", "[interp]") {
  Script s;
  s.probe({}, {s.expr(s.builtin("log", N, {s.str("logged")})),
               s.expr(s.builtin("assert", N, {s.num(1)})),
               s.expr(s.at(s.builtin("assert", N, {s.num(0), s.str("it failed")}), "identifier 'assert' at t.stp:1:1"))});
  CHECK(run_error(s) == "it failed near identifier 'assert' at t.stp:1:1");
  CHECK(s.output() == "logged\n");

  Script k;
  k.probe({}, {k.print("%s", {k.builtin("usymname", S, {k.num(0)})})});
  CHECK(run_error(k).find("usymname() cannot run in a begin, end, error or timer probe") == 0);
}

TEST_CASE("user_* readers read the runtime's own memory", "[interp]") {
  static const int64_t number = -1234567;
  static const char text[] = "own text";
  Script s;
  s.probe({}, {s.print("%d %s %d|", {s.builtin("user_long", L, {s.num(int64_t(&number))}),
                                     s.builtin("user_string", S, {s.num(int64_t(text))}),
                                     s.builtin("user_long", L, {s.num(16)})})});
  s.run();
  CHECK(s.output() == "-1234567 own text 0|");
  Script f;
  f.probe({}, {f.print("%s", {f.builtin("user_string", S, {f.num(16)})})});
  CHECK(run_error(f) == "user string copy fault at 0x10 [man error::fault]");
}

TEST_CASE("kernel symbols from kallsyms: symname, symdata, print_stack", "[interp]") {
  std::ifstream in("/proc/kallsyms");
  std::string addr, type, name;
  uint64_t vfs_read = 0;
  while (in >> addr >> type >> name) {
    in.ignore(1 << 20, '\n');
    if (name == "vfs_read" && (type == "T" || type == "t")) vfs_read = std::stoull(addr, nullptr, 16);
  }
  if (vfs_read == 0) {
    WARN("no vfs_read in /proc/kallsyms: symbol lookups not checked");
    return;
  }
  using A = std::vector<Node*>;
  auto a = static_cast<int64_t>(vfs_read);
  CHECK(one(S, "symname", [&](Script& s) { return A{s.num(a)}; }) == "vfs_read");
  CHECK(one(S, "symname", [&](Script& s) { return A{s.num(1)}; }) == "0x1");
  Script big;
  big.m.limits.maxstringlen = 128;
  big.probe({}, {big.print("%s\n", {big.builtin("symdata", S, {big.num(a + 16)})}),
                 big.expr(big.builtin("print_stack", N, {big.str("0x" + hex_of(vfs_read) + " 0x1")}))});
  std::string out = big.output_of_run();
  INFO(out);
  CHECK(out.starts_with("vfs_read+0x10/0x"));
  CHECK(out.find(" [kernel]\n 0x" + hex_of(vfs_read) + " : vfs_read+0x0/0x") != std::string::npos);
  CHECK(out.ends_with(" [kernel]\n 0x1 : 0x1\n"));
}

// ---------------------------------------------------------------- hostile modules

TEST_CASE("modules read from mutated bytes run without crashing", "[interp]") {
  // A module using most opcodes, serialised, then mutated at random; each
  // mutant the reader accepts is run.  Errors are fine, crashes are not.
  Script s;
  auto a = static_cast<int64_t>(s.global({.name = "a", .type = L, .keys = {L, S}}));
  ir::Global h{.name = "h", .type = Type::stats, .keys = {L}};
  h.hist = ir::HistShape{ir::HistShape::Kind::linear, 0, 10, 5};
  auto gh = static_cast<int64_t>(s.global(h));
  auto gs = static_cast<int64_t>(s.global({.name = "gs", .type = S}));
  ir::Function f{.name = "f", .ret = S, .param_count = 1, .slots = {L}};
  f.body = s.block({s.op(Op::ret, N, {s.op(Op::sprintf, S, {s.local(0, L)}, s.m.add_format("<%d>"))})});
  auto fi = static_cast<int64_t>(s.function(f));
  Node* loop_body = s.block({s.expr(s.op(Op::set_elem, L, {s.local(0, L), s.str("k"), s.local(0, L)}, a)),
                             s.expr(s.op(Op::stat_add, N, {s.num(1), s.op(Op::mul, L, {s.local(0, L), s.num(3)})}, gh))});
  Node* loop = s.op(Op::loop, N, {s.op(Op::lt, L, {s.local(0, L), s.num(6)}), loop_body,
                                  s.expr(s.set_local(0, s.op(Op::add, L, {s.local(0, L), s.num(1)})))});
  Node* each = foreach_node(s, a, {2, 0, -1, 0, 0, 0, 1},
                            s.block({s.print("%d %s %d\n", {s.local(0, L), s.local(1, S), s.local(2, L)})}), s.num(4));
  Node* hist = foreach_node(s, gh, {2, 0, 0, 0, 2, 0}, s.block({s.print("%d:%d ", {s.local(0, L), s.local(2, L)})}),
                            nullptr, {s.num(1)});
  Node* t = s.op(Op::try_, N, {s.block({s.expr(s.op(Op::div, L, {s.num(1), s.op(Op::sub, L, {s.local(0, L), s.num(6)})}))}),
                               s.block({s.print("%s\n", {s.local(1, S)})})}, 1);
  Node* m = s.op(Op::regex_match, L, {s.op(Op::concat, S, {s.str("ab"), s.op(Op::call, S, {s.num(7)}, fi)})});
  m->s = "b<([0-9]+)>";
  s.probe({L, S, L}, {loop, each, hist, t, s.expr(s.op(Op::set_global, S, {s.builtin("substr", S, {s.str("hello"), s.num(1), s.num(2)})}, gs)),
                      s.print("%d %s\n", {m, s.builtin("matched", S, {s.num(1)})}), s.expr(s.op(Op::print_hist, N, {s.num(1)}, gh)),
                      s.expr(s.op(Op::delete_elem, N, {s.leaf(Op::any, N), s.str("k")}, a))});
  CHECK(s.output_of_run().find("0 k 0\n") == std::string::npos);  // sorted descending, limit 4
  const std::string bytes = ir::serialize(s.m);
  {
    ir::Module back;
    std::string error;
    REQUIRE(ir::deserialize(bytes, back, error));
  }

  uint64_t seed = 12345;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull, seed >> 33; };
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bad = bytes;
    for (uint64_t k = 0, n = 1 + next() % 3; k < n; ++k) bad[next() % bad.size()] = static_cast<char>(next());
    ir::Module mutant;
    std::string error;
    if (!ir::deserialize(bad, mutant, error)) continue;
    mutant.limits.maxaction = std::min<int64_t>(mutant.limits.maxaction, 2000);
    if (mutant.limits.maxmapentries > 100000) continue;  // would only test the kernel's memory
    ++accepted;
    std::optional<GlobalStore> store;
    try {
      store.emplace(GlobalStore::create_maps(mutant));
    } catch (const std::exception&) {
      continue;  // a map the kernel refuses (say a huge value): not the interpreter's case
    }
    char* buf = nullptr;
    size_t len = 0;
    std::FILE* out = open_memstream(&buf, &len);
    {
      Interpreter interp(mutant, *store, InterpreterHost{.out = out});
      for (size_t p = 0; p < mutant.probes.size(); ++p) interp.run_probe(p);
    }
    std::fclose(out);
    std::free(buf);
  }
  CHECK(accepted > 50);
}

TEST_CASE("jiffies, HZ and module_name", "[interp]") {
  using A = std::vector<Node*>;
  CHECK(std::stoll(one(L, "jiffies", [](Script&) { return A{}; })) > 0);
  int64_t hz = std::stoll(one(L, "HZ", [](Script&) { return A{}; }));
  CHECK((hz == 100 || hz == 250 || hz == 300 || hz == 1000));
  CHECK(one(S, "module_name", [](Script&) { return A{}; }) == "stap");
}

TEST_CASE("aggregates in a probe merge every CPU's values", "[interp]") {
  Script s;
  auto g = static_cast<int64_t>(s.global({.name = "st", .type = Type::stats}));
  auto agg = [&](ir::StatOp op) { return s.leaf(Op::stat_get, L, g, static_cast<int64_t>(op)); };
  s.probe({}, {s.expr(s.op(Op::stat_add, N, {s.num(4)}, g)),
               s.print("%d %d %d %d %d\n", {agg(ir::StatOp::count), agg(ir::StatOp::sum), agg(ir::StatOp::min),
                                             agg(ir::StatOp::max), agg(ir::StatOp::avg)})});
  GlobalStore& store = s.store();
  const int cpus = store.possible_cpus();
  if (cpus < 2) {
    WARN("one possible CPU: per-CPU merging not checked");
    return;
  }
  const size_t stride = (s.m.globals[0].value_size + 7) & ~size_t{7};
  std::vector<char> values(stride * static_cast<size_t>(cpus), 0);
  auto* cpu1 = reinterpret_cast<stap_stat*>(values.data() + stride);
  cpu1->count = 2, cpu1->sum = 20, cpu1->min = 8, cpu1->max = 12, cpu1->sum_squares = 208;
  uint32_t zero = 0;
  REQUIRE(bpf_map_update_elem(store.map_fd(0), &zero, values.data(), BPF_ANY) == 0);
  CHECK(s.output_of_run() == "3 24 4 12 8\n");
}

TEST_CASE("MAXACTION counts as stap: a loop iteration and each body statement", "[interp]") {
  // for (i = 0; i < N; i++) x++  costs 1 (init) + 1 (loop) + 2 per
  // iteration + 1 (the last test); MAXACTION 100 gives stap's
  // MAXACTION_INTERRUPTIBLE of 1000 actions, which is too many.
  auto run = [](int64_t n) {
    Script s;
    s.m.limits.maxaction = 100;
    auto x = static_cast<int64_t>(s.global({.name = "x", .type = L}));
    Node* loop = s.op(Op::loop, N, {s.op(Op::lt, L, {s.local(0, L), s.num(n)}),
                                    s.block({s.expr(s.op(Op::add_global, L, {s.num(1)}, x, 1))}),
                                    s.expr(s.set_local(0, s.op(Op::add, L, {s.local(0, L), s.num(1)})))});
    s.probe({L}, {s.block({s.expr(s.set_local(0, s.num(0))), loop})});
    return s.run().error;
  };
  CHECK_FALSE(run(498));  // 2 + 996 + 1 = 999 actions
  CHECK(run(499));        // 2 + 998 + 1 = 1001
}
