// A binary's call-frame information as the compact table the BPF
// unwinder searches (bpf_runtime/unwind.c, row layout in
// bpf_runtime/unwind_row.h): one row per change of the rules, keyed by
// file offset, so the kernel side turns a user pc into a key with the
// mapping's vm_start and vm_pgoff alone.
//
// The rows come from .eh_frame (else .debug_frame) through libdw: for
// every FDE, dwarf_cfi_addrframe / dwarf_frame_info walk its rows, and
// each row keeps what an x86_64 frame step needs: the CFA as rsp+N or
// rbp+N, where the caller's rbp was saved, and that the return address is
// at CFA-8.  .plt stubs (a CFA expression on the pc's low bits) become
// PLT rows.  Rows whose rules are anything else (signal frames, DWARF
// expressions) are UNKNOWN: the unwinder takes a frame-pointer step
// there; an undefined return address (_start) is UNKNOWN with arg 1,
// where the stack ends; glibc's signal trampoline (__restore_rt) is
// UNKNOWN with arg 2: the interrupted registers are in its ucontext.  Gaps between FDEs are UNKNOWN rows too.  Equal neighbours are
// merged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stap::debuginfo {

struct UnwindRow {
  uint32_t start = 0;       // file offset of the first pc
  uint8_t cfa = 0;          // STAP_CFA_* (bpf_runtime/unwind_row.h)
  uint8_t arg = 0;          // PLT: the (pc & 15) threshold; UNKNOWN: 1 = the outermost
                            // frame, 2 = a signal frame
  uint16_t cfa_offset = 0;  // bytes
  int8_t rbp = 0;           // caller's rbp at CFA + 8 * rbp; 0: unchanged

  bool same_rule(const UnwindRow& o) const {
    return cfa == o.cfa && arg == o.arg && cfa_offset == o.cfa_offset && rbp == o.rbp;
  }
  uint64_t packed() const;  // the 64-bit row of bpf_runtime/unwind_row.h
};

struct UnwindTable {
  std::vector<UnwindRow> rows;  // sorted by start, no two equal neighbours
  std::string source;           // ".eh_frame" or ".debug_frame"
  size_t fdes = 0;              // FDEs read
  size_t unknown_rows = 0;      // rows with a rule the unwinder cannot follow
};

// The table of the ELF file at `path`; false with `why` set when it has
// no usable CFI or is not an x86_64 ELF.
bool build_unwind_table(const std::string& path, UnwindTable& table, std::string& why);

// The same from an ELF image in memory (the vDSO); `name` for messages.
bool build_unwind_table_image(const std::string& name, std::string image, UnwindTable& table,
                              std::string& why);

// The row that covers file offset `offset` (the last with start <= it);
// nullptr before the first row.
const UnwindRow* find_unwind_row(const UnwindTable& table, uint64_t offset);

}  // namespace stap::debuginfo
