// Code generation, continued (see test_codegen.cpp for the method): memory
// dumps, slices, the string builtins against the interpreter's results,
// odd MAXSTRINGLENs, shared programs, and bounds known only at run time --
// the cases real scripts found.  Needs root and tracefs.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "codegen_fixture.h"

using namespace codegen_test;

namespace {
char user_bytes[] = "Hello, memory";
}

TEST_CASE("codegen: printf %m/%M records carry the bytes read at the address", "[codegen]") {
  Builder t;
  uint32_t fmt = t.m.add_format("%#.5m|%d|%.3M\n");
  t.probe(t.node(Op::printf, Type::none,
                 {t.num(int64_t(reinterpret_cast<uintptr_t>(user_bytes))), t.num(7), t.num(0)}, fmt));
  Loaded l(t.m);
  fire();
  std::vector<Record> recs = l.records();
  REQUIRE(recs.size() == 1);
  const std::string& p = recs[0].payload;
  REQUIRE(p.size() == 8 + 5 + 8 + 8 + 3);
  int64_t addr, seven, zero;
  std::memcpy(&addr, p.data(), 8);
  std::memcpy(&seven, p.data() + 13, 8);
  std::memcpy(&zero, p.data() + 21, 8);
  CHECK(addr == int64_t(reinterpret_cast<uintptr_t>(user_bytes)));
  CHECK(p.substr(8, 5) == "Hello");
  CHECK(seven == 7);
  CHECK(zero == 0);
  CHECK(p.substr(29, 3) == std::string(3, '\0'));  // a fault reads as zeros
}

TEST_CASE("codegen: array slices in kernel context, in and delete on statistic arrays", "[codegen]") {
  Builder t;
  size_t b = t.global("b", Type::long_, {Type::string, Type::long_});
  size_t sa = t.global("sa", Type::stats, {Type::string});
  size_t r1 = t.global("r1", Type::long_), r2 = t.global("r2", Type::long_);
  size_t r3 = t.global("r3", Type::long_), r4 = t.global("r4", Type::long_);
  size_t r5 = t.global("r5", Type::long_), r6 = t.global("r6", Type::long_);
  auto any = [&] { return t.node(Op::any, Type::none); };
  auto set = [&](const char* s, int64_t k) {
    return t.expr(t.node(Op::set_elem, Type::long_, {t.str(s), t.num(k), t.num(1)}, int64_t(b)));
  };
  auto in = [&](Node* k1, Node* k2) { return t.node(Op::in_elem, Type::long_, {k1, k2}, int64_t(b)); };
  t.probe(t.block({
      set("p", 1), set("p", 2), set("q", 1), set("r", 5),
      t.expr(t.node(Op::delete_elem, Type::none, {t.str("p"), any()}, int64_t(b))),
      t.set_global(r1, t.bin(Op::add, in(t.str("p"), any()), t.bin(Op::mul, t.num(10), in(t.str("q"), any())))),
      t.set_global(r2, in(any(), t.num(5))),
      t.expr(t.node(Op::delete_elem, Type::none, {any(), t.num(5)}, int64_t(b))),
      t.set_global(r3, t.bin(Op::add, in(any(), t.num(5)), t.bin(Op::mul, t.num(10), in(any(), any())))),
      t.expr(t.node(Op::stat_add, Type::none, {t.str("k"), t.num(1)}, int64_t(sa))),
      t.expr(t.node(Op::stat_add, Type::none, {t.str("l"), t.num(2)}, int64_t(sa))),
      t.expr(t.node(Op::delete_elem, Type::none, {t.str("k")}, int64_t(sa))),
      t.set_global(r4, t.node(Op::in_elem, Type::long_, {t.str("k")}, int64_t(sa))),
      t.set_global(r5, t.node(Op::in_elem, Type::long_, {t.str("l")}, int64_t(sa))),
      t.set_global(r6, t.node(Op::in_elem, Type::long_, {any()}, int64_t(sa))),
  }));
  Loaded l(t.m);
  fire();
  CHECK(l.get_long(r1) == 10);  // ["p",*] gone, ["q",*] there
  CHECK(l.get_long(r2) == 1);
  CHECK(l.get_long(r3) == 10);  // [*,5] gone, ["q",1] left
  CHECK(l.get_long(r4) == 0);
  CHECK(l.get_long(r5) == 1);
  CHECK(l.get_long(r6) == 1);
}

TEST_CASE("codegen: string and odd builtins behave as the interpreter's", "[codegen]") {
  Builder t;
  size_t sub = t.global("sub", Type::string), edge = t.global("edge", Type::string);
  size_t at = t.global("at", Type::long_), oob = t.global("oob", Type::string);
  size_t dig = t.global("dig", Type::long_), asrt = t.global("asrt", Type::string);
  size_t rnd = t.global("rnd", Type::long_), wide = t.global("wide", Type::string);
  size_t clk = t.global("clk", Type::long_), jif = t.global("jif", Type::long_);
  Node* msg = t.node(Op::local, Type::string, {}, 0);
  auto b = [&](const char* name, Type ty, std::vector<Node*> args) { return t.call_builtin(name, ty, std::move(args)); };
  auto caught = [&](Node* e, size_t g) { return t.node(Op::try_, Type::none, {t.expr(e), t.set_global(g, msg)}, 0); };
  t.probe(t.block({
      t.set_global(sub, b("substr", Type::string, {t.str("hello world"), t.num(6), t.num(3)})),
      t.set_global(edge, t.bin(Op::concat, b("substr", Type::string, {t.str("abc"), t.num(3), t.num(1)}),
                               b("substr", Type::string, {t.str("abc"), t.num(1), t.num(99)}), Type::string)),
      t.set_global(at, b("stringat", Type::long_, {t.str("xyz"), t.num(2)})),
      caught(b("stringat", Type::long_, {t.str("xyz"), t.num(3)}), oob),
      t.set_global(dig, t.bin(Op::add, b("isdigit", Type::long_, {t.str("7a")}),
                              t.bin(Op::mul, t.num(10), b("isdigit", Type::long_, {t.str("a7")})))),
      caught(b("assert", Type::none, {t.num(0)}), asrt),
      t.set_global(rnd, b("randint", Type::long_, {t.num(10)})),
      caught(b("randint", Type::long_, {t.num(2 * 1024 * 1024)}), wide),
      t.set_global(clk, b("local_clock_ns", Type::long_, {})),
      t.set_global(jif, b("jiffies", Type::long_, {})),
  }), {Type::string});
  Loaded l(t.m);
  fire();
  CHECK(l.get_string(sub) == "wor");
  CHECK(l.get_string(edge) == "bc");
  CHECK(l.get_long(at) == 'z');
  CHECK(l.get_string(oob) == "Position out of bounds");
  CHECK(l.get_long(dig) == 1);
  CHECK(l.get_string(asrt) == "Assertion failed");
  CHECK(l.get_long(rnd) >= 0);
  CHECK(l.get_long(rnd) < 10);
  CHECK(l.get_string(wide) == "range too wide");
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  CHECK(l.get_long(clk) > 0);
  CHECK(l.get_long(clk) <= ts.tv_sec * 1000000000LL + ts.tv_nsec);
  CHECK(l.get_long(jif) != 0);
}

TEST_CASE("codegen: a MAXSTRINGLEN that is not a multiple of 8", "[codegen]") {
  Builder t;
  t.m.limits.maxstringlen = 13;
  size_t a = t.global("a", Type::long_, {Type::string, Type::long_, Type::string});
  size_t s = t.global("s", Type::string), lt = t.global("lt", Type::long_);
  size_t got = t.global("got", Type::long_), slice = t.global("slice", Type::long_);
  size_t exe = t.global("exe", Type::string);
  t.probe(t.block({
      t.set_global(s, t.bin(Op::concat, t.str("abcdefgh"), t.str("ijklmnop"), Type::string)),
      t.set_global(lt, t.bin(Op::str_lt, t.get_global(s), t.str("abcdefghijkz"))),
      t.expr(t.node(Op::set_elem, Type::long_, {t.str("k"), t.num(2), t.str("xyz"), t.num(5)}, int64_t(a))),
      t.set_global(got, t.node(Op::elem, Type::long_, {t.str("k"), t.num(2), t.str("xyz")}, int64_t(a))),
      t.set_global(slice, t.node(Op::in_elem, Type::long_, {t.node(Op::any, Type::none), t.num(2), t.str("xyz")},
                                 int64_t(a))),
      t.set_global(exe, t.call_builtin("execname", Type::string)),
  }));
  Loaded l(t.m);
  fire();
  CHECK(l.get_string(s) == "abcdefghijkl");
  CHECK(l.get_long(lt) == 1);
  CHECK(l.get_long(got) == 5);
  CHECK(l.get_long(slice) == 1);
  char comm[17] = {};
  prctl(PR_GET_NAME, comm);
  CHECK(l.get_string(exe) == std::string(comm).substr(0, 12));
}

TEST_CASE("codegen: probes with the same body share one program", "[codegen]") {
  Builder t;
  size_t c = t.global("c", Type::long_), who = t.global("who", Type::string, {Type::string});
  auto body = [&] { return t.expr(t.node(Op::add_global, Type::long_, {t.num(1)}, int64_t(c))); };
  t.probe(body());
  t.probe(body(), {}, "sys_enter_openat");
  // pp() tells these two apart: a program each
  auto named = [&] {
    return t.expr(t.node(Op::set_elem, Type::string, {t.call_builtin("pp", Type::string), t.str("x")}, int64_t(who)));
  };
  t.probe(named());
  t.probe(named(), {}, "sys_enter_openat");
  CodegenResult text = generate_object(t.m, CodegenOptions{true});
  REQUIRE(text.ok);
  CHECK(t.m.probes[1].program_name == t.m.probes[0].program_name);
  CHECK(t.m.probes[3].program_name != t.m.probes[2].program_name);
  CHECK_THAT(text.ir_text, Catch::Contains("; runs probe_0, shown above"));
  Loaded l(t.m);
  CHECK(l.programs() == 3);
  fire();
  int fd = open("/etc/hostname", O_RDONLY);
  if (fd >= 0) close(fd);
  CHECK(l.get_long(c) == 2);
  for (int i : {2, 3}) {
    std::vector<char> key(t.m.globals[who].key_size, 0);
    std::memcpy(key.data(), t.m.probes[size_t(i)].pp.c_str(), t.m.probes[size_t(i)].pp.size());
    char value[128];
    CHECK(bpf_map_lookup_elem(l.fd(t.m.globals[who].map_name), key.data(), value) == 0);
  }
}

namespace {
char user_text[] = "user text";
}

TEST_CASE("codegen: lengths and positions known only at run time", "[codegen]") {
  // LLVM rewrites constant-free bounds checks in ways the verifier cannot
  // follow unless bpf_runtime keeps them opaque: each of these was refused.
  Builder t;
  size_t sub = t.global("sub", Type::string), un = t.global("un", Type::string);
  size_t kn = t.global("kn", Type::string), at = t.global("at", Type::long_);
  Node* nr = t.node(Op::tp_field, Type::long_, {}, 8, 4, 1);  // 39
  auto mod = [&](int64_t m) { return t.bin(Op::mod, t.node(Op::tp_field, Type::long_, {}, 8, 4, 1), t.num(m)); };
  Node* addr = t.num(int64_t(reinterpret_cast<uintptr_t>(user_text)));
  t.probe(t.block({
      t.set_global(sub, t.call_builtin("substr", Type::string, {t.str("abcdefgh"), mod(5), mod(7)})),
      t.set_global(un, t.call_builtin("user_string_n", Type::string, {addr, mod(6)})),
      t.set_global(kn, t.call_builtin("kernel_string_n", Type::string, {t.num(0), nr, t.str("fault")})),
      t.set_global(at, t.call_builtin("stringat", Type::long_, {t.str("abcdefgh"), mod(8)})),
  }));
  Loaded l(t.m);
  fire();
  CHECK(l.get_string(sub) == "efgh");  // substr(s, 4, 4)
  CHECK(l.get_string(un) == "use");    // 39 % 6 = 3 characters
  CHECK(l.get_string(kn) == "fault");
  CHECK(l.get_long(at) == 'h');
}
