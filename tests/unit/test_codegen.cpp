// Code generation (compiler/codegen): hand-built IR modules become BPF
// objects that the kernel's verifier must accept; behaviour is checked by
// attaching syscall tracepoints, calling the syscalls from the test, and
// reading maps and ring-buffer records with libbpf directly.  Needs root
// and tracefs, as every live test of this project does.
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <thread>

#include "codegen_fixture.h"

using namespace codegen_test;

TEST_CASE("codegen: long arithmetic wraps as C, division by zero is stap's error", "[codegen]") {
  Builder t;
  size_t q = t.global("q", Type::long_), r = t.global("r", Type::long_);
  size_t mn = t.global("mn", Type::long_), sh = t.global("sh", Type::long_);
  size_t after = t.global("after", Type::long_);
  Node* zero_div = t.bin(Op::div, t.num(1), t.bin(Op::sub, t.num(2), t.num(2)));
  zero_div->loc = t.m.add_location("operator '/' at <test>:1:1");
  t.probe(t.block({
      t.set_global(q, t.bin(Op::div, t.num(-7), t.num(2))),
      t.set_global(r, t.bin(Op::mod, t.num(-7), t.num(3))),
      t.set_global(mn, t.bin(Op::div, t.num(INT64_MIN), t.bin(Op::sub, t.num(0), t.num(1)))),
      t.set_global(sh, t.bin(Op::add, t.bin(Op::shl, t.num(1), t.num(65)),
                             t.bin(Op::mul, t.num(INT64_MAX), t.num(2)))),
      t.expr(zero_div),
      t.set_global(after, t.num(1)),
  }));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(q) == -3);
  CHECK(l.get_long(r) == -1);
  CHECK(l.get_long(mn) == INT64_MIN);
  CHECK(l.get_long(sh) == 2 + (INT64_MAX * 2ull));
  CHECK(l.get_long(after) == 0);  // the error ended the probe
  CHECK(l.header().errors == 1);
  std::vector<Record> recs = l.records();
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].kind == STAP_REC_ERROR);
  CHECK(recs[0].id == zero_div->loc);
  CHECK(cstr(recs[0].payload) == "division by 0");
  CHECK(recs[0].payload.size() == size_t(t.m.limits.maxstringlen));
}

TEST_CASE("codegen: concurrent ++ on a global and an array element loses nothing", "[codegen]") {
  Builder t;
  size_t c = t.global("c", Type::long_);
  size_t a = t.global("a", Type::long_, {Type::string});
  size_t old = t.global("old", Type::long_);
  t.probe(t.block({
      t.expr(t.node(Op::add_global, Type::long_, {t.num(1)}, int64_t(c), 1)),
      t.set_global(old, t.node(Op::add_elem, Type::long_, {t.str("k"), t.num(2)}, int64_t(a), 1)),
  }));
  Loaded l(t.m);
  constexpr int kThreads = 4, kCalls = 20000;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([] { for (int j = 0; j < kCalls; ++j) fire(); });
  for (auto& th : threads) th.join();
  CHECK(l.get_long(c) == kThreads * kCalls);
  CHECK(l.get_long(old) == 2 * (kThreads * kCalls - 1));  // x++ yields the old value
  char key[128] = "k";
  int64_t v = 0;
  REQUIRE(bpf_map_lookup_elem(l.fd(t.m.globals[a].map_name), key, &v) == 0);
  CHECK(v == 2 * kThreads * kCalls);
}

TEST_CASE("codegen: strings in scratch: concat, compare, strlen, string globals", "[codegen]") {
  Builder t;
  size_t s = t.global("s", Type::string);
  size_t eq = t.global("eq", Type::long_), lt = t.global("lt", Type::long_);
  size_t len = t.global("len", Type::long_), cut = t.global("cut", Type::long_);
  // local 0 = "ab" . "cd"; local 0 .= local 0 (8 chars); long cut at MAXSTRINGLEN - 1
  Node* set0 = t.node(Op::set_local, Type::string, {t.bin(Op::concat, t.str("ab"), t.str("cd"), Type::string)}, 0);
  Node* loc0 = t.node(Op::local, Type::string, {}, 0);
  Node* dbl = t.node(Op::set_local, Type::string, {t.bin(Op::concat, loc0, loc0, Type::string)}, 0);
  std::string long_text(200, 'x');
  t.probe(t.block({
      t.expr(set0),
      t.set_global(eq, t.bin(Op::str_eq, loc0, t.str("abcd"))),
      t.set_global(lt, t.bin(Op::add, t.bin(Op::str_lt, loc0, t.str("abd")),
                             t.bin(Op::mul, t.num(10), t.bin(Op::str_lt, t.str("abd"), loc0)))),
      t.expr(dbl),
      t.set_global(s, loc0),
      t.set_global(len, t.call_builtin("strlen", Type::long_, {loc0})),
      t.set_global(cut, t.call_builtin("strlen", Type::long_,
                                       {t.bin(Op::concat, t.str(long_text), t.str("y"), Type::string)})),
  }), {Type::string});
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(eq) == 1);
  CHECK(l.get_long(lt) == 1);
  CHECK(l.get_string(s) == "abcdabcd");
  CHECK(l.get_long(len) == 8);
  CHECK(l.get_long(cut) == t.m.limits.maxstringlen - 1);
}

TEST_CASE("codegen: arrays with mixed long/string keys", "[codegen]") {
  Builder t;
  size_t a = t.global("a", Type::long_, {Type::long_, Type::string});
  size_t names = t.global("names", Type::string, {Type::long_});
  size_t got = t.global("got", Type::long_), in1 = t.global("in1", Type::long_);
  size_t in2 = t.global("in2", Type::long_), missing = t.global("missing", Type::string);
  auto elem = [&](size_t g, std::vector<Node*> k) {
    return t.node(Op::elem, t.m.globals[g].type, std::move(k), int64_t(g));
  };
  t.probe(t.block({
      t.expr(t.node(Op::set_elem, Type::long_, {t.num(1), t.str("x"), t.num(5)}, int64_t(a))),
      t.expr(t.node(Op::add_elem, Type::long_, {t.num(1), t.str("x"), t.num(2)}, int64_t(a))),
      t.expr(t.node(Op::set_elem, Type::long_, {t.num(2), t.str("y"), t.num(3)}, int64_t(a))),
      t.expr(t.node(Op::delete_elem, Type::none, {t.num(2), t.str("y")}, int64_t(a))),
      t.expr(t.node(Op::set_elem, Type::string, {t.num(7), t.str("seven")}, int64_t(names))),
      t.set_global(got, elem(a, {t.num(1), t.str("x")})),
      t.set_global(in1, t.node(Op::in_elem, Type::long_, {t.num(1), t.str("x")}, int64_t(a))),
      t.set_global(in2, t.node(Op::in_elem, Type::long_, {t.num(2), t.str("y")}, int64_t(a))),
      t.set_global(missing, t.bin(Op::concat, elem(names, {t.num(7)}), elem(names, {t.num(8)}), Type::string)),
  }));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(got) == 7);
  CHECK(l.get_long(in1) == 1);
  CHECK(l.get_long(in2) == 0);
  CHECK(l.get_string(missing) == "seven");
  std::vector<char> key(t.m.globals[a].key_size, 0);
  int64_t one = 1;
  std::memcpy(key.data(), &one, 8);
  key[8] = 'x';
  int64_t v = 0;
  REQUIRE(bpf_map_lookup_elem(l.fd(t.m.globals[a].map_name), key.data(), &v) == 0);
  CHECK(v == 7);
}

TEST_CASE("codegen: statistics per CPU, merged in kernel context", "[codegen]") {
  Builder t;
  size_t st = t.global("st", Type::stats);
  t.m.globals[st].hist.kind = ir::HistShape::Kind::log;
  size_t by = t.global("by", Type::stats, {Type::string});
  size_t empty = t.global("empty", Type::stats);
  size_t cnt = t.global("cnt", Type::long_), sum = t.global("sum", Type::long_);
  size_t mn = t.global("mn", Type::long_), mx = t.global("mx", Type::long_);
  size_t avg = t.global("avg", Type::long_), b4 = t.global("b4", Type::long_);
  size_t bysum = t.global("bysum", Type::long_), caught = t.global("caught", Type::string);
  size_t range = t.global("range", Type::string);
  size_t var = t.global("var", Type::long_), bigvar = t.global("bigvar", Type::long_);
  size_t big = t.global("big", Type::stats);
  const int64_t huge[] = {INT64_MAX / 3, -(INT64_MAX / 5), 123456789012345, INT64_MAX / 7};
  auto get = [&](size_t g, ir::StatOp op, std::vector<Node*> keys = {}) {
    return t.node(Op::stat_get, Type::long_, std::move(keys), int64_t(g), int64_t(op));
  };
  Node* bad = get(empty, ir::StatOp::min);
  t.probe(t.block({
      t.expr(t.node(Op::stat_add, Type::none, {t.num(5)}, int64_t(st))),
      t.expr(t.node(Op::stat_add, Type::none, {t.num(-3)}, int64_t(st))),
      t.expr(t.node(Op::stat_add, Type::none, {t.num(10)}, int64_t(st))),
      t.expr(t.node(Op::stat_add, Type::none, {t.str("k"), t.num(4)}, int64_t(by))),
      t.set_global(cnt, get(st, ir::StatOp::count)),
      t.set_global(sum, get(st, ir::StatOp::sum)),
      t.set_global(mn, get(st, ir::StatOp::min)),
      t.set_global(mx, get(st, ir::StatOp::max)),
      t.set_global(avg, get(st, ir::StatOp::avg)),
      // bucket of 4..7 in hist_log: 64 + 3
      t.set_global(b4, t.node(Op::hist_bucket, Type::long_, {t.num(67)}, int64_t(st))),
      t.set_global(bysum, get(by, ir::StatOp::sum, {t.str("k")})),
      t.node(Op::try_, Type::none, {t.expr(bad), t.set_global(caught, t.node(Op::local, Type::string, {}, 0))}, 0),
      t.set_global(var, get(st, ir::StatOp::variance)),
      t.expr(t.node(Op::stat_add, Type::none, {t.num(huge[0])}, int64_t(big))),
      t.expr(t.node(Op::stat_add, Type::none, {t.num(huge[1])}, int64_t(big))),
      t.expr(t.node(Op::stat_add, Type::none, {t.num(huge[2])}, int64_t(big))),
      t.expr(t.node(Op::stat_add, Type::none, {t.num(huge[3])}, int64_t(big))),
      t.set_global(bigvar, get(big, ir::StatOp::variance)),
      t.node(Op::try_, Type::none, {t.expr(t.node(Op::hist_bucket, Type::long_, {t.num(128)}, int64_t(st))),
                                    t.set_global(range, t.node(Op::local, Type::string, {}, 0))}, 0),
  }), {Type::string});
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(cnt) == 3);
  CHECK(l.get_long(sum) == 12);
  CHECK(l.get_long(mn) == -3);
  CHECK(l.get_long(mx) == 10);
  CHECK(l.get_long(avg) == 4);
  CHECK(l.get_long(b4) == 1);
  CHECK(l.get_long(bysum) == 4);
  CHECK(l.get_string(caught) == "empty aggregate");
  CHECK(l.get_string(range) == "histogram index out of range");
  CHECK(l.get_long(var) == (3 * 134 - 144) / 6);
  // The interpreter's formula (loader/interpreter.cpp), wrapping sums included.
  int64_t total = 0, squares = 0;
  for (int64_t v : huge) {
    total = int64_t(uint64_t(total) + uint64_t(v));
    squares = int64_t(uint64_t(squares) + uint64_t(v) * uint64_t(v));
  }
  __int128 n = 4;
  CHECK(l.get_long(bigvar) == int64_t((n * squares - __int128(total) * total) / (n * (n - 1))));
}

TEST_CASE("codegen: histogram buckets of run-time values", "[codegen]") {
  // Constant values let LLVM fold the bucket arithmetic; these cannot be.
  Builder t;
  size_t lg = t.global("lg", Type::stats), ln = t.global("ln", Type::stats);
  t.m.globals[lg].hist.kind = ir::HistShape::Kind::log;
  t.m.globals[ln].hist = {ir::HistShape::Kind::linear, 0, 100, 10};
  size_t b1 = t.global("b1", Type::long_), b2 = t.global("b2", Type::long_);
  Node* nr = t.node(Op::tp_field, Type::long_, {}, 8, 4, 1);  // __syscall_nr: 39
  t.probe(t.block({
      t.expr(t.node(Op::stat_add, Type::none, {nr}, int64_t(lg))),
      t.expr(t.node(Op::stat_add, Type::none, {t.node(Op::tp_field, Type::long_, {}, 8, 4, 1)}, int64_t(ln))),
      // 39: hist_log bucket 64 + 6; hist_linear bucket 1 + 39 / 10
      t.set_global(b1, t.node(Op::hist_bucket, Type::long_, {t.bin(Op::add, t.num(64), t.bin(Op::div, nr, t.num(6)))},
                              int64_t(lg))),
      t.set_global(b2, t.node(Op::hist_bucket, Type::long_, {t.bin(Op::sub, nr, t.num(35))}, int64_t(ln))),
  }));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(b1) == 1);
  CHECK(l.get_long(b2) == 1);
}

TEST_CASE("codegen: printf records carry longs and NUL-terminated strings", "[codegen]") {
  Builder t;
  uint32_t fmt = t.m.add_format("%d %s %d\n");
  t.probe(t.node(Op::printf, Type::none,
                 {t.num(-42), t.bin(Op::concat, t.str("he"), t.str("llo"), Type::string), t.num(7)},
                 fmt));
  Loaded l(t.m);
  fire();
  fire();
  std::vector<Record> recs = l.records();
  REQUIRE(recs.size() == 2);
  const size_t len = size_t(t.m.limits.maxstringlen);
  REQUIRE(recs[0].payload.size() == 8 + len + 8);
  CHECK(recs[0].kind == STAP_REC_PRINTF);
  CHECK(recs[0].id == fmt);
  int64_t a, c;
  std::memcpy(&a, recs[0].payload.data(), 8);
  std::memcpy(&c, recs[0].payload.data() + 8 + len, 8);
  CHECK(a == -42);
  CHECK(cstr(recs[0].payload, 8) == "hello");
  CHECK(c == 7);
}

TEST_CASE("codegen: try/catch, errors raised in called functions, error()", "[codegen]") {
  Builder t;
  size_t msg = t.global("msg", Type::string), ret = t.global("ret", Type::long_);
  size_t after = t.global("after", Type::long_);
  // function f(x:long, s:string) { if (x) error(s . "!") ; return x * 2 }
  ir::Function f;
  f.name = "f";
  f.ret = Type::long_;
  f.param_count = 2;
  f.slots = {Type::long_, Type::string};
  Node* x = t.node(Op::local, Type::long_, {}, 0);
  Node* s = t.node(Op::local, Type::string, {}, 1);
  f.body = t.block({
      t.node(Op::if_, Type::none, {x, t.expr(t.node(Op::error, Type::none,
                                                     {t.bin(Op::concat, s, t.str("!"), Type::string)})),
                                   t.node(Op::nop, Type::none)}),
      t.node(Op::ret, Type::none, {t.bin(Op::mul, x, t.num(2))}),
  });
  t.m.functions.push_back(std::move(f));
  auto call = [&](int64_t v, const char* text) {
    return t.node(Op::call, Type::long_, {t.num(v), t.str(text)}, 0);
  };
  // h(a) = a * 2; g(n) = h(n) + h(h(n)): calls nested in a return value
  ir::Function h;
  h.name = "h";
  h.ret = Type::long_;
  h.param_count = 1;
  h.slots = {Type::long_};
  h.body = t.node(Op::ret, Type::none, {t.bin(Op::mul, t.node(Op::local, Type::long_, {}, 0), t.num(2))});
  t.m.functions.push_back(std::move(h));
  auto call_h = [&](Node* a) { return t.node(Op::call, Type::long_, {a}, 1); };
  ir::Function g;
  g.name = "g";
  g.ret = Type::long_;
  g.param_count = 1;
  g.slots = {Type::long_};
  Node* n0 = t.node(Op::local, Type::long_, {}, 0);
  g.body = t.node(Op::ret, Type::none, {t.bin(Op::add, call_h(n0), call_h(call_h(n0)))});
  t.m.functions.push_back(std::move(g));
  size_t nested = t.global("nested", Type::long_);
  Node* catch_msg = t.node(Op::local, Type::string, {}, 0);
  t.probe(t.block({
      t.set_global(ret, call(0, "no")),
      t.set_global(nested, t.node(Op::call, Type::long_, {t.node(Op::call, Type::long_, {t.num(1)}, 2)}, 2)),
      t.node(Op::try_, Type::none, {t.expr(call(1, "boom")), t.set_global(msg, catch_msg)}, 0),
      t.set_global(after, t.num(1)),
  }), {Type::string});
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(ret) == 0);
  CHECK(l.get_long(nested) == 12 + 24);  // g(g(1)) = g(6)
  CHECK(l.get_string(msg) == "boom!");
  CHECK(l.get_long(after) == 1);
  CHECK(l.header().errors == 0);
}

TEST_CASE("codegen: loops are bounded by MAXACTION", "[codegen]") {
  Builder t;
  t.m.limits.maxaction = 100;
  size_t sum = t.global("sum", Type::long_), forever = t.global("forever", Type::long_);
  size_t caught = t.global("caught", Type::long_);
  Node* i = t.node(Op::local, Type::long_, {}, 0);
  Node* inc = t.expr(t.node(Op::set_local, Type::long_, {t.bin(Op::add, i, t.num(1))}, 0));
  Node* body = t.expr(t.node(Op::add_global, Type::long_, {i}, int64_t(sum)));
  Node* brk = t.node(Op::if_, Type::none, {t.bin(Op::ge, i, t.num(5)), t.node(Op::brk, Type::none),
                                           t.node(Op::nop, Type::none)});
  Node* spin = t.node(Op::loop, Type::none, {t.node(Op::nop, Type::none),
                                             t.expr(t.node(Op::add_global, Type::long_, {t.num(1)}, int64_t(forever))),
                                             t.node(Op::nop, Type::none)});
  spin->loc = t.m.add_location("keyword at <test>:2:1");
  t.probe(t.block({
      t.node(Op::loop, Type::none, {t.bin(Op::lt, i, t.num(10)), t.block({brk, body}), inc}),
      // try/catch cannot catch MAXACTION (as in stap)
      t.node(Op::try_, Type::none, {spin, t.set_global(caught, t.num(1))}, -1),
  }), {Type::long_});
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(sum) == 0 + 1 + 2 + 3 + 4);
  // 6 iterations of the first loop counted, then the spin loop until 100
  CHECK(l.get_long(forever) == 100 - 6);
  CHECK(l.get_long(caught) == 0);
  std::vector<Record> recs = l.records();
  REQUIRE(recs.size() == 1);
  CHECK(cstr(recs[0].payload) == "MAXACTION exceeded");
  CHECK(recs[0].id == spin->loc);
}

TEST_CASE("codegen: context builtins, sprintf, tracepoint fields, user_string", "[codegen]") {
  Builder t;
  size_t ppid = t.global("ppid", Type::long_), exe = t.global("exe", Type::string);
  size_t nr = t.global("nr", Type::long_), sp = t.global("sp", Type::string);
  size_t path = t.global("path", Type::string), uid = t.global("uid", Type::long_);
  size_t euid = t.global("euid", Type::long_), pp = t.global("pp", Type::string);
  t.probe(t.block({
      t.set_global(ppid, t.call_builtin("ppid", Type::long_)),
      t.set_global(exe, t.call_builtin("execname", Type::string)),
      t.set_global(uid, t.call_builtin("uid", Type::long_)),
      t.set_global(euid, t.call_builtin("euid", Type::long_)),
      t.set_global(pp, t.call_builtin("pp", Type::string)),
      t.set_global(nr, t.node(Op::tp_field, Type::long_, {}, 8, 4, 1)),
      t.set_global(sp, t.node(Op::sprintf, Type::string, {t.num(-42), t.str("x"), t.num(255)},
                              t.m.add_format("%5d|%-3s|%#x"))),
  }));
  // openat's filename pointer is at offset 24 of its record.
  t.probe(t.set_global(path, t.call_builtin("user_string", Type::string,
                                            {t.node(Op::tp_field, Type::long_, {}, 24, 8, 0)})),
          {}, "sys_enter_openat");
  Loaded l(t.m);
  fire();
  int fd = open("/etc/hostname", O_RDONLY);
  if (fd >= 0) close(fd);
  char comm[17] = {};
  prctl(PR_GET_NAME, comm);
  CHECK(l.get_long(ppid) == getppid());
  CHECK(l.get_string(exe) == comm);
  CHECK(l.get_long(uid) == getuid());
  CHECK(l.get_long(euid) == geteuid());
  CHECK(l.get_string(pp) == "kernel.trace(\"syscalls:sys_enter_getpid\")");
  CHECK(l.get_long(nr) == SYS_getpid);
  CHECK(l.get_string(sp) == "  -42|x  |0xff");
  CHECK(l.get_string(path) == "/etc/hostname");
}

TEST_CASE("codegen: char[N] and __data_loc tracepoint fields, pexecname", "[codegen]") {
  Builder t;
  size_t comm = t.global("comm", Type::string), adj = t.global("adj", Type::long_);
  size_t file = t.global("file", Type::string), parent = t.global("parent", Type::string);
  t.probe(t.block({t.set_global(comm, t.node(Op::tp_chars, Type::string, {}, 12, 16)),
                   t.set_global(adj, t.node(Op::tp_field, Type::long_, {}, 44, 2, 1))}),
          {}, "task_rename", "task");
  // The exec'ing child is ours when its parent is this process.
  Node* child = t.bin(Op::eq, t.call_builtin("ppid", Type::long_), t.call_builtin("target", Type::long_));
  t.probe(t.block({t.set_global(file, t.node(Op::tp_dataloc, Type::string, {}, 8)),
                   t.set_global(parent, t.call_builtin("pexecname", Type::string))}),
          {}, "sched_process_exec", "sched", child);
  Loaded l(t.m);
  char old_name[17] = {};
  prctl(PR_GET_NAME, old_name);
  prctl(PR_SET_NAME, "codegen-0123456789");  // cut to 15 characters by the kernel
  prctl(PR_SET_NAME, old_name);  // the last rename: oldcomm is the new name
  CHECK(l.get_string(comm) == "codegen-0123456");
  CHECK(l.get_long(adj) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/true", "true", nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(l.get_string(file) == "/bin/true");
  CHECK(l.get_string(parent) == old_name);
}

TEST_CASE("codegen: exit and print_hist records, full and wrapping arrays", "[codegen]") {
  Builder t;
  size_t small = t.global("small", Type::long_, {Type::long_});
  t.m.globals[small].max_entries = 2;
  size_t wrap = t.global("wrap", Type::long_, {Type::long_});
  t.m.globals[wrap].max_entries = 2;
  t.m.globals[wrap].wrap = true;
  size_t h = t.global("h", Type::stats, {Type::string});
  t.m.globals[h].hist.kind = ir::HistShape::Kind::linear;
  t.m.globals[h].hist.low = 0;
  t.m.globals[h].hist.high = 10;
  t.m.globals[h].hist.step = 2;
  size_t done = t.global("done", Type::long_);
  std::vector<Node*> body;
  for (int i = 1; i <= 3; ++i) body.push_back(t.expr(t.node(Op::set_elem, Type::long_, {t.num(i), t.num(i)}, int64_t(wrap))));
  body.push_back(t.expr(t.node(Op::stat_add, Type::none, {t.str("k"), t.num(3)}, int64_t(h))));
  body.push_back(t.node(Op::print_hist, Type::none, {t.str("k")}, int64_t(h)));
  body.push_back(t.node(Op::exit, Type::none));
  for (int i = 1; i <= 3; ++i) {
    Node* set = t.node(Op::set_elem, Type::long_, {t.num(i), t.num(i)}, int64_t(small));
    set->loc = t.m.add_location("identifier 'small' at <test>:3:" + std::to_string(i));
    body.push_back(t.expr(set));
  }
  body.push_back(t.set_global(done, t.num(1)));
  t.probe(t.block(body));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(done) == 0);
  CHECK(l.header().exit_requested == 1);
  CHECK(l.header().state == STAP_STATE_STOPPING);
  fire();  // runs no body any more: no second exit record

  CHECK(l.header().errors == 1);
  std::vector<Record> recs = l.records();
  REQUIRE(recs.size() == 3);
  CHECK(recs[0].kind == STAP_REC_PRINT_HIST);
  CHECK(recs[0].id == h);
  CHECK(recs[0].payload == std::string("k") + std::string(t.m.limits.maxstringlen - 1, '\0'));
  CHECK(recs[1].kind == STAP_REC_EXIT);
  CHECK(recs[2].kind == STAP_REC_ERROR);
  CHECK(cstr(recs[2].payload) == "Array overflow, check size limit (2)");
  CHECK(recs[2].id == t.m.locations.size() - 1);
  // The linear histogram counted 3 in bucket 1 + 3/2 = 2, on this CPU.
  std::vector<char> key(t.m.globals[h].key_size, 0);
  key[0] = 'k';
  int ncpus = libbpf_num_possible_cpus();
  size_t vsize = (t.m.globals[h].value_size + 7) & ~size_t(7);
  std::vector<char> values(vsize * size_t(ncpus));
  REQUIRE(bpf_map_lookup_elem(l.fd(t.m.globals[h].map_name), key.data(), values.data()) == 0);
  int64_t count = 0, bucket2 = 0;
  for (int c = 0; c < ncpus; ++c) {
    const auto* s = reinterpret_cast<const stap_stat*>(values.data() + vsize * size_t(c));
    count += s->count;
    bucket2 += s->buckets[2];
  }
  CHECK(count == 1);
  CHECK(bucket2 == 1);
}

TEST_CASE("codegen: memory faults are stap's errors, user_long's is 0", "[codegen]") {
  Builder t;
  size_t k = t.global("k", Type::string), u = t.global("u", Type::string);
  size_t ul = t.global("ul", Type::long_), fallback = t.global("fallback", Type::string);
  Node* msg = t.node(Op::local, Type::string, {}, 0);
  auto caught = [&](Node* e, size_t g) {
    return t.node(Op::try_, Type::none, {t.expr(e), t.set_global(g, msg)}, 0);
  };
  t.probe(t.block({
      caught(t.call_builtin("kernel_long", Type::long_, {t.num(0)}), k),
      caught(t.call_builtin("user_string", Type::string, {t.num(16)}), u),
      t.set_global(ul, t.bin(Op::add, t.num(5), t.call_builtin("user_long", Type::long_, {t.num(0)}))),
      t.set_global(fallback, t.call_builtin("user_string", Type::string, {t.num(16), t.str("<bad>")})),
  }), {Type::string});
  Loaded l(t.m);
  fire();
  CHECK(l.get_string(k) == "kernel long copy fault at 0x0 [man error::fault]");
  CHECK(l.get_string(u) == "user string copy fault at 0x10 [man error::fault]");
  CHECK(l.get_long(ul) == 5);
  CHECK(l.get_string(fallback) == "<bad>");
}

TEST_CASE("codegen: what kernel context cannot run is an error, not an object", "[codegen]") {
  auto fails = [](Builder& t, const std::string& words) {
    CodegenResult r = generate_object(t.m, CodegenOptions{});
    CHECK_FALSE(r.ok);
    CHECK(r.object.empty());
    CHECK_THAT(r.error, Catch::Contains(words));
  };
  {
    Builder t;
    t.probe(t.node(Op::sprintf, Type::string, {t.num(1)}, t.m.add_format("%.3d")));
    fails(t, "needs user context");
  }
  {
    Builder t;
    size_t a = t.global("a", Type::long_, {Type::long_});
    t.probe(t.node(Op::foreach, Type::none, {t.node(Op::nop, Type::none), t.node(Op::nop, Type::none)}, int64_t(a)));
    fails(t, "foreach needs user context");
  }
  {
    Builder t;
    ir::Function f;
    f.name = "r";
    f.recursive = true;
    f.body = t.node(Op::nop, Type::none);
    t.m.functions.push_back(std::move(f));
    t.probe(t.expr(t.node(Op::call, Type::none, {}, 0)));
    fails(t, "recursive");
  }
}

TEST_CASE("codegen: -p3 text names each probe; program names are set", "[codegen]") {
  Builder t;
  t.probe(t.expr(t.call_builtin("pid", Type::long_)));
  ir::Probe begin;
  begin.pp = "begin";
  t.m.probes.push_back(std::move(begin));
  CodegenResult r = generate_object(t.m, CodegenOptions{true});
  REQUIRE(r.ok);
  CHECK(t.m.probes[0].program_name == "probe_0");
  CHECK(t.m.probes[1].program_name.empty());
  CHECK_THAT(r.ir_text, Catch::StartsWith("; probe kernel.trace(\"syscalls:sys_enter_getpid\")\n"));
  CHECK_THAT(r.ir_text, Catch::Contains("define dso_local noundef i32 @probe_0(ptr"));
}

TEST_CASE("codegen: sprintf through bpf_snprintf prints as the runtime's formatter", "[codegen]") {
  struct Case {
    const char* format;
    std::vector<PrintfValue> args;
  };
  const std::vector<Case> cases = {
      {"%d|%i|%u", {PrintfValue::of(-5), PrintfValue::of(7), PrintfValue::of(-1)}},
      {"%x|%X|%#x|%#X|%p", {PrintfValue::of(255), PrintfValue::of(-2), PrintfValue::of(0),
                            PrintfValue::of(171), PrintfValue::of(4096)}},
      {"[%5d][%-5d][%05d][%+d][% d][%+u]", {PrintfValue::of(42), PrintfValue::of(-42), PrintfValue::of(-42),
                                            PrintfValue::of(3), PrintfValue::of(3), PrintfValue::of(3)}},
      {"[%8s][%-8s][%s]", {PrintfValue::of("ab"), PrintfValue::of("cd"), PrintfValue::of("")}},
      {"[%.2s][%-6.3s][%.0s][%.9s]", {PrintfValue::of("abcdef"), PrintfValue::of("abcdef"),
                                      PrintfValue::of("gone"), PrintfValue::of("short")}},
      {"%c%c%3c|100%%", {PrintfValue::of('o'), PrintfValue::of('k'), PrintfValue::of('!')}},
      {"%ld %lu %lx", {PrintfValue::of(INT64_MIN), PrintfValue::of(INT64_MIN), PrintfValue::of(INT64_MIN)}},
      {"%200d", {PrintfValue::of(1)}},  // cut at MAXSTRINGLEN - 1
  };
  Builder t;
  std::vector<size_t> outs;
  std::vector<Node*> body;
  for (const Case& c : cases) {
    std::vector<Node*> kids;
    for (const PrintfValue& v : c.args) kids.push_back(v.is_string ? t.str(v.text) : t.num(v.number));
    size_t g = t.global("s" + std::to_string(outs.size()), Type::string);
    outs.push_back(g);
    body.push_back(t.set_global(g, t.node(Op::sprintf, Type::string, kids, t.m.add_format(c.format))));
  }
  t.probe(t.block(body));
  Loaded l(t.m);
  fire();
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<PrintfPiece> pieces;
    std::string err;
    REQUIRE(parse_printf_format(cases[i].format, pieces, err));
    INFO(cases[i].format);
    CHECK(l.get_string(outs[i]) == format_sprintf(pieces, cases[i].args, size_t(t.m.limits.maxstringlen)));
  }
}

TEST_CASE("codegen: string work inside loops stays within the verifier's budget", "[codegen]") {
  Builder t;  // MAXACTION 1000, MAXSTRINGLEN 128
  size_t hits = t.global("hits", Type::long_), last = t.global("last", Type::string);
  Node* i = t.node(Op::local, Type::long_, {}, 0);
  Node* j = t.node(Op::local, Type::long_, {}, 1);
  Node* s = t.node(Op::local, Type::string, {}, 2);
  auto set_long = [&](size_t slot, Node* v) { return t.expr(t.node(Op::set_local, Type::long_, {v}, int64_t(slot))); };
  Node* inner = t.node(Op::loop, Type::none, {t.bin(Op::lt, j, t.num(3)),
      t.block({
          t.node(Op::if_, Type::none, {t.bin(Op::str_eq, s, t.str("ab")),
                                       t.expr(t.node(Op::add_global, Type::long_, {t.num(1)}, int64_t(hits))),
                                       t.node(Op::nop, Type::none)}),
          t.expr(t.node(Op::set_local, Type::string, {t.bin(Op::concat, s, t.str("b"), Type::string)}, 2)),
      }),
      set_long(1, t.bin(Op::add, j, t.num(1)))});
  Node* outer = t.node(Op::loop, Type::none, {t.bin(Op::lt, i, t.num(20)),
      t.block({set_long(1, t.num(0)),
               t.expr(t.node(Op::set_local, Type::string, {t.str("a")}, 2)), inner}),
      set_long(0, t.bin(Op::add, i, t.num(1)))});
  t.probe(t.block({outer, t.set_global(last, s)}), {Type::long_, Type::long_, Type::string});
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(hits) == 20);
  CHECK(l.get_string(last) == "abbb");
}

TEST_CASE("codegen: delete of whole arrays, statistics and scalars", "[codegen]") {
  Builder t;
  size_t a = t.global("a", Type::long_, {Type::long_});
  size_t st = t.global("st", Type::stats);
  t.m.globals[st].hist.kind = ir::HistShape::Kind::log;
  size_t sa = t.global("sa", Type::stats, {Type::long_});
  size_t x = t.global("x", Type::long_), s = t.global("s", Type::string);
  size_t left = t.global("left", Type::long_), cnt = t.global("cnt", Type::long_);
  size_t scnt = t.global("scnt", Type::long_);
  std::vector<Node*> body;
  for (int i = 0; i < 5; ++i) {
    body.push_back(t.expr(t.node(Op::set_elem, Type::long_, {t.num(i), t.num(i)}, int64_t(a))));
    body.push_back(t.expr(t.node(Op::stat_add, Type::none, {t.num(i)}, int64_t(st))));
    body.push_back(t.expr(t.node(Op::stat_add, Type::none, {t.num(i), t.num(i)}, int64_t(sa))));
  }
  body.push_back(t.set_global(x, t.num(9)));
  body.push_back(t.set_global(s, t.str("nine")));
  for (size_t g : {a, st, sa, x, s}) body.push_back(t.node(Op::clear_global, Type::none, {}, int64_t(g)));
  body.push_back(t.set_global(left, t.node(Op::in_elem, Type::long_, {t.num(3)}, int64_t(a))));
  body.push_back(t.set_global(cnt, t.node(Op::stat_get, Type::long_, {}, int64_t(st), int64_t(ir::StatOp::count))));
  body.push_back(t.set_global(scnt, t.node(Op::stat_get, Type::long_, {t.num(2)}, int64_t(sa), int64_t(ir::StatOp::count))));
  t.probe(t.block(body));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(left) == 0);
  CHECK(l.get_long(cnt) == 0);
  CHECK(l.get_long(scnt) == 0);
  CHECK(l.get_long(x) == 0);
  CHECK(l.get_string(s).empty());
  int64_t key = 0, next = 0;
  CHECK(bpf_map_get_next_key(l.fd(t.m.globals[a].map_name), nullptr, &next) != 0);
  CHECK(bpf_map_get_next_key(l.fd(t.m.globals[sa].map_name), nullptr, &key) != 0);
}
