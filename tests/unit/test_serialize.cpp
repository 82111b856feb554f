// The module as bytes (compiler/ir/serialize.h): round trips, and hostile
// bytes refused with a message, never a crash.
#include <catch2/catch.hpp>

#include <string>

#include "ir/print.h"
#include "ir/serialize.h"

using namespace stap::ir;

namespace {

Node* leaf(Module& m, Op op, Type t, int64_t a = 0) {
  Node* n = m.make(op, t);
  n->a = a;
  return n;
}

Node* with(Module& m, Op op, Type t, std::vector<Node*> kids, int64_t a = 0) {
  Node* n = leaf(m, op, t, a);
  n->kids = std::move(kids);
  return n;
}

// Globals: 0 long scalar, 1 string scalar, 2 array [long,string] of long,
// 3 linear-histogram statistic; one function, a begin probe using them all
// and a tracepoint probe.
Module sample() {
  Module m;
  m.script_name = "t.stp";
  m.limits.maxstringlen = 64;
  Global g0{.name = "count", .type = Type::long_, .init_num = -7};
  Global g1{.name = "name", .type = Type::string, .init_str = "x\0y"};
  Global g2{.name = "arr", .type = Type::long_, .keys = {Type::long_, Type::string},
            .key_names = {"pid", "name"}, .max_entries = 10, .wrap = true};
  Global g3{.name = "lat", .type = Type::stats};
  g3.hist = HistShape{HistShape::Kind::linear, 0, 100, 10};
  m.globals = {g0, g1, g2, g3};
  assign_layout(m);
  uint32_t loc = m.add_location("operator '/' at t.stp:3:9");
  uint32_t fmt = m.add_format("%d %s\n");

  Function f{.name = "half", .ret = Type::long_, .param_count = 1, .slots = {Type::long_, Type::string}};
  Node* div = with(m, Op::div, Type::long_, {leaf(m, Op::local, Type::long_, 0), leaf(m, Op::num, Type::long_, 2)});
  div->loc = loc;
  f.body = with(m, Op::block, Type::none, {with(m, Op::ret, Type::none, {div})});
  m.functions.push_back(f);

  Probe p{.pp = "begin", .spec = SessionSpec{SessionSpec::Event::begin, -3},
          .slots = {Type::long_, Type::string}};
  Node* s = leaf(m, Op::str, Type::string);
  s->s = std::string("a\0b\xff", 4);
  Node* big = leaf(m, Op::num, Type::long_, INT64_MIN);
  Node* call = with(m, Op::call, Type::long_, {big}, 0);
  Node* print = with(m, Op::printf, Type::none, {call, leaf(m, Op::global, Type::string, 1)}, fmt);
  Node* elem = with(m, Op::set_elem, Type::long_, {leaf(m, Op::num, Type::long_, 1), s, leaf(m, Op::num, Type::long_, 5)}, 2);
  Node* fe = with(m, Op::foreach, Type::none, {with(m, Op::block, Type::none, {}), leaf(m, Op::nop, Type::none),
                                               leaf(m, Op::any, Type::none), leaf(m, Op::str, Type::string)}, 2);
  fe->ints = {-1, 2, -1, 0, 0, 0, 1};
  Node* add = with(m, Op::stat_add, Type::none, {leaf(m, Op::num, Type::long_, 42)}, 3);
  Node* tryc = with(m, Op::try_, Type::none, {with(m, Op::expr, Type::none, {print}), with(m, Op::block, Type::none, {})}, 1);
  p.body = with(m, Op::block, Type::none, {tryc, with(m, Op::expr, Type::none, {elem}), fe, with(m, Op::expr, Type::none, {add})});
  m.probes.push_back(p);

  Probe tp{.pp = "kernel.trace(\"sched:sched_switch\")", .pn = "syscall.read", .context = Context::kernel,
           .spec = TracepointSpec{"sched", "sched_switch"}};
  Node* field = leaf(m, Op::tp_field, Type::long_, 24);
  field->b = 4;
  field->c = 1;
  tp.body = with(m, Op::block, Type::none, {with(m, Op::expr, Type::none, {field})});
  tp.program_name = "probe_1";
  m.probes.push_back(tp);
  return m;
}

std::string read_error(const std::string& bytes) {
  Module out;
  std::string error;
  REQUIRE_FALSE(deserialize(bytes, out, error));
  return error;
}

}  // namespace

TEST_CASE("a module survives the round trip", "[serialize]") {
  Module m = sample();
  std::string bytes = serialize(m);
  REQUIRE(bytes.substr(0, 8) == "STAPIR09");
  Module back;
  std::string error;
  REQUIRE(deserialize(bytes, back, error));
  CHECK(error.empty());
  CHECK(serialize(back) == bytes);

  CHECK(back.script_name == "t.stp");
  CHECK(back.limits.maxstringlen == 64);
  REQUIRE(back.globals.size() == 4);
  CHECK(back.globals[0].init_num == -7);
  CHECK(back.globals[2].keys == std::vector<Type>{Type::long_, Type::string});
  CHECK(back.globals[2].wrap);
  CHECK(back.globals[2].key_names == std::vector<std::string>{"pid", "name"});
  CHECK(back.globals[2].map_name == "stap_g2");
  CHECK(back.globals[3].hist.step == 10);
  CHECK(back.globals[3].value_size == m.globals[3].value_size);
  REQUIRE(back.functions.size() == 1);
  CHECK(back.functions[0].body->kids[0]->kids[0]->loc == 1);
  CHECK(back.locations[1].text == "operator '/' at t.stp:3:9");
  CHECK(back.formats == std::vector<std::string>{"%d %s\n"});
  REQUIRE(back.probes.size() == 2);
  CHECK(std::get<SessionSpec>(back.probes[0].spec).sequence == -3);
  const Node* set = back.probes[0].body->kids[1]->kids[0];
  CHECK(set->op == Op::set_elem);
  CHECK(set->kids[1]->s == std::string("a\0b\xff", 4));
  const Node* fe = back.probes[0].body->kids[2];
  CHECK(fe->ints == std::vector<int64_t>{-1, 2, -1, 0, 0, 0, 1});
  CHECK(back.probes[0].body->kids[0]->kids[0]->kids[0]->kids[0]->kids[0]->a == INT64_MIN);
  CHECK(back.probes[1].context == Context::kernel);
  CHECK(back.probes[1].program_name == "probe_1");
  CHECK(back.probes[1].pn == "syscall.read");
  CHECK(back.probes[1].body->kids[0]->kids[0]->c == 1);
}

TEST_CASE("every kind's spec survives the round trip", "[serialize]") {
  // One probe of each kind with every field set away from its default;
  // the module dump prints each kind's fields, and the specs compare.
  Module m;
  KfuncSpec kfunc{{"vfs_read", "vfs_write"}, "ext4", true, 4, {0, 16}, {"a", "b"}};
  UprobeSpec uprobe{"/bin/true", {0x10, 0x20}, {0, 0x30}, {"main", "f"}, {"p1", "p2"}, true, 42};
  PerfSpec perf{1, 2, 99, true, true, "/bin/sh"};
  std::vector<ProbeSpec> specs = {SessionSpec{SessionSpec::Event::never, 7},
                                  TimerSpec{1000, 50},
                                  TracepointSpec{"sched", "sched_switch"},
                                  SyscallSpec{"syscalls", "sys_exit_read", 0},
                                  kfunc, perf, uprobe,
                                  BtfTracepointSpec{"sched_switch", "kvm", 4},
                                  LsmSpec{"file_open", 1, true},
                                  ProcfsSpec{"a/b", true, 64, 022},
                                  NetfilterSpec{10, 4, -2147483647},
                                  WatchpointSpec{int64_t(0xffffffff82001000), "", 8, true, true},
                                  RunningTasksSpec{true, 0, "/usr/bin/sleep"}};
  REQUIRE(specs.size() == std::variant_size_v<ProbeSpec>);
  for (const ProbeSpec& spec : specs) {
    Probe p{.pp = kind_name(spec), .context = Context::kernel, .spec = spec};
    p.body = m.make(Op::block);
    m.probes.push_back(std::move(p));
  }
  Module back;
  std::string error;
  REQUIRE(deserialize(serialize(m), back, error));
  REQUIRE(back.probes.size() == specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    INFO(kind_name(specs[i]));
    CHECK(back.probes[i].spec.index() == specs[i].index());
  }
  CHECK(std::get<KfuncSpec>(back.probes[4].spec).offsets == kfunc.offsets);
  CHECK(std::get<KfuncSpec>(back.probes[4].spec).site_points == kfunc.site_points);
  CHECK(std::get<PerfSpec>(back.probes[5].spec).process == "/bin/sh");
  CHECK(std::get<UprobeSpec>(back.probes[6].spec).semaphores == uprobe.semaphores);
  CHECK(std::get<BtfTracepointSpec>(back.probes[7].spec).module == "kvm");
  CHECK(std::get<LsmSpec>(back.probes[8].spec).verdict);
  CHECK(std::get<NetfilterSpec>(back.probes[10].spec).priority == -2147483647);
  CHECK(uint64_t(std::get<WatchpointSpec>(back.probes[11].spec).address) == 0xffffffff82001000);
  CHECK(std::get<RunningTasksSpec>(back.probes[12].spec).path == "/usr/bin/sleep");
  CHECK(print_module(back) == print_module(m));
  CHECK(print_module(m).find("probe 6 uprobe kernel uprobe return binary=/bin/true pid=42 "
                             "sites=main@0x10,f@0x20/sem=0x30") != std::string::npos);
  CHECK(print_module(m).find("running_tasks kernel running_tasks threads path=/usr/bin/sleep") !=
        std::string::npos);
  CHECK(print_module(m).find("watchpoint process rw length=8 address=0xffffffff82001000") !=
        std::string::npos);
  CHECK(print_module(m).find("netfilter pf=10 hook=4 priority=-2147483647") != std::string::npos);
  CHECK(print_module(m).find("probe 7 tp_btf kernel tp_btf tracepoint=sched_switch args=4 "
                             "module=kvm") != std::string::npos);
  CHECK(print_module(m).find("probe 8 lsm kernel lsm hook=file_open args=1 verdict") !=
        std::string::npos);
}

TEST_CASE("a probe kind the runtime does not know is refused", "[serialize]") {
  Module m;
  Probe p{.pp = "begin", .spec = SessionSpec{}};
  p.body = m.make(Op::block);
  m.probes.push_back(std::move(p));
  std::string bytes = serialize(m);
  // The probe's fields: pp "begin" (length 5), pn "" (its length), the
  // context, then the kind.
  size_t kind = bytes.find("begin") + 5 + 1 + 1;
  REQUIRE(kind < bytes.size());
  REQUIRE(bytes[kind] == 0);
  bytes[kind] = char(std::variant_size_v<ProbeSpec>);
  Module back;
  std::string error;
  CHECK_FALSE(deserialize(bytes, back, error));
  CHECK(error == "bad module: bad probe kind");
}

TEST_CASE("an empty module survives the round trip", "[serialize]") {
  Module m;
  Module back;
  std::string error;
  REQUIRE(deserialize(serialize(m), back, error));
  CHECK(back.locations.size() == 1);
  CHECK(back.probes.empty());
}

TEST_CASE("every truncation of a module is refused", "[serialize]") {
  std::string bytes = serialize(sample());
  for (size_t len = 0; len < bytes.size(); ++len) {
    Module out;
    std::string error;
    INFO("length " << len);
    CHECK_FALSE(deserialize(std::string_view(bytes).substr(0, len), out, error));
    CHECK_FALSE(error.empty());
  }
}

TEST_CASE("corrupted bytes are refused or read, never crash", "[serialize]") {
  std::string bytes = serialize(sample());
  size_t refused = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char x : {0x01, 0x80, 0xff}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ x);
      Module out;
      std::string error;
      if (!deserialize(bad, out, error)) {
        ++refused;
        CHECK_FALSE(error.empty());
      }
    }
  }
  // Most flips break a count, an index or a varint.
  CHECK(refused > bytes.size());
}

TEST_CASE("malformed modules are refused with a reason", "[serialize]") {
  SECTION("bad magic") { CHECK(read_error("STAPIR99") == "bad module: not a stap-bpf module (bad magic)"); }
  SECTION("trailing bytes") { CHECK(read_error(serialize(sample()) + "x") == "bad module: trailing bytes"); }
  SECTION("a huge count") {
    std::string bytes = "STAPIR09";
    bytes += '\0';  // script name
    for (int i = 0; i < 4; ++i) bytes += '\x02';
    bytes += '\0';  // not timed
    bytes += "\xff\xff\xff\xff\x0f";  // globals: 2^32 - 1
    CHECK(read_error(bytes) == "bad module: count exceeds input");
  }
  SECTION("an opcode past the last") {
    Module m = sample();
    m.probes[0].body->kids[1]->op = static_cast<Op>(static_cast<int>(kLastOp) + 1);
    CHECK(read_error(serialize(m)) == "bad module: bad opcode");
  }
  SECTION("a wrong operand count") {
    Module m = sample();
    m.probes[0].body->kids[1]->kids[0]->kids.pop_back();  // set_elem without its value
    CHECK(read_error(serialize(m)).find("wrong operand count") != std::string::npos);
  }
  SECTION("a global out of range") {
    Module m = sample();
    m.probes[0].body->kids[1]->kids[0]->a = 9;
    CHECK(read_error(serialize(m)).find("global out of range") != std::string::npos);
  }
  SECTION("a scalar used as an array") {
    Module m = sample();
    m.probes[0].body->kids[1]->kids[0]->a = 0;
    CHECK(read_error(serialize(m)).find("not an array") != std::string::npos);
  }
  SECTION("a slot out of range") {
    Module m = sample();
    m.functions[0].body->kids[0]->kids[0]->kids[0]->a = 2;
    CHECK(read_error(serialize(m)).find("slot out of range") != std::string::npos);
  }
  SECTION("a foreach key slot out of range") {
    Module m = sample();
    m.probes[0].body->kids[2]->ints[6] = 5;
    CHECK(read_error(serialize(m)).find("slot out of range") != std::string::npos);
  }
  SECTION("a format out of range") {
    Module m = sample();
    m.formats.clear();
    CHECK(read_error(serialize(m)).find("format out of range") != std::string::npos);
  }
  SECTION("a location out of range") {
    Module m = sample();
    m.locations.resize(1);
    CHECK(read_error(serialize(m)).find("location index out of range") != std::string::npos);
  }
  SECTION("a call with the wrong argument count") {
    Module m = sample();
    m.functions[0].param_count = 2;
    CHECK(read_error(serialize(m)).find("wrong operand count") != std::string::npos);
  }
  SECTION("a layout that does not match the limits") {
    Module m = sample();
    m.limits.maxstringlen = 128;  // string sizes were laid out for 64
    CHECK(read_error(serialize(m)).find("layout does not match") != std::string::npos);
  }
  SECTION("key names that are no identifiers, or too few") {
    Module m = sample();
    m.globals[2].key_names[1] = "na\"me";
    CHECK(read_error(serialize(m)).find("bad key name") != std::string::npos);
    m.globals[2].key_names = {"pid"};
    CHECK(read_error(serialize(m)).find("bad key names") != std::string::npos);
  }
  SECTION("an unusable histogram") {
    Module m = sample();
    m.globals[3].hist.step = 0;
    CHECK(read_error(serialize(m)).find("bad histogram shape") != std::string::npos);
  }
  SECTION("nodes nested beyond reason") {
    Module m = sample();
    Node* n = leaf(m, Op::num, Type::long_, 1);
    for (int i = 0; i < 5000; ++i) n = with(m, Op::neg, Type::long_, {n});
    m.probes[0].body->kids.push_back(with(m, Op::expr, Type::none, {n}));
    CHECK(read_error(serialize(m)) == "bad module: nodes nested too deeply");
  }
}
