// The probed thread's saved registers as builtins and values:
// register("NAME"), u_register("NAME"), returnval() (lower.cpp's
// context_builtin), and the registers marks' operands and DWARF locations
// name.  The reads are `reg` nodes: a struct pt_regs offset, which codegen
// reads where the program has one (kprobes, uprobes) and refuses elsewhere.
#include <map>
#include <tuple>

#include "debuginfo/dwarf_location.h"
#include "elaborate/typecheck.h"
#include "lower/lowerer.h"

namespace stap::lower {

// register("NAME") / u_register("NAME"): a register by stap's x86-64
// names ("rax", "eax", "ax", "al", "rip", "orig_rax", "r8"...).  The
// 32/16/8-bit names give the low part, sign-extended by register() and
// zero-extended by u_register(), as stap's tapset does.
ir::Node* Lowerer::register_value(ast::CallExpr& call) {
  std::string token = describe_expr(call);
  auto* lit = call.args.empty() ? nullptr : dynamic_cast<ast::StringLit*>(call.args[0]);
  if (!lit) {
    error(call.loc, call.name + "() needs the register's name as a literal string here", token);
    return num(0);
  }
  static const std::map<std::string, int64_t> kOffsets = {
      {"r15", 0},  {"r14", 8},   {"r13", 16},  {"r12", 24},       {"rbp", 32},  {"rbx", 40},
      {"r11", 48}, {"r10", 56},  {"r9", 64},   {"r8", 72},        {"rax", 80},  {"rcx", 88},
      {"rdx", 96}, {"rsi", 104}, {"rdi", 112}, {"orig_rax", 120}, {"rip", 128}, {"xcs", 136},
      {"eflags", 144}, {"rsp", 152}, {"xss", 160}};
  static const std::map<std::string, std::pair<std::string, uint32_t>> kParts = {
      {"ebp", {"rbp", 4}}, {"ebx", {"rbx", 4}}, {"eax", {"rax", 4}}, {"ecx", {"rcx", 4}},
      {"edx", {"rdx", 4}}, {"esi", {"rsi", 4}}, {"edi", {"rdi", 4}}, {"orig_eax", {"orig_rax", 4}},
      {"eip", {"rip", 4}}, {"esp", {"rsp", 4}}, {"bp", {"rbp", 2}},  {"bx", {"rbx", 2}},
      {"ax", {"rax", 2}},  {"cx", {"rcx", 2}},  {"dx", {"rdx", 2}},  {"si", {"rsi", 2}},
      {"di", {"rdi", 2}},  {"ip", {"rip", 2}},  {"sp", {"rsp", 2}},  {"bl", {"rbx", 1}},
      {"al", {"rax", 1}},  {"cl", {"rcx", 1}},  {"dl", {"rdx", 1}}};
  std::string reg = lit->value;
  uint32_t size = 8;
  if (auto part = kParts.find(reg); part != kParts.end()) std::tie(reg, size) = part->second;
  auto at = kOffsets.find(reg);
  if (at == kOffsets.end()) {
    error(lit->loc, "Unknown register: " + lit->value, describe_expr(*lit));
    return num(0);
  }
  ir::Node* v = make(ir::Op::reg, ir::Type::long_);
  v->a = at->second;
  if (size == 8) return v;
  return narrow_register(v, size, call.name == "register");
}

// A saved register of the probed thread, `size` bytes of it from bit
// `shift` (%ah: 8), sign- or zero-extended.
ir::Node* Lowerer::user_register(int dwarf_reg, uint32_t size, uint32_t shift, bool is_signed,
                                 SourceLoc loc, const std::string& token) {
  std::optional<uint32_t> offset = debuginfo::pt_regs_offset(dwarf_reg);
  if (!offset) {
    error(loc, "register " + debuginfo::register_name(dwarf_reg) +
                   " is not in the probed thread's saved registers", token);
    return num(0);
  }
  ir::Node* v = make(ir::Op::reg, ir::Type::long_);
  v->a = *offset;
  if (shift) {
    ir::Node* shifted = make(ir::Op::shr, ir::Type::long_);
    shifted->kids = {v, num(shift)};
    ir::Node* mask = make(ir::Op::bit_and, ir::Type::long_);
    mask->kids = {shifted, num(0xff)};
    v = mask;
  }
  return narrow_register(v, size, is_signed);
}

// The low `size` bytes of a register value, sign- or zero-extended.
ir::Node* Lowerer::narrow_register(ir::Node* v, uint32_t size, bool is_signed) {
  if (size >= 8) return v;
  if (!is_signed) {
    ir::Node* masked = make(ir::Op::bit_and, ir::Type::long_);
    masked->kids = {v, num(static_cast<int64_t>((uint64_t{1} << (8 * size)) - 1))};
    return masked;
  }
  // Shift the low bytes up and arithmetically back.
  int64_t bits = 64 - 8 * static_cast<int64_t>(size);
  ir::Node* up = make(ir::Op::shl, ir::Type::long_);
  up->kids = {v, num(bits)};
  ir::Node* down = make(ir::Op::shr, ir::Type::long_);
  down->kids = {up, num(bits)};
  return down;
}

}  // namespace stap::lower
