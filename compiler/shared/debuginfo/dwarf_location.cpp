#include "debuginfo/dwarf_location.h"

#include <dwarf.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stap::debuginfo {

namespace {

const char* const kRegisterNames[] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
                                      "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
                                      "rip"};
// struct pt_regs (arch/x86/include/asm/ptrace.h): r15 r14 r13 r12 bp bx
// r11 r10 r9 r8 ax cx dx si di orig_ax ip cs flags sp ss, 8 bytes each.
const int kPtRegsSlot[] = {10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16};

std::string hex_op(unsigned atom) {
  char text[8];
  std::snprintf(text, sizeof text, "%#x", atom);
  return text;
}

const char* refused_op_name(uint8_t atom) {
  switch (atom) {
    case DW_OP_piece: return "DW_OP_piece (a value split across places)";
    case DW_OP_bit_piece: return "DW_OP_bit_piece (a value split across places)";
    case DW_OP_entry_value:
    case DW_OP_GNU_entry_value: return "DW_OP_entry_value (the value the caller passed, no longer held)";
    case DW_OP_implicit_pointer:
    case DW_OP_GNU_implicit_pointer: return "DW_OP_implicit_pointer (a pointer to an optimized-out object)";
    case DW_OP_form_tls_address:
    case DW_OP_GNU_push_tls_address: return "DW_OP_form_tls_address (thread-local storage)";
    case DW_OP_skip: case DW_OP_bra: return "DW_OP_skip/DW_OP_bra (control flow)";
    case DW_OP_call2: case DW_OP_call4: case DW_OP_call_ref: return "DW_OP_call* (DWARF procedures)";
    case DW_OP_convert: case DW_OP_GNU_convert: case DW_OP_regval_type: case DW_OP_GNU_regval_type:
    case DW_OP_deref_type: case DW_OP_GNU_deref_type: case DW_OP_const_type: case DW_OP_GNU_const_type:
      return "typed DWARF stack ops (DW_OP_convert and kin)";
    case DW_OP_GNU_parameter_ref: return "DW_OP_GNU_parameter_ref (a caller's parameter)";
    default: return nullptr;
  }
}

std::optional<LocOpKind> binary_op(uint8_t atom) {
  switch (atom) {
    case DW_OP_plus: return LocOpKind::plus;
    case DW_OP_minus: return LocOpKind::minus;
    case DW_OP_mul: return LocOpKind::mul;
    case DW_OP_and: return LocOpKind::and_;
    case DW_OP_or: return LocOpKind::or_;
    case DW_OP_xor: return LocOpKind::xor_;
    case DW_OP_shl: return LocOpKind::shl;
    case DW_OP_shr: return LocOpKind::shr;
    case DW_OP_shra: return LocOpKind::shra;
    case DW_OP_neg: return LocOpKind::neg;
    case DW_OP_not: return LocOpKind::not_;
    default: return std::nullopt;
  }
}

std::optional<int64_t> constant_operand(const Dwarf_Op& op) {
  uint8_t a = op.atom;
  if (a >= DW_OP_lit0 && a <= DW_OP_lit31) return a - DW_OP_lit0;
  switch (a) {
    case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
    case DW_OP_constu: return static_cast<int64_t>(op.number);
    case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
    case DW_OP_consts: return static_cast<int64_t>(op.number);
    default: return std::nullopt;
  }
}

// The ops computing the CFA at ctx.pc, from the CFI.
bool cfa_ops(const LocationContext& ctx, std::vector<LocOp>& out, std::string& why) {
  Dwarf_Frame* frame = nullptr;
  if (!ctx.cfi || dwarf_cfi_addrframe(ctx.cfi, ctx.pc, &frame) != 0) {
    why = "no call frame information (CFI) covers this address";
    return false;
  }
  Dwarf_Op* ops = nullptr;
  size_t count = 0;
  bool ok = dwarf_frame_cfa(frame, &ops, &count) == 0;
  std::optional<Location> cfa;
  if (ok) {
    LocationContext plain{.cfi = nullptr, .pc = ctx.pc};
    cfa = translate_expression(ops, count, plain, why);
  }
  free(frame);
  if (!ok) {
    why = "the CFA at this address is not computable from the CFI";
    return false;
  }
  if (!cfa) return false;
  if (cfa->kind == LocKind::register_) {  // a CFA rule "register N": its value
    out.push_back({LocOpKind::push_reg, cfa->reg, 0});
    return true;
  }
  // dwarf_frame_cfa returns the CFA rule "reg + offset" as bregN offset,
  // which translates to a memory location computing that value.
  out.insert(out.end(), cfa->ops.begin(), cfa->ops.end());
  return true;
}

// The ops pushing the frame base (DW_AT_frame_base of ctx.function).
bool frame_base_ops(const LocationContext& ctx, std::vector<LocOp>& out, std::string& why) {
  Dwarf_Attribute attr;
  if (!ctx.function || !dwarf_attr_integrate(ctx.function, DW_AT_frame_base, &attr)) {
    why = "DW_OP_fbreg in a function without DW_AT_frame_base";
    return false;
  }
  Dwarf_Op* ops = nullptr;
  size_t count = 0;
  if (dwarf_getlocation_addr(&attr, ctx.pc, &ops, &count, 1) <= 0) {
    why = "the frame base is not available at this address";
    return false;
  }
  LocationContext inner = ctx;
  inner.function = nullptr;  // a frame base cannot use DW_OP_fbreg itself
  auto base = translate_expression(ops, count, inner, why);
  if (!base) return false;
  if (base->kind == LocKind::register_) {  // DW_OP_reg6: the frame base is rbp's value
    out.push_back({LocOpKind::push_reg, base->reg, 0});
    return true;
  }
  if (base->kind != LocKind::memory) {
    why = "unsupported frame base expression";
    return false;
  }
  out.insert(out.end(), base->ops.begin(), base->ops.end());
  return true;
}

}  // namespace

std::string register_name(int dwarf_reg) {
  if (dwarf_reg >= 0 && dwarf_reg <= 16) return kRegisterNames[dwarf_reg];
  return "dwarf_reg" + std::to_string(dwarf_reg);
}

std::optional<uint32_t> pt_regs_offset(int dwarf_reg) {
  if (dwarf_reg < 0 || dwarf_reg > 16) return std::nullopt;
  return static_cast<uint32_t>(kPtRegsSlot[dwarf_reg] * 8);
}

// Translates one op; `done` is set by ops that end the expression
// (register, stack value, implicit value).
static bool translate_op(const Dwarf_Op& op, const LocationContext& ctx, Location& loc, bool& done,
                         std::string& why) {
  uint8_t a = op.atom;
  auto& ops = loc.ops;
  if (auto k = constant_operand(op)) {
    ops.push_back({LocOpKind::push_const, -1, *k});
  } else if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
    loc.kind = LocKind::register_;
    loc.reg = a - DW_OP_reg0;
    done = true;
  } else if (a == DW_OP_regx) {
    loc.kind = LocKind::register_;
    loc.reg = static_cast<int>(op.number);
    done = true;
  } else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
    ops.push_back({LocOpKind::push_reg, a - DW_OP_breg0, static_cast<int64_t>(op.number)});
  } else if (a == DW_OP_bregx) {
    ops.push_back({LocOpKind::push_reg, static_cast<int>(op.number), static_cast<int64_t>(op.number2)});
  } else if (a == DW_OP_addr) {
    ops.push_back({LocOpKind::push_addr, -1, static_cast<int64_t>(op.number)});
    loc.uses_load_bias = true;
  } else if (a == DW_OP_fbreg) {
    if (!frame_base_ops(ctx, ops, why)) return false;
    ops.push_back({LocOpKind::plus_const, -1, static_cast<int64_t>(op.number)});
  } else if (a == DW_OP_call_frame_cfa) {
    if (!cfa_ops(ctx, ops, why)) return false;
  } else if (a == DW_OP_plus_uconst) {
    ops.push_back({LocOpKind::plus_const, -1, static_cast<int64_t>(op.number)});
  } else if (a == DW_OP_deref) {
    ops.push_back({LocOpKind::deref, -1, 0, 8});
  } else if (a == DW_OP_deref_size) {
    ops.push_back({LocOpKind::deref, -1, 0, static_cast<uint8_t>(op.number)});
  } else if (auto kind = binary_op(a)) {
    ops.push_back({*kind});
  } else if (a == DW_OP_stack_value) {
    loc.kind = LocKind::value;
    done = true;
  } else if (a == DW_OP_implicit_value) {
    loc.kind = LocKind::constant;
    const auto* bytes = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(op.number2));
    loc.bytes.assign(bytes, bytes + op.number);
    done = true;
  } else {
    const char* refused = refused_op_name(a);
    why = refused ? std::string("unsupported location: ") + refused
                  : "unsupported DWARF location op " + hex_op(a);
    return false;
  }
  return true;
}

std::optional<Location> translate_expression(const Dwarf_Op* ops, size_t count,
                                             const LocationContext& ctx, std::string& why) {
  Location loc;
  if (count == 0) {
    why = "empty location expression (optimized out)";
    return std::nullopt;
  }
  for (size_t i = 0; i < count; ++i) {
    bool done = false;
    if (!translate_op(ops[i], ctx, loc, done, why)) return std::nullopt;
    if (!done) continue;
    if (i + 1 < count) {
      const char* refused = refused_op_name(ops[i + 1].atom);
      why = std::string("unsupported location: ") +
            (refused ? refused : "ops after a register or value");
      return std::nullopt;
    }
    if (loc.kind == LocKind::register_ && !loc.ops.empty()) {
      why = "unsupported location: a register after other ops";
      return std::nullopt;
    }
  }
  return loc;
}

static std::optional<Location> const_value(Dwarf_Attribute* attr, std::string& why) {
  Location loc;
  loc.kind = LocKind::constant;
  Dwarf_Block block;
  Dwarf_Sword sdata;
  Dwarf_Word udata;
  if (dwarf_formblock(attr, &block) == 0) {
    loc.bytes.assign(block.data, block.data + block.length);
  } else if (dwarf_whatform(attr) == DW_FORM_sdata && dwarf_formsdata(attr, &sdata) == 0) {
    loc.bytes.resize(8);
    memcpy(loc.bytes.data(), &sdata, 8);
  } else if (dwarf_formudata(attr, &udata) == 0) {
    loc.bytes.resize(8);
    memcpy(loc.bytes.data(), &udata, 8);
  } else {
    why = "unreadable DW_AT_const_value";
    return std::nullopt;
  }
  return loc;
}

std::optional<Location> variable_location(Dwarf_Die* variable, const LocationContext& ctx,
                                          std::string& why) {
  Dwarf_Attribute attr;
  if (dwarf_attr_integrate(variable, DW_AT_const_value, &attr)) return const_value(&attr, why);
  if (!dwarf_attr(variable, DW_AT_location, &attr)) {
    why = "it has no location (optimized out)";
    return std::nullopt;
  }
  Dwarf_Op* ops = nullptr;
  size_t count = 0;
  int found = dwarf_getlocation_addr(&attr, ctx.pc, &ops, &count, 1);
  if (found < 0) {
    why = std::string("unreadable location: ") + dwarf_errmsg(-1);
    return std::nullopt;
  }
  if (found == 0) {
    why = "it is not available at this address (optimized out here)";
    return std::nullopt;
  }
  return translate_expression(ops, count, ctx, why);
}

std::string describe(const Location& loc) {
  static const char* const kinds[] = {"memory", "register", "value", "constant"};
  std::string out = kinds[static_cast<int>(loc.kind)];
  out += ":";
  if (loc.kind == LocKind::register_) out += " " + register_name(loc.reg);
  if (loc.kind == LocKind::constant) out += " " + std::to_string(loc.bytes.size()) + " bytes";
  static const char* const names[] = {"reg", "addr", "const", "plus_const", "deref", "plus",
                                      "minus", "mul", "and", "or", "xor", "shl", "shr", "shra",
                                      "neg", "not"};
  for (const auto& op : loc.ops) {
    out += " ";
    out += names[static_cast<int>(op.kind)];
    if (op.kind == LocOpKind::push_reg)
      out += "(" + register_name(op.reg) + ")" + (op.value < 0 ? "" : "+") + std::to_string(op.value);
    if (op.kind == LocOpKind::deref) out += std::to_string(op.size);
    if (op.kind == LocOpKind::push_const || op.kind == LocOpKind::plus_const)
      out += "(" + std::to_string(op.value) + ")";
    if (op.kind == LocOpKind::push_addr) {
      char hex[24];
      snprintf(hex, sizeof hex, " 0x%llx", static_cast<unsigned long long>(op.value));
      out += hex;
    }
  }
  return out;
}

}  // namespace stap::debuginfo
