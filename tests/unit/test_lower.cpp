// Pass 3, first half: scripts through passes 1-2 (Frontend) and
// lower_program, checked on the IR dump (ir/print.h) or on single nodes.
// kernel.trace cases read this machine's real tracefs.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <functional>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "driver/frontend.h"
#include "ir/key_codes.h"
#include "ir/print.h"
#include "lower/lower.h"
#include "lower_fixture.h"

namespace stap::test {

namespace {

Lowered lower(const std::string& script, LowerOptions options = {}) {
  Lowered out = lower_script(script, options);
  if (!out.elaborated) FAIL("pass 2 failed:\n" << out.messages);
  if (const char* dir = std::getenv("STAP_LOWER_DUMP")) {
    static int n = 0;
    std::ofstream(std::string(dir) + "/" + std::to_string(++n) + ".txt")
        << script << "\n----\n" << out.dump() << "----\n" << out.messages;
  }
  return out;
}

const ir::Global& global(const Lowered& l, const std::string& name) {
  for (const ir::Global& g : l.module.globals)
    if (g.name == name) return g;
  FAIL("no global " << name);
  return l.module.globals.at(0);
}

const ir::Node* find_in_probe(const Lowered& l, size_t probe, ir::Op op) {
  REQUIRE(l.module.probes.size() > probe);
  return find_op(l.module.probes[probe].body, op);
}

}  // namespace

TEST_CASE("lower: globals, keys, init values and layout", "[lower]") {
  Lowered l = lower(
      "global n = 5, s = \"x\", a[100], w%, st\n"
      "probe begin { a[\"k\", 1] = n; w[2] = s; st <<< 1; print(@count(st), a[\"k\",1], w[2]) }");
  REQUIRE(l.ok);
  REQUIRE(l.module.globals.size() == 5);
  const ir::Global& n = global(l, "n");
  CHECK(n.type == ir::Type::long_);
  CHECK(n.init_num == 5);
  CHECK(n.in_globals_map());
  CHECK(global(l, "s").init_str == "x");
  const ir::Global& a = global(l, "a");
  CHECK(a.keys == std::vector<ir::Type>{ir::Type::string, ir::Type::long_});
  CHECK(a.max_entries == 100);
  CHECK(!a.map_name.empty());
  // Every string used as a's first key is the literal "k": 8 bytes, not
  // MAXSTRINGLEN (ir::narrow_string_keys).
  CHECK(a.key_widths == std::vector<uint32_t>{8, 8});
  CHECK(a.key_size == 8 + 8);
  CHECK(global(l, "w").wrap);
  CHECK(global(l, "w").type == ir::Type::string);
  CHECK(global(l, "st").type == ir::Type::stats);
  CHECK(global(l, "st").hist.kind == ir::HistShape::Kind::none);
  // Every global's index is its position in module.globals.
  const ir::Node* set = find_in_probe(l, 0, ir::Op::set_elem);
  REQUIRE(set);
  CHECK(l.module.globals.at(set->a).name == "a");
}

TEST_CASE("lower: the first foreach the script wrote names an array's key columns", "[lower]") {
  Lowered l = lower(
      "@define loop(a) %( foreach ([_m1, _m2] in @a) {} %)\n"
      "global a, b, c\n"
      "probe begin { a[1, \"x\"] = 1; b[2] = 2; c[3] = 3; @loop(a)\n"
      "  foreach ([pid, name] in a) {} foreach ([other, more] in a) {} foreach (__x in c) {} }");
  REQUIRE(l.ok);
  // A macro's loop and a "__" name do not count; the first of the
  // script's own does, whatever comes later.
  CHECK(global(l, "a").key_names == std::vector<std::string>{"pid", "name"});
  CHECK(global(l, "a").key_label(1) == "name");
  CHECK(global(l, "b").key_names.empty());
  CHECK(global(l, "b").key_label(0) == "key1");
  CHECK(global(l, "c").key_names.empty());
}

TEST_CASE("lower: histogram shapes come from the @hist uses", "[lower]") {
  Lowered l = lower(
      "global a, b, c\n"
      "probe begin { a <<< 1; b <<< 2; c[1] <<< 3;\n"
      "  print(@hist_linear(a, 0, 100, 10)); print(@hist_log(b)); println(@hist_log(c[1])) }");
  REQUIRE(l.ok);
  const ir::HistShape& a = global(l, "a").hist;
  CHECK(a.kind == ir::HistShape::Kind::linear);
  CHECK(a.low == 0);
  CHECK(a.high == 100);
  CHECK(a.step == 10);
  CHECK(global(l, "b").hist.kind == ir::HistShape::Kind::log);
  CHECK(global(l, "c").hist.kind == ir::HistShape::Kind::log);
  // print and println of a histogram print it alone.
  std::string dump = l.dump();
  INFO(dump);
  CHECK(contains(dump, "    print_hist a  @ identifier 'print' at <input>:3:3\n"));
  CHECK(contains(dump, "      print_hist c  @ identifier 'println' at <input>:3:60\n"
                       "        num:long 1\n"));
  CHECK(!contains(dump, "printf"));
}

TEST_CASE("lower: @hist_log(x)[i] and stat_get", "[lower]") {
  Lowered l = lower(
      "global x\nprobe begin { x <<< 4; println(@hist_log(x)[3], @avg(x), @variance(x, 2)) }");
  REQUIRE(l.ok);
  const ir::Node* bucket = find_in_probe(l, 0, ir::Op::hist_bucket);
  REQUIRE(bucket);
  CHECK(bucket->a == 0);
  REQUIRE(bucket->kids.size() == 1);
  CHECK(bucket->kids[0]->a == 3);
  std::string dump = l.dump();
  INFO(dump);
  CHECK(contains(dump, "stat_get:long x @avg  @ operator '@avg' at <input>:2:49"));
  CHECK(contains(dump, "stat_get:long x @variance shift=2"));
}

TEST_CASE("lower: print family formats", "[lower]") {
  Lowered l = lower(
      "probe begin { x = 1; s = \"a\";\n"
      "  print(x, s); println(x, s); println();\n"
      "  printd(\",\", x, s); printdln(\"%d \", x, s, x);\n"
      "  t = sprint(x) . sprintln(s) . sprintd(\"-\", x, s) . sprintdln(\"+\", s, x);\n"
      "  printf(\"%5d|%-3s\\n\", x, s); u = sprintf(\"<%x>\", x); print(t, u) }");
  REQUIRE(l.ok);
  const auto& f = l.module.formats;
  std::vector<std::string> want = {"%d%s", "%d%s\n", "\n", "%d,%s", "%d%%d %s%%d %d\n",
                                   "%d", "%s\n", "%d-%s", "%s+%d\n", "%5d|%-3s\n", "<%x>", "%s%s"};
  for (const std::string& w : want) {
    INFO(w);
    CHECK(std::find(f.begin(), f.end(), w) != f.end());
  }
  const ir::Node* pf = find_in_probe(l, 0, ir::Op::printf);
  REQUIRE(pf);
  CHECK(l.module.formats[pf->a] == "%d%s");
  CHECK(pf->kids.size() == 2);
  CHECK(pf->loc != 0);
  const ir::Node* spf = find_in_probe(l, 0, ir::Op::sprintf);
  REQUIRE(spf);
  CHECK(spf->type == ir::Type::string);
}

TEST_CASE("lower: += and ++ on globals and elements are atomic adds", "[lower]") {
  Lowered l = lower(
      "global c, a\n"
      "probe begin { c += 2; c -= 1; ++c; x = c++; a[\"k\"] += 5; a[\"k\"]--; y = ++a[\"j\"];\n"
      "  z = 1; z += 3; w = z++; print(x, y, w, c, a[\"k\"]) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  CHECK(contains(dump, "add_global:long c new\n        num:long 2\n"));
  CHECK(contains(dump, "add_global:long c new\n        neg:long\n          num:long 1\n"));
  CHECK(contains(dump, "add_global:long c old\n          num:long 1\n"));
  CHECK(contains(dump, "add_elem:long a new  @ identifier 'a' at <input>:2:45\n"
                       "        str:string \"k\"\n        num:long 5\n"));
  CHECK(contains(dump, "add_elem:long a old  @ identifier 'a' at <input>:2:58\n"
                       "        str:string \"k\"\n        num:long -1\n"));
  // Locals: read, add, store; x++ yields the stored value minus the step.
  CHECK(contains(dump, "set_local:long $2\n        add:long\n          local:long $2\n"
                       "          num:long 3\n"));
  CHECK(contains(dump, "sub:long\n          set_local:long $2\n"));
}

TEST_CASE("lower: other compound assignments read, compute and store", "[lower]") {
  Lowered l = lower(
      "global g, s, a\n"
      "function k() { return 1 }\n"
      "probe begin { g *= 3; s .= \"x\"; a[1] /= 2; a[k()] %= 4; print(g, s, a[1]) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  CHECK(contains(dump, "set_global:long g\n        mul:long\n          global:long g\n"));
  CHECK(contains(dump, "set_global:string s\n        concat:string\n          global:string s\n"));
  CHECK(contains(dump, "set_elem:long a  @ identifier 'a' at <input>:3:33\n"
                       "        num:long 1\n        div:long  @ operator '/=' at <input>:3:38\n"));
  // A key with a side effect is evaluated once, into a temporary.
  CHECK(contains(dump, "    block\n      expr\n        set_local:long $0\n          call:long k\n"));
}

TEST_CASE("lower: <<<, in, delete and the '*' of slices", "[lower]") {
  Lowered l = lower(
      "global s, a, b\n"
      "probe begin { s[1] <<< 5; a[1, \"x\"] = 2; b = 3;\n"
      "  if ([1, *] in a) delete a[*, \"x\"]; delete a; delete b; print(@sum(s[1])) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  CHECK(contains(dump, "stat_add s\n        num:long 1\n        num:long 5\n"));
  CHECK(contains(dump, "in_elem:long a\n        num:long 1\n        any\n"));
  CHECK(contains(dump, "delete_elem a\n        any\n        str:string \"x\"\n"));
  CHECK(contains(dump, "clear_global a\n"));
  CHECK(contains(dump, "clear_global b\n"));
}

TEST_CASE("lower: loops, foreach ints, try/catch", "[lower]") {
  Lowered l = lower(
      "global a\n"
      "probe begin { a[1, \"x\"] = 2;\n"
      "  for (i = 0; i < 3; i++) { if (i == 1) continue; break }\n"
      "  while (0) next;\n"
      "  foreach ([k1, k2-] in a[*, \"x\"] limit 5) print(k1, k2);\n"
      "  foreach (v = [k1, k2] in a) print(v);\n"
      "  try { error(\"e\") } catch (msg) { print(msg) } }");
  REQUIRE(l.ok);
  const ir::Probe& p = l.module.probes[0];
  const ir::Node* fe = find_op(p.body, ir::Op::foreach);
  REQUIRE(fe);
  REQUIRE(fe->ints.size() == 7);
  CHECK(fe->ints[0] == -1);  // no value
  CHECK(fe->ints[1] == 2);   // sort on key 2
  CHECK(fe->ints[2] == -1);  // descending
  CHECK(fe->ints[4] == 0);   // not a histogram
  CHECK(p.slots.at(fe->ints[5]) == ir::Type::long_);
  CHECK(p.slots.at(fe->ints[6]) == ir::Type::string);
  REQUIRE(fe->kids.size() == 4);
  CHECK(fe->kids[1]->op == ir::Op::num);  // limit
  CHECK(fe->kids[2]->op == ir::Op::any);
  CHECK(fe->kids[3]->op == ir::Op::str);
  std::string dump = l.dump();
  INFO(dump);
  // Loops are located at their body's first token, jumps at their
  // keyword: where stap's MAXACTION check names them.
  CHECK(contains(dump, "foreach a value=- keys=$1,$2 sort=key2- aggregate=@count"
                       "  @ identifier 'print' at <input>:5:44\n"));
  CHECK(contains(dump, "foreach a value=$3 keys=$1,$2 aggregate=@count"
                       "  @ identifier 'print' at <input>:6:31\n"));
  CHECK(contains(dump, "    block\n      expr\n        set_local:long $0\n          num:long 0\n"
                       "      loop  @ operator '{' at <input>:3:27\n        lt:long\n"));
  CHECK(contains(dump, "    loop  @ keyword at <input>:4:13\n      num:long 0\n"
                       "      next  @ keyword at <input>:4:13\n      nop\n"));
  const ir::Node* t = find_op(p.body, ir::Op::try_);
  REQUIRE(t);
  CHECK(p.slots.at(t->a) == ir::Type::string);
  // error() carries no location: stap prints its message alone.
  CHECK(contains(dump, "    error\n"));
}

TEST_CASE("lower: operators by operand type, ternary, regex, >>>", "[lower]") {
  Lowered l = lower(
      "probe begin { s = \"a\"; x = 5; print(s < \"b\", x < 6, s == \"a\", x ? 1 : 2,\n"
      "  s =~ \"^a\", s !~ \"b\", x >>> 1, x / 2, x % 3, -x, !x, ~x, x && 1) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  CHECK(contains(dump, "str_lt:long\n"));
  CHECK(contains(dump, "    lt:long\n"));
  CHECK(contains(dump, "str_eq:long\n"));
  CHECK(contains(dump, "cond:long\n"));
  CHECK(contains(dump, "regex_match:long =~ \"^a\"\n"));
  CHECK(contains(dump, "regex_match:long !~ \"b\"\n"));
  CHECK(contains(dump, "div:long  @ operator '/' at <input>:2:35\n"));
  CHECK(contains(dump, "mod:long  @ operator '%' at <input>:2:42\n"));
  CHECK(contains(dump, "bit_and:long\n            shr:long\n"));
  CHECK(contains(dump, "log_and:long\n"));
}

TEST_CASE("lower: functions, slots and recursion", "[lower]") {
  Lowered l = lower(
      "function fact(n) { if (n <= 1) return 1; return n * fact(n - 1) }\n"
      "function twice:string (s:string) { t = s . s; return t }\n"
      "probe begin { print(fact(5), twice(\"a\")) }");
  REQUIRE(l.ok);
  const auto& fns = l.module.functions;
  REQUIRE(fns.size() == 2);
  auto by_name = [&](const std::string& n) -> const ir::Function& {
    for (const ir::Function& f : fns)
      if (f.name == n) return f;
    FAIL("no function " << n);
    return fns[0];
  };
  const ir::Function& fact = by_name("fact");
  CHECK(fact.recursive);
  CHECK(fact.param_count == 1);
  CHECK(fact.ret == ir::Type::long_);
  const ir::Function& twice = by_name("twice");
  CHECK(!twice.recursive);
  CHECK(twice.slots == std::vector<ir::Type>{ir::Type::string, ir::Type::string});
  CHECK(twice.ret == ir::Type::string);
}

TEST_CASE("lower: probe kinds, sequences and timer periods", "[lower]") {
  Lowered l = lower(
      "global n\n"
      "probe begin(-1) { n++ } probe end { n++ } probe error(3) { n++ } probe never { n++ }\n"
      "probe timer.ms(250) { n++ } probe timer.s(2).randomize(1) { n++ }\n"
      "probe timer.hz(4) { n++ } probe timer.jiffies(5) { n++ } probe timer.us(100) { n++ }\n"
      "probe begin if (n > 0) { n++ }\n");
  REQUIRE(l.ok);
  const auto& p = l.module.probes;
  REQUIRE(p.size() == 10);
  CHECK(std::get<ir::SessionSpec>(p[0].spec).event == ir::SessionSpec::Event::begin);
  CHECK(std::get<ir::SessionSpec>(p[0].spec).sequence == -1);
  CHECK(std::get<ir::SessionSpec>(p[1].spec).event == ir::SessionSpec::Event::end);
  CHECK(std::get<ir::SessionSpec>(p[2].spec).event == ir::SessionSpec::Event::error);
  CHECK(std::get<ir::SessionSpec>(p[2].spec).sequence == 3);
  CHECK(std::get<ir::SessionSpec>(p[3].spec).event == ir::SessionSpec::Event::never);
  CHECK(p[4].is<ir::TimerSpec>());
  CHECK(std::get<ir::TimerSpec>(p[4].spec).period_ns == 250000000);
  CHECK(std::get<ir::TimerSpec>(p[5].spec).period_ns == 2000000000);
  CHECK(std::get<ir::TimerSpec>(p[5].spec).randomize_ns == 1000000000);
  CHECK(std::get<ir::TimerSpec>(p[6].spec).period_ns == 250000000);
  CHECK(std::get<ir::TimerSpec>(p[7].spec).period_ns == 5 * 4000000);  // CONFIG_HZ assumed 250
  CHECK(std::get<ir::TimerSpec>(p[8].spec).period_ns == 100000);
  for (const ir::Probe& probe : p) CHECK(probe.context == ir::Context::user);
  CHECK(p[4].pp == "timer.ms(250)");
  // probe P if (cond): the body under an if.
  REQUIRE(p[9].body->kids.size() == 1);
  CHECK(p[9].body->kids[0]->op == ir::Op::if_);

  LowerOptions hz1000;
  hz1000.kernel_hz = 1000;
  Lowered k = lower("probe timer.jiffies(5) { exit() }", hz1000);
  REQUIRE(k.ok);
  CHECK(std::get<ir::TimerSpec>(k.module.probes[0].spec).period_ns == 5000000);
}

TEST_CASE("lower: process points outside the code forms are lowered", "[lower]") {
  // process.begin was this file's unsupported-family example; every
  // family lowers now (tests/unit/test_lower_process.cpp has the rest).
  Lowered l = lower("probe process.begin { exit() }");
  CHECK(l.ok);
  CHECK(!contains(l.messages, "is not supported yet by this engine"));
}

// ---------------------------------------------------------------- kernel.trace

TEST_CASE("lower: kernel.trace wildcards expand over tracefs", "[lower]") {
  Lowered l = lower("global n\nprobe kernel.trace(\"sched:sched_process_*\") { n++ }");
  REQUIRE(l.ok);
  const auto& p = l.module.probes;
  CHECK(p.size() >= 3);
  bool fork = false;
  for (const ir::Probe& probe : p) {
    REQUIRE(probe.is<ir::TracepointSpec>());
    const ir::TracepointSpec& tp = std::get<ir::TracepointSpec>(probe.spec);
    CHECK(probe.context == ir::Context::kernel);
    CHECK(tp.system == "sched");
    CHECK(tp.event.starts_with("sched_process_"));
    CHECK(probe.pp == "kernel.trace(\"sched:" + tp.event + "\")");
    fork = fork || tp.event == "sched_process_fork";
  }
  CHECK(fork);
  // A bare name searches every system.
  Lowered bare = lower("global n\nprobe kernel.trace(\"sched_switch\") { n++ }");
  REQUIRE(bare.ok);
  REQUIRE(bare.module.probes.size() == 1);
  CHECK(std::get<ir::TracepointSpec>(bare.module.probes[0].spec).system == "sched");
}

TEST_CASE("lower: kernel.trace with no match", "[lower]") {
  Lowered l = lower("global n\nprobe kernel.trace(\"nosuch:nothing_here\") { n++ }");
  CHECK(!l.ok);
  CHECK(l.messages ==
        "semantic error: while resolving probe point: identifier 'kernel' at <input>:2:7\n"
        "        source: probe kernel.trace(\"nosuch:nothing_here\") { n++ }\n"
        "                      ^\n\n"
        "semantic error: no match\n\n");
  Lowered opt = lower("global n\nprobe kernel.trace(\"nosuch:x\")? { n++ } probe begin { n++ }");
  CHECK(opt.ok);
  CHECK(opt.module.probes.size() == 1);
}

TEST_CASE("lower: syscalls:sys_enter_openat runs from raw sys_enter, args by C type", "[lower]") {
  Lowered l = lower(
      "probe kernel.trace(\"syscalls:sys_enter_openat\") {\n"
      "  printf(\"%d %x %d %d %d\\n\", $dfd, $filename, $flags, $mode, $__syscall_nr) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  // int dfd, const char *filename, int flags, umode_t mode.
  CHECK(contains(dump, "probe 0 syscall kernel kernel.trace(\"syscalls:sys_enter_openat\") "
                       "event=syscalls:sys_enter_openat nr=257"));
  CHECK(contains(dump, "sys_arg:long arg=0 size=4 signed\n"
                       "        sys_arg:long arg=1 size=8\n"
                       "        sys_arg:long arg=2 size=4 signed\n"
                       "        sys_arg:long arg=3 size=2\n"
                       "        sys_nr:long\n"));
}

TEST_CASE("lower: a syscall exit reads $return and the entry's arguments", "[lower]") {
  Lowered l = lower(
      "probe kernel.trace(\"syscalls:sys_exit_read\") { printf(\"%d %d %d %d\\n\", $fd, $count, "
      "$return, $ret) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  // unsigned int fd, size_t count.
  CHECK(contains(dump, "sys_arg:long arg=0 size=4\n"
                       "        sys_arg:long arg=2 size=8\n"
                       "        sys_ret:long\n"
                       "        sys_ret:long\n"));
  Lowered bad = lower("probe kernel.trace(\"syscalls:sys_exit_read\") { println($nope) }");
  CHECK(!bad.ok);
  CHECK(contains(bad.messages, "alternatives: $$parms, $$vars, $__syscall_nr, $ret, $return, $fd, $buf, $count, "));
  // Entry arguments in the exit probe of the raw event too: no, it has none.
  Lowered raw = lower("probe kernel.trace(\"raw_syscalls:sys_exit\") { println($id, $return) }");
  CHECK(raw.ok);
  CHECK(contains(raw.dump(), "sys_nr:long\n        sys_ret:long\n"));
}

TEST_CASE("lower: string keys are narrowed only when every use is bounded", "[lower]") {
  Lowered l = lower(
      "global c, d, e\n"
      "probe kernel.trace(\"sched:sched_switch\") { c[execname()]++; d[$prev_comm, \"x\"]++; "
      "e[sprint(pid())]++ }\n"
      "probe end { foreach (k in c) println(k, c[k]); foreach ([a, b] in d) println(a, d[a, b]) }");
  REQUIRE(l.ok);
  CHECK(global(l, "c").key_widths == std::vector<uint32_t>{16});   // comm: 15 + NUL
  CHECK(global(l, "d").key_widths == std::vector<uint32_t>{16, 8});
  CHECK(global(l, "e").key_widths == std::vector<uint32_t>{128});  // unknown: full
  // A lookup with an unbounded key keeps the full width.
  Lowered u = lower("global c\nprobe begin { c[\"a\"] = 1; println(c[sprintf(\"%d\", 5)]) }");
  REQUIRE(u.ok);
  CHECK(global(u, "c").key_widths == std::vector<uint32_t>{128});
  // Literals only: coded (ir/key_codes.h), an 8-byte code per string.
  Lowered v = lower("global c\nprobe begin { c[\"a\"] = 1; println(c[\"abcdefghijklmnopq\"]) }");
  REQUIRE(v.ok);
  CHECK(global(v, "c").key_widths == std::vector<uint32_t>{8});
  CHECK(global(v, "c").coded_keys == std::vector<uint8_t>{1});
  CHECK(v.module.key_literals == std::vector<std::string>{"a", "abcdefghijklmnopq"});
}

TEST_CASE("lower: syscall.* counted by name keys the array by the call's number", "[lower]") {
  Lowered l = lower(
      "global c, d\n"
      "probe kernel.trace(\"syscalls:sys_enter_write\") { n = \"write\"; c[n]++ }\n"
      "probe kernel.trace(\"syscalls:sys_enter_read\") { m = \"other\"; c[m]++; d[sprint(m)] = 1 }\n"
      "probe end { foreach (k in c) println(k, c[k], c[\"openat\"]) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  // write's literal names its own call: the key becomes syscall_name(<its
  // number>) and the assignment, read by nothing else, goes.  read's
  // literal is some other string: forwarded as it is.
  CHECK(contains(dump, "    nop\n    expr\n      add_elem:long c old  @ identifier 'c' at "
                       "<input>:2:63\n        builtin:string syscall_name\n"
                       "          sys_nr:long\n"));
  CHECK(contains(dump, "add_elem:long c old  @ identifier 'c' at <input>:3:62\n"
                       "        str:string \"other\"\n"));
  CHECK(global(l, "c").coded_keys == std::vector<uint8_t>{1});
  CHECK(global(l, "c").key_size == 8);
  CHECK(global(l, "d").coded_keys.empty());  // a computed key: a string
  CHECK(l.module.key_literals == std::vector<std::string>{"other"});
  CHECK(ir::key_code(l.module, "write") == std::optional<int64_t>(1));
  CHECK(ir::key_code(l.module, "openat") == std::optional<int64_t>(257));
  CHECK(ir::key_code(l.module, "other") == std::optional<int64_t>(ir::kLiteralBase));
  CHECK(ir::key_code(l.module, "") == std::optional<int64_t>(-1));
  CHECK(!ir::key_code(l.module, "newfstat").has_value());  // an event's name, not fstat's
  CHECK(!ir::key_code(l.module, "nosuchcall").has_value());
  CHECK(ir::key_string(l.module, 1) == "write");
  CHECK(ir::key_string(l.module, ir::kLiteralBase) == "other");
  CHECK(ir::key_string(l.module, -1) == "");
}

TEST_CASE("lower: char arrays, $$vars, $$name, $$system", "[lower]") {
  Lowered l = lower(
      "probe kernel.trace(\"sched:sched_switch\") {\n"
      "  println($prev_comm);\n"
      "  printf(\"%d %s %s %s\\n\", $prev_pid, $$name, $$system, $$vars) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  CHECK(contains(dump, "tp_chars:string offset=8 length=16\n"));
  CHECK(contains(dump, "tp_field:long offset=24 size=4 signed\n"));
  CHECK(contains(dump, "str:string \"sched_switch\"\n        str:string \"sched\"\n"));
  const auto& f = l.module.formats;
  CHECK(std::find(f.begin(), f.end(),
                  "prev_comm=\"%s\" prev_pid=%#x prev_prio=%#x prev_state=%#x "
                  "next_comm=\"%s\" next_pid=%#x next_prio=%#x") != f.end());
}

TEST_CASE("lower: __data_loc strings and fixed arrays", "[lower]") {
  // irq_handler_entry: int irq; __data_loc char[] name.
  Lowered l = lower("probe kernel.trace(\"irq:irq_handler_entry\") { println($irq, $name) }");
  REQUIRE(l.ok);
  CHECK(contains(l.dump(), "tp_dataloc:string offset=12\n"));
  Lowered a = lower("probe kernel.trace(\"raw_syscalls:sys_enter\") { println($id, $args[2]) }");
  REQUIRE(a.ok);
  // long id, unsigned long args[6]: the number and the third argument,
  // read from the raw sys_enter tracepoint.
  CHECK(contains(a.dump(), "sys_nr:long\n        sys_arg:long arg=2 size=8\n"));
}

TEST_CASE("lower: unknown tracepoint field lists the alternatives", "[lower]") {
  Lowered l = lower("probe kernel.trace(\"syscalls:sys_enter_close\") { println($nope) }");
  CHECK(!l.ok);
  CHECK(contains(l.messages,
                 "semantic error: unable to find tracepoint variable '$nope' (alternatives: "
                 "$$parms, $$vars, $__syscall_nr, $fd, $$name, $$system): identifier '$nope' at "
                 "<input>:1:58\n"));
}

// Pass 2 already types char-array fields as strings (the tracepoint
// provider reads the format), so misuse is a pass-2 type error and the
// field works where a string is expected.
TEST_CASE("lower: a string field is typed string from pass 2 on", "[lower]") {
  FrontendConfig config;
  config.tapset_dirs = {STAP_SOURCE_TAPSET_DIR};
  Frontend fe(config);
  REQUIRE(fe.load_tapsets());
  REQUIRE(fe.parse_script("<input>",
                          "probe kernel.trace(\"sched:sched_switch\") { println($prev_comm + 1) }"));
  CHECK_FALSE(fe.elaborate());
  std::ostringstream messages;
  fe.diagnostics().flush(messages);
  CHECK(contains(messages.str(), "type mismatch: expected long but found string: identifier "
                                 "'$prev_comm' at <input>:1:52"));

  Lowered l = lower("probe kernel.trace(\"sched:sched_switch\") { printf(\"%s\\n\", $prev_comm) }");
  REQUIRE(l.ok);
  CHECK(contains(l.dump(), "tp_chars:string offset=8 length=16"));
}

TEST_CASE("lower: @defined on tracepoint fields selects a branch", "[lower]") {
  Lowered l = lower(
      "probe kernel.trace(\"sched:sched_switch\") {\n"
      "  if (@defined($nope)) println($nope) else println($next_pid) }");
  REQUIRE(l.ok);
  CHECK(contains(l.dump(), "tp_field:long offset=56 size=4 signed\n"));
}

// ---------------------------------------------------------------- context rules

TEST_CASE("lower: foreach in kernel context is a located error", "[lower]") {
  Lowered l = lower(
      "global a\nprobe kernel.trace(\"sched:sched_switch\") { a[1] = 1; foreach (k in a) "
      "print(k) }");
  CHECK(!l.ok);
  CHECK(contains(l.messages,
                 "semantic error: foreach needs user context: iterate in an end or timer probe: "
                 "keyword at <input>:2:54\n"));
}

TEST_CASE("lower: recursion and user-only functions from kernel context", "[lower]") {
  Lowered l = lower(
      "global a\n"
      "function f(n) { return n ? f(n - 1) : 0 }\n"
      "function g() { foreach (k in a) return k; return 0 }\n"
      "probe kernel.trace(\"sched:sched_switch\") { a[1] = f(2) + g() }");
  CHECK(!l.ok);
  CHECK(contains(l.messages, "semantic error: function 'f' is recursive, and recursion cannot "
                             "run in kernel context: make it iterative, or call it from a "
                             "begin, end or timer probe: identifier 'f' at <input>:4:51\n"));
  CHECK(contains(l.messages, "semantic error: function 'g' uses foreach at <input>:3:16, which "
                             "needs user context: call it from a begin, end or timer probe: "
                             "identifier 'g' at <input>:4:58\n"));
  // The same from user context is fine.
  Lowered u = lower(
      "global a\n"
      "function f(n) { return n ? f(n - 1) : 0 }\n"
      "probe begin { a[1] = f(2); foreach (k in a) print(k) }");
  CHECK(u.ok);
}

TEST_CASE("lower: a kernel-only builtin in a user-context probe", "[lower]") {
  Lowered l = lower("probe begin { println(probemod()) }");
  CHECK(!l.ok);
  CHECK(contains(l.messages, "'probemod' needs a kernel probe context"));
  CHECK(contains(l.messages, "identifier 'probemod' at <input>:1:23\n"));
  // probefunc() has stap's value there (no registers: "").
  CHECK(lower("probe begin { println(probefunc()) }").ok);
  Lowered k = lower("probe kernel.trace(\"sched:sched_switch\") { println(probefunc()) }");
  CHECK(k.ok);
  // Printing a histogram from kernel context is fine.
  Lowered h = lower(
      "global s\nprobe kernel.trace(\"sched:sched_switch\") { s <<< 1; print(@hist_log(s)) }");
  CHECK(h.ok);
}

TEST_CASE("lower: $$parms, $f$ and @choose_defined in a tracepoint probe", "[lower]") {
  Lowered l = lower(
      "probe kernel.trace(\"sched:sched_wakeup\") {\n"
      "  println($$parms); println($comm$, $pid$); println(@choose_defined($nope, 7)) }");
  REQUIRE(l.ok);
  std::string dump = l.dump();
  INFO(dump);
  const auto& f = l.module.formats;
  auto has = [&](const std::string& s) { return std::find(f.begin(), f.end(), s) != f.end(); };
  CHECK(has("comm=\"%s\" pid=%#x prio=%#x target_cpu=%#x"));
  CHECK(has("\"%s\""));
  CHECK(has("%#x"));
  CHECK(contains(dump, "      printf \"%d\\n\"  @ identifier 'println' at <input>:2:45\n"
                       "        num:long 7\n"));
}

TEST_CASE("lower: an optional kernel.trace point that matches nothing", "[lower]") {
  Lowered l = lower(
      "global n\nprobe kernel.trace(\"nosuch:*\")!, kernel.trace(\"sched:sched_switch\") { n++ }");
  // Pass 2 drops the '!' point that names no event; the next one is used.
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 1);
  CHECK(std::get<ir::TracepointSpec>(l.module.probes[0].spec).event == "sched_switch");
}

TEST_CASE("lower: a function using a kernel-only builtin, called from begin", "[lower]") {
  Lowered l = lower("function f() { return probemod() }\nprobe begin { println(f()) }");
  CHECK(!l.ok);
  CHECK(contains(l.messages,
                 "semantic error: function 'f' uses 'probemod' at <input>:1:23, which needs a "
                 "kernel probe: call it from a kernel.trace probe: identifier 'f' at "
                 "<input>:2:23\n"));
}

// '!' and '?' on kernel.trace: a pattern naming no event of this kernel is
// dropped in pass 2, so a '!' list moves on to its next alternative.
TEST_CASE("lower: a kernel.trace point that matches nothing lets '!' fall back", "[lower]") {
  Lowered l = lower("probe kernel.trace(\"nosuch:thing\") !, begin { println(\"fallback\") }");
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 1);
  CHECK(l.module.probes[0].is<ir::SessionSpec>());

  Lowered m = lower("probe kernel.trace(\"sched:sched_switch\") !, begin { println(\"first\") }");
  REQUIRE(m.ok);
  REQUIRE(m.module.probes.size() == 1);
  CHECK(m.module.probes[0].is<ir::TracepointSpec>());
}

// A builtin the BPF code generator does not implement is refused in pass 3
// with a location, not left to fail in code generation.
TEST_CASE("lower: a builtin kernel context does not run yet is a located error", "[lower]") {
  Lowered l = lower("probe kernel.trace(\"sched:sched_switch\") { if (module_name() == \"a\") next }");
  CHECK(!l.ok);
  CHECK(contains(l.messages, "semantic error: 'module_name' needs user context in this engine (not yet "
                             "in BPF): call it from a begin, end or timer probe: identifier "
                             "'module_name' at <input>:1:48\n"));
  Lowered u = lower("probe begin { if (module_name() == \"b\") next }");
  CHECK(u.ok);
}

// Kernel context matches by a DFA (ir/regex_dfa.h); a pattern without one
// is refused where it is written, or at the call of a function using it.
TEST_CASE("lower: a regex kernel context cannot match is a located error", "[lower][regex]") {
  CHECK(lower("probe kernel.trace(\"sched:sched_switch\") { if ($prev_comm =~ \"^a\") next }").ok);
  Lowered l = lower("probe kernel.trace(\"sched:sched_switch\") { if ($prev_comm =~ \"(a)\\\\1\") next }");
  CHECK(!l.ok);
  CHECK(contains(l.messages, "regular expression '(a)\\1' uses a back-reference, which kernel context "
                             "cannot match: match in a begin, end or timer probe: operator '=~' at "
                             "<input>:1:59\n"));
  Lowered bad = lower("probe kernel.trace(\"sched:sched_switch\") { if ($prev_comm !~ \"(a\") next }");
  CHECK(contains(bad.messages, "invalid regular expression '(a': Unmatched ( or \\(: operator '!~' at "
                               "<input>:1:59\n"));
  Lowered f = lower("function f(s) { return s =~ \"\\\\bx\" }\n"
                    "probe kernel.trace(\"sched:sched_switch\") { if (f($prev_comm)) next }");
  CHECK(contains(f.messages, "function 'f' uses operator '=~' at <input>:1:26 (regular expression "
                             "'\\bx' uses the word assertion '\\b'), which needs user context"));
  CHECK(lower("function f(s) { return s =~ \"x$\" }\n"
              "probe kernel.trace(\"sched:sched_switch\") { if (f($prev_comm)) next }").ok);
  CHECK(lower("probe begin { if (\"a\" =~ \"(a)\\\\1\") next }").ok);
}

}  // namespace stap::test

namespace stap::test {

namespace {

std::string location_of(const Lowered& l, const ir::Node* n) {
  if (!n || n->loc == 0 || n->loc >= l.module.locations.size()) return "";
  return l.module.locations[n->loc].text;
}

}  // namespace

TEST_CASE("lower: runtime-error sites are located as stap names them", "[lower][errloc]") {
  Lowered l = lower(
      "global x, a, s\n"
      "probe begin { for (i = 0; i < 9; i++) { x++ }\n"
      "  while (x) x--\n"
      "  foreach (k in a) { if (k) break; else continue }\n"
      "  a[1] = 1; s <<< 1; println(@hist_log(s)[3]) }",
      {});
  REQUIRE(l.ok);
  const ir::Node* body = l.module.probes.at(0).body;
  std::vector<const ir::Node*> loops;
  std::function<void(const ir::Node*)> walk = [&](const ir::Node* n) {
    if (!n) return;
    if (n->op == ir::Op::loop) loops.push_back(n);
    for (const ir::Node* k : n->kids) walk(k);
  };
  walk(body);
  REQUIRE(loops.size() == 2);
  // MAXACTION names a loop body's first token: its '{', or the first
  // token of a lone statement (x-- is identifier 'x').
  CHECK(location_of(l, loops[0]) == "operator '{' at <input>:2:39");
  CHECK(location_of(l, loops[1]) == "identifier 'x' at <input>:3:13");
  CHECK(location_of(l, find_in_probe(l, 0, ir::Op::foreach)) == "operator '{' at <input>:4:20");
  CHECK(location_of(l, find_in_probe(l, 0, ir::Op::if_)) == "keyword at <input>:4:22");
  CHECK(location_of(l, find_in_probe(l, 0, ir::Op::brk)) == "keyword at <input>:4:29");
  CHECK(location_of(l, find_in_probe(l, 0, ir::Op::cont)) == "keyword at <input>:4:41");
  // "empty aggregate" and "histogram index out of range" name @hist_log.
  CHECK(location_of(l, find_in_probe(l, 0, ir::Op::hist_bucket)) ==
        "operator '@hist_log' at <input>:5:30");
}

}  // namespace stap::test
