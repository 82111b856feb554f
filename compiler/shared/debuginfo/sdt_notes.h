// USDT marks: the .note.stapsdt notes that <sys/sdt.h>'s STAP_PROBEn
// macros leave in a binary (owner "stapsdt", type 3): the mark's pc, the
// link-time address of .stapsdt.base, the semaphore's address (0 when
// none), provider, name and an argument string such as
// "-4@%edi 8@-16(%rbp) 8@$42".  As the SDT spec says, when the binary's
// .stapsdt.base section sits elsewhere than the note recorded (prelink
// moved it), pc and semaphore move by the same difference.
//
// Each argument is "[-]SIZE@OPERAND" (negative size: signed; no size: a
// signed 8-byte value) with an x86-64 AT&T operand: %reg (any width, as
// %edi or %r8d), $imm, [disp](%base[,%index[,scale]]), sym[+off](%rip) or
// sym[+off] (a static address).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "debuginfo/elf_file.h"

namespace stap::debuginfo {

struct SdtOperand {
  enum Kind : uint8_t { in_reg, in_mem, immediate } kind = immediate;
  uint8_t size = 8;          // bytes of the argument (1, 2, 4, 8)
  bool is_signed = true;
  int reg = -1;              // in_reg: the DWARF register; in_mem: the base (-1: none)
  uint8_t reg_shift = 0;     // reg: 8 for %ah/%bh/%ch/%dh
  int index_reg = -1;        // mem: the index register (-1: none)
  uint8_t scale = 1;         // mem: index scale
  int64_t value = 0;         // imm: the value; mem: the displacement
  std::string symbol;        // mem/imm: a symbol added to value ("" if none);
                             // with reg == 16 (%rip) it is the address itself
  std::string text;          // the operand as written
};

struct SdtMark {
  std::string provider, name;
  uint64_t pc = 0;            // link-time address of the mark (a nop)
  uint64_t semaphore = 0;     // link-time address of the semaphore, 0: none
  std::string arg_text;       // as in the note
  std::vector<SdtOperand> args;
  std::string arg_error;      // why arg_text did not parse ("" when it did)
};

// The marks of `binary`, in note order (empty when it has none).
std::vector<SdtMark> read_sdt_marks(const ElfFile& binary);

// Parses an argument string; false with `why` naming the bad argument.
bool parse_sdt_args(const std::string& text, std::vector<SdtOperand>& out, std::string& why);

// The DWARF register and width of an x86-64 register name without '%'
// ("edi" -> 5, 4 bytes; "ah" -> 0, 1 byte, shift 8); false when unknown.
bool x86_register(const std::string& name, int& dwarf_reg, uint8_t& width, uint8_t& shift);

}  // namespace stap::debuginfo
