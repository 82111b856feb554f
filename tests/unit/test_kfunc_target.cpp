// Kernel functions' target variables and @cast lowered to IR reads
// (compiler/lower/kinds/kfunc*.cpp), checked against this machine's BTF:
// offsets and bitfield positions are computed here from KernelBtf and
// must be what the lowering read.  Live behaviour is in the guest's live
// cases (kfunc_target_vars, kfunc_return_vars, kfunc_pretty) and tp_cast.
#include <catch2/catch.hpp>

#include <memory>
#include <sstream>
#include <string>

#include "driver/frontend.h"
#include "ir/print.h"
#include "kernel/kernel_btf.h"
#include "lower/kinds/kfunc.h"
#include "lower/lower.h"
#include "lower_fixture.h"

namespace stap::test {

namespace {

Lowered lower(const std::string& script) { return lower_script(script); }

kernel::KernelBtf& btf() {
  static kernel::KernelBtf b;
  static bool loaded = [] {
    std::string why;
    return b.load(why);
  }();
  REQUIRE(loaded);
  return b;
}

// Byte offset of a member path from the start of `type`.
uint32_t offset_of(const std::string& type, std::initializer_list<const char*> path) {
  kernel::Type t = *btf().find_type(type);
  uint32_t bits = 0;
  for (const char* name : path) {
    std::optional<kernel::Member> m = kernel::KernelBtf::member(t, name);
    REQUIRE(m);
    bits += m->bit_offset;
    t = m->type;
  }
  return bits / 8;
}

}  // namespace

TEST_CASE("kfunc target: a parameter is fn_arg by index, size and sign", "[kfunc_target]") {
  Lowered l = lower("probe kernel.function(\"vfs_read\") { println($count) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* arg = find_op(l.module.probes.at(0).body, ir::Op::fn_arg);
  REQUIRE(arg);
  CHECK(arg->a == 2);  // vfs_read(file, buf, count, pos)
  CHECK(arg->b == 8);
  CHECK(arg->c == 0);  // size_t
}

TEST_CASE("kfunc target: a struct passed by value takes two registers", "[kfunc_target]") {
  // tcp_setsockopt(sk, level, optname, sockptr_t optval, optlen): sockptr_t
  // (a pointer and a bool, 16 bytes) takes r8 and r9's places.
  std::optional<kernel::Function> fn = btf().function("tcp_setsockopt");
  REQUIRE(fn);
  REQUIRE(fn->params.size() == 5);
  CHECK(lower::argument_registers(*fn) == std::vector<int>{0, 1, 2, 3, 5});
  CHECK(lower::trampoline_slots(*fn) == 6);
  Lowered l = lower("probe kernel.function(\"tcp_setsockopt\").return { println($optlen, $return) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* arg = nullptr;
  for (const ir::Probe& p : l.module.probes)
    if (!arg) arg = find_op(p.body, ir::Op::fn_arg);
  REQUIRE(arg);
  CHECK(arg->a == 5);
  for (const ir::Probe& p : l.module.probes) CHECK(p.as<ir::KfuncSpec>()->arg_count == 6);
  // A struct too large for registers goes to the stack, and the trampoline
  // refuses the function.
  kernel::Function big = *fn;
  big.params[3].type = *btf().find_type("struct task_struct");
  CHECK(lower::argument_registers(big) == std::vector<int>{0, 1, 2, -1, 3});
  CHECK(lower::trampoline_slots(big) == -1);
  // A two-register struct that finds one register free goes to the stack;
  // the parameter after it still takes that register.
  kernel::Function late = *fn;
  late.params = {fn->params[0], fn->params[1], fn->params[2], fn->params[0], fn->params[1],
                 fn->params[3], fn->params[4]};
  CHECK(lower::argument_registers(late) == std::vector<int>{0, 1, 2, 3, 4, -1, 5});
  CHECK(lower::trampoline_slots(late) == 8);
}

TEST_CASE("kfunc target: ->f->g reads each pointer once at the summed offset", "[kfunc_target]") {
  Lowered l = lower("probe kernel.function(\"vfs_read\") { println($file->f_path->dentry) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  // f_path is embedded in struct file: one read, of file + f_path + dentry.
  const ir::Node* read = find_op(l.module.probes.at(0).body, ir::Op::kread);
  REQUIRE(read);
  CHECK(read->b == 8);
  const ir::Node* addr = read->kids.at(0);
  REQUIRE(addr->op == ir::Op::add);
  CHECK(addr->kids.at(0)->op == ir::Op::fn_arg);
  CHECK(addr->kids.at(1)->a == offset_of("file", {"f_path", "dentry"}));
  CHECK(find_op(addr, ir::Op::kread) == nullptr);
}

TEST_CASE("kfunc target: & reads nothing", "[kfunc_target]") {
  Lowered l = lower("probe kernel.function(\"vfs_read\") { println(&$file->f_path->dentry) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  CHECK(find_op(l.module.probes.at(0).body, ir::Op::kread) == nullptr);
  CHECK(find_op(l.module.probes.at(0).body, ir::Op::fn_arg) != nullptr);
}

TEST_CASE("kfunc target: sizes and offsets in user context are arithmetic", "[kfunc_target]") {
  Lowered l = lower(
      "probe begin { println(& @cast(0, \"task_struct\", \"kernel\")[2] -> pid) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  CHECK(find_op(l.module.probes.at(0).body, ir::Op::kread) == nullptr);
  // Through a pointer (mm) the address needs a read, and a value is one:
  // kernel memory the runtime reads on request (interp_memory.cpp).
  Lowered through = lower("probe begin { println(& @cast(0, \"task_struct\")->mm->mmap_base) }");
  INFO(through.messages);
  REQUIRE(through.ok);
  CHECK(find_op(through.module.probes.at(0).body, ir::Op::kread) != nullptr);
  Lowered value = lower("probe begin { println(@cast(0, \"task_struct\")->pid) }");
  REQUIRE(value.ok);
  CHECK(find_op(value.module.probes.at(0).body, ir::Op::kread) != nullptr);
}

TEST_CASE("kfunc target: a bitfield is its unit read, shifted and masked", "[kfunc_target]") {
  Lowered l = lower(
      "probe kernel.trace(\"net:net_dev_start_xmit\") { println(@cast($skbaddr, \"sk_buff\")->ip_summed) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  kernel::Type skb = *btf().find_type("sk_buff");
  std::optional<kernel::Member> m = kernel::KernelBtf::member(skb, "ip_summed");
  REQUIRE(m);
  REQUIRE(m->bitfield_size == 2);
  uint32_t unit = kernel::KernelBtf::size(m->type);
  uint32_t unit_byte = (m->bit_offset / 8) / unit * unit;
  const ir::Node* mask = find_op(l.module.probes.at(0).body, ir::Op::bit_and);
  REQUIRE(mask);
  CHECK(mask->kids.at(1)->a == 3);
  const ir::Node* read = find_op(mask, ir::Op::kread);
  REQUIRE(read);
  CHECK(read->b == unit);
  const ir::Node* addr = read->kids.at(0);
  int64_t at = addr->op == ir::Op::add ? addr->kids.at(1)->a : 0;
  CHECK(at == unit_byte);
  int64_t shift = m->bit_offset - 8 * unit_byte;
  const ir::Node* shr = find_op(mask, ir::Op::shr);
  if (shift) {
    REQUIRE(shr);
    CHECK(shr->kids.at(1)->a == shift);
  } else {
    CHECK(shr == nullptr);
  }
}

TEST_CASE("kfunc target: .return reads parameters through an entry probe", "[kfunc_target]") {
  Lowered l = lower(
      "probe kernel.function(\"vfs_read\").return { println($count, @entry($file->f_pos), $return) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  REQUIRE(l.module.probes.size() == 2);
  const ir::Probe& entry = l.module.probes[0];
  const ir::Probe& ret = l.module.probes[1];
  REQUIRE(entry.is<ir::KfuncSpec>());
  CHECK_FALSE(entry.as<ir::KfuncSpec>()->is_return);
  CHECK(ret.as<ir::KfuncSpec>()->is_return);
  CHECK(entry.as<ir::KfuncSpec>()->functions == ret.as<ir::KfuncSpec>()->functions);
  // The entry stores two values, each in its own tid-keyed hidden global.
  int stores = 0;
  for (const ir::Node* st : entry.body->kids) {
    const ir::Node* set = find_op(st, ir::Op::set_elem);
    REQUIRE(set);
    CHECK(l.module.globals.at(set->a).name.starts_with("__entry_value_"));
    CHECK(set->kids.at(0)->s == "tid");
    ++stores;
  }
  CHECK(stores == 2);
  CHECK(find_op(entry.body, ir::Op::fn_arg) != nullptr);
  // The return moves each into a local, deletes it, then runs the body.
  REQUIRE(ret.body->kids.size() == 5);
  CHECK(find_op(ret.body->kids[0], ir::Op::elem) != nullptr);
  CHECK(ret.body->kids[1]->op == ir::Op::delete_elem);
  CHECK(find_op(ret.body->kids[4], ir::Op::fn_arg) == nullptr);
  CHECK(find_op(ret.body->kids[4], ir::Op::fn_ret) != nullptr);
}

TEST_CASE("kfunc target: $$parms is one sprintf of %#x values", "[kfunc_target]") {
  Lowered l = lower("probe kernel.function(\"vfs_read\") { println($$parms) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* s = find_op(l.module.probes.at(0).body, ir::Op::sprintf);
  REQUIRE(s);
  CHECK(l.module.formats.at(s->a) == "file=%#x buf=%#x count=%#x pos=%#x");
  CHECK(s->kids.size() == 4);
}

TEST_CASE("kfunc target: $x$ is a call of a try/catch function", "[kfunc_target]") {
  Lowered l = lower("probe kernel.function(\"vfs_read\") { println($file->f_path$) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  const ir::Node* call = find_op(l.module.probes.at(0).body, ir::Op::call);
  REQUIRE(call);
  const ir::Function& fn = l.module.functions.at(call->a);
  CHECK(fn.ret == ir::Type::string);
  REQUIRE(fn.body->op == ir::Op::try_);
  const ir::Node* text = find_op(fn.body->kids.at(0), ir::Op::sprintf);
  REQUIRE(text);
  CHECK(l.module.formats.at(text->a) == "{.mnt=%p, .dentry=%p}");
  CHECK(find_op(fn.body->kids.at(1), ir::Op::str)->s == "ERROR");
}

TEST_CASE("kfunc target: @defined folds on members and parameters", "[kfunc_target]") {
  Lowered l = lower(
      "probe kernel.function(\"vfs_read\") { println(@defined($file->nope), @defined($file->f_pos), "
      "@defined($nope), @choose_defined($nope, 7)) }");
  INFO(l.messages);
  REQUIRE(l.ok);
  INFO(ir::print_module(l.module));
  const ir::Node* print = find_op(l.module.probes.at(0).body, ir::Op::printf);
  REQUIRE(print);
  REQUIRE(print->kids.size() == 4);
  int64_t want[] = {0, 1, 0, 7};
  for (size_t i = 0; i < 4; ++i) {
    CHECK(print->kids[i]->op == ir::Op::num);
    CHECK(print->kids[i]->a == want[i]);
  }
}

}  // namespace stap::test
