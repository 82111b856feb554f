// DWARF target variables of process probes (compiler/lower/dwarf_vars.cpp
// over lower/target_type.h): the DWARF side of
// TType against the compiler's own layout (sample_c_O0 --layout), and
// what $vars lower to on the debuginfo test programs.
#include <map>

#include "debuginfo/process_points.h"
#include "debuginfo_fixture.h"
#include "lower/target_type.h"
#include "lower_fixture.h"

namespace stap::test {

namespace {

using lower::TType;
namespace types = lower::types;

std::string probe_on(const std::string& binary, const std::string& point, const std::string& body) {
  return "probe process(\"" + debuginfo_bin(binary) + "\")." + point + " { " + body + " }";
}

// The layout the compiler printed: "id 0", "name 4", ..., "bytes ...".
std::map<std::string, std::string> layout() {
  std::map<std::string, std::string> out;
  for (const std::string& line : lines_of(run_command(debuginfo_bin("sample_c_O0") + " --layout"))) {
    size_t sp = line.find(' ');
    if (sp != std::string::npos) out[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return out;
}

TType record_type(debuginfo::Binary& bin) {
  std::optional<debuginfo::Type> t = bin.dwarf->find_type("struct record");
  REQUIRE(t);
  return TType::of(*t);
}

debuginfo::Binary& sample(const std::string& name = "sample_c_O0") {
  std::string why;
  debuginfo::Binary* bin = debuginfo::open_binary(debuginfo_bin(name), why);
  INFO(why);
  REQUIRE(bin);
  REQUIRE(bin->dwarf);
  return *bin;
}

}  // namespace

TEST_CASE("uprobe target: DWARF members as TypePath sees them", "[uprobe_target]") {
  debuginfo::Binary& bin = sample();
  TType record = record_type(bin);
  CHECK(types::kind(record) == kernel::TypeKind::struct_);
  auto want = layout();
  CHECK(std::to_string(types::size(record)) == want["sizeof"]);
  std::vector<std::string> names;
  for (const lower::TMember& m : types::members(record)) names.push_back(m.name);
  // The anonymous union is an unnamed member, as in BTF.
  CHECK(names == std::vector<std::string>{"id", "name", "flags", "level", "where", "next", ""});
  for (const char* field : {"id", "name", "where", "next", "as_int"}) {
    std::optional<lower::TMember> m = types::member(record, field);
    REQUIRE(m);
    CHECK(std::to_string(m->bit_offset / 8) == want[field]);
    CHECK(m->bitfield_size == 0);
  }
  // flags=5 (3 bits) and level=17 (5 bits): where the bytes say they are.
  std::optional<lower::TMember> flags = types::member(record, "flags");
  std::optional<lower::TMember> level = types::member(record, "level");
  REQUIRE(flags);
  REQUIRE(level);
  CHECK(flags->bitfield_size == 3);
  CHECK(level->bitfield_size == 5);
  std::vector<int> bytes;
  std::istringstream in(want["bytes"]);
  for (std::string b; in >> b;) bytes.push_back(std::stoi(b, nullptr, 16));
  auto field_value = [&](const lower::TMember& m) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < m.bitfield_size; ++i) {
      uint32_t bit = m.bit_offset + i;
      v |= uint64_t((bytes.at(bit / 8) >> (bit % 8)) & 1) << i;
    }
    return v;
  };
  CHECK(field_value(*flags) == 5);
  CHECK(field_value(*level) == 17);
  CHECK(types::name(flags->type) == "unsigned int");
  std::optional<lower::TMember> name = types::member(record, "name");
  CHECK(types::kind(name->type) == kernel::TypeKind::array);
  CHECK(types::is_char(types::element(name->type)));
  std::optional<lower::TMember> next = types::member(record, "next");
  CHECK(types::name(next->type) == "struct record*");
  CHECK(types::name(types::pointee(next->type)) == "struct record");
  CHECK(types::kind(types::member(record, "where")->type) == kernel::TypeKind::struct_);
  CHECK(record.user());
}

TEST_CASE("uprobe target: a parameter at -O0 is a user read off the frame", "[uprobe_target]") {
  Lowered l = lower_script(probe_on("sample_c_O0", "function(\"sample_sum\")", "println($scale)"));
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* read = find_op(l.module.probes.at(0).body, ir::Op::uread);
  REQUIRE(read);
  CHECK(read->b == 4);
  CHECK(read->c == 1);  // int
  CHECK(find_op(read, ir::Op::reg) != nullptr);
  CHECK(find_op(l.module.probes.at(0).body, ir::Op::kread) == nullptr);
}

TEST_CASE("uprobe target: ->f->g goes through each pointer once", "[uprobe_target]") {
  Lowered l = lower_script(probe_on("sample_c_O0", "function(\"sample_sum\")",
                                    "println($r->next->where->y, &$r->where->y)"));
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* body = l.module.probes.at(0).body;
  // $r->next->where->y: read $r (frame), read r->next, read next->where.y.
  const ir::Node* outer = find_op(body, ir::Op::uread);
  REQUIRE(outer);
  CHECK(outer->b == 8);
  const ir::Node* addr = outer->kids.at(0);
  REQUIRE(addr->op == ir::Op::add);
  auto want = layout();
  CHECK(addr->kids.at(1)->a == std::stoi(want["where"]) + 8);
  const ir::Node* next = find_op(addr, ir::Op::uread);
  REQUIRE(next);
  CHECK(next->kids.at(0)->op == ir::Op::add);
  CHECK(next->kids.at(0)->kids.at(1)->a == std::stoi(want["next"]));
}

TEST_CASE("uprobe target: a static local is at its address plus the load bias", "[uprobe_target]") {
  Lowered l = lower_script(probe_on("sample_c_O0", "function(\"sample_sum\")", "println($calls)"));
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* read = find_op(l.module.probes.at(0).body, ir::Op::uread);
  REQUIRE(read);
  // (ip - site pc) + link-time address: a PIE's bias from the saved ip.
  const ir::Node* sub = find_op(read, ir::Op::sub);
  REQUIRE(sub);
  REQUIRE(sub->kids.at(0)->op == ir::Op::reg);
  CHECK(sub->kids.at(0)->a == 128);
  // A fixed-address executable has no bias.
  Lowered fixed = lower_script(probe_on("sample_c_nopie", "function(\"sample_sum\")", "println($calls)"));
  REQUIRE(fixed.ok);
  const ir::Node* direct = find_op(fixed.module.probes.at(0).body, ir::Op::uread);
  REQUIRE(direct);
  CHECK(direct->kids.at(0)->op == ir::Op::num);
}

TEST_CASE("uprobe target: $$parms in stap's format", "[uprobe_target]") {
  Lowered l = lower_script(probe_on("sample_c_O0", "function(\"sample_sum\")", "println($$parms)"));
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* s = find_op(l.module.probes.at(0).body, ir::Op::sprintf);
  REQUIRE(s);
  CHECK(l.module.formats.at(s->a) == "r=%#x scale=%#x label=%#x");
}

TEST_CASE("uprobe target: .return reads $return as typed and parameters at entry",
          "[uprobe_target]") {
  Lowered l = lower_script(
      probe_on("sample_c_O0", "function(\"sample_sum\").return", "println($return, $scale)"));
  INFO(l.messages);
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 2);
  const ir::Probe& entry = l.module.probes[0];
  const ir::Probe& ret = l.module.probes[1];
  REQUIRE(entry.is<ir::UprobeSpec>());
  const ir::UprobeSpec& e = *entry.as<ir::UprobeSpec>();
  const ir::UprobeSpec& r = std::get<ir::UprobeSpec>(ret.spec);
  CHECK_FALSE(e.is_return);
  CHECK(r.is_return);
  // The return uprobe is on the first instruction; the entry values are
  // read after the prologue, where -O0 has stored the parameters.
  REQUIRE(e.offsets.size() == 1);
  REQUIRE(r.offsets.size() == 1);
  CHECK(e.offsets[0] > r.offsets[0]);
  const ir::Node* fr = find_op(ret.body, ir::Op::fn_ret);
  REQUIRE(fr);
  CHECK(fr->b == 4);
  CHECK(fr->c == 1);
  CHECK(find_op(entry.body, ir::Op::uread) != nullptr);
  CHECK(find_op(ret.body, ir::Op::uread) == nullptr);
}

TEST_CASE("uprobe target: errors say why", "[uprobe_target]") {
  Lowered nodebug =
      lower_script(probe_on("sample_c_nodebug", "function(\"sample_sum\")", "println($scale)"));
  CHECK_FALSE(nodebug.ok);
  CHECK(contains(nodebug.messages, "target variable '$scale' cannot be read"));
  CHECK(contains(nodebug.messages, "debuginfo"));
  Lowered missing =
      lower_script(probe_on("sample_c_O0", "function(\"sample_sum\")", "println($scal)"));
  CHECK_FALSE(missing.ok);
  CHECK(contains(missing.messages, "unable to find local 'scal'"));
  CHECK(contains(missing.messages, "alternatives: $scale"));
  Lowered field =
      lower_script(probe_on("sample_c_O0", "function(\"sample_sum\")", "println($r->wher)"));
  CHECK_FALSE(field.ok);
  CHECK(contains(field.messages, "unable to find member 'wher' for struct record (alternatives: where"));
  Lowered defined = lower_script(probe_on(
      "sample_c_O0", "function(\"sample_sum\")",
      "println(@defined($r->where->x), @defined($r->nope), @defined($scale), @defined($nope))"));
  INFO(defined.messages);
  REQUIRE(defined.ok);
}

}  // namespace stap::test
