// Where a variable lives at a given pc, as a small program the code
// generator can turn into reads of the probed task's pt_regs and user
// memory.  The DWARF expression (DW_AT_location, an exprloc or the entry
// of a location list covering the pc) is translated op by op; the frame
// base (DW_OP_fbreg) is the function's DW_AT_frame_base, and
// DW_OP_call_frame_cfa is the CFA that the binary's CFI (.eh_frame or
// .debug_frame) gives at that pc.
//
// Supported DWARF ops: DW_OP_addr, DW_OP_reg0..31/regx, DW_OP_breg0..31/
// bregx, DW_OP_fbreg, DW_OP_call_frame_cfa, DW_OP_lit0..31, DW_OP_const*
// (1u..8s, constu, consts), DW_OP_plus_uconst, DW_OP_plus, DW_OP_minus,
// DW_OP_mul, DW_OP_and, DW_OP_or, DW_OP_xor, DW_OP_shl, DW_OP_shr,
// DW_OP_shra, DW_OP_neg, DW_OP_not, DW_OP_deref, DW_OP_deref_size,
// DW_OP_stack_value, DW_OP_implicit_value, and DW_AT_const_value.
// Refused with a message: pieces (DW_OP_piece/bit_piece: a value split
// across places), entry values (DW_OP_entry_value: the caller's value,
// gone), implicit pointers, typed-stack ops (convert, regval_type,
// deref_type), control flow (skip, bra), calls, TLS
// (DW_OP_form_tls_address), and stack shuffles (dup, over, pick, swap, rot).
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stap::debuginfo {

enum class LocOpKind : uint8_t {
  push_reg,    // push (DWARF register `reg`) + value
  push_addr,   // push link-time address `value`; add the load bias when
               // the binary is relocatable (PIE or shared library)
  push_const,  // push value
  plus_const,  // top += value
  deref,       // top = zero-extended `size`-byte read of user memory at top
  plus, minus, mul, and_, or_, xor_, shl, shr, shra,  // pop b, pop a, push a OP b
  neg, not_,   // top = -top, ~top
};

struct LocOp {
  LocOpKind kind;
  int reg = -1;
  int64_t value = 0;
  uint8_t size = 0;
};

enum class LocKind : uint8_t {
  memory,    // ops compute the address of the variable's bytes
  register_, // the value is in DWARF register `reg` (no ops)
  value,     // ops compute the value itself (DW_OP_stack_value)
  constant,  // the value is `bytes` (DW_OP_implicit_value, DW_AT_const_value)
};

struct Location {
  LocKind kind = LocKind::memory;
  std::vector<LocOp> ops;
  int reg = -1;
  std::vector<uint8_t> bytes;
  bool uses_load_bias = false;  // some op is push_addr
};

// "memory: reg(rsp)+8 plus_const(-20)", "register: rdi" and the like,
// for tests and -vv.
std::string describe(const Location& loc);

// x86-64 DWARF register numbers: 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi,
// 6 rbp, 7 rsp, 8..15 r8..r15, 16 rip (return address column).
std::string register_name(int dwarf_reg);
// The byte offset of the register in the kernel's x86-64 struct pt_regs
// (what a uprobe program's context points at); nullopt for registers
// pt_regs does not hold (SSE, x87).
std::optional<uint32_t> pt_regs_offset(int dwarf_reg);

// What a location is computed from.
struct LocationContext {
  Dwarf_Die* function = nullptr;  // the subprogram (its DW_AT_frame_base)
  Dwarf_CFI* cfi = nullptr;       // for DW_OP_call_frame_cfa
  uint64_t pc = 0;                // link-time address of the probe point
};

// The location of `variable` (a DW_TAG_formal_parameter or DW_TAG_variable
// DIE) at ctx.pc.  nullopt with `why` set when it has none there (optimized
// out), or its expression uses an op listed above as refused.
std::optional<Location> variable_location(Dwarf_Die* variable, const LocationContext& ctx,
                                          std::string& why);

// Translates one DWARF expression (no frame base resolution when
// ctx.function is null).  Exposed for the frame base and for tests.
std::optional<Location> translate_expression(const Dwarf_Op* ops, size_t count,
                                             const LocationContext& ctx, std::string& why);

}  // namespace stap::debuginfo
