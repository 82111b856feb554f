// Call-frame information to unwind rows (unwind_table.h).
#include "debuginfo/unwind_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "bpf_runtime/unwind_row.h"  // shared with the BPF side

namespace stap::debuginfo {

namespace {

constexpr int kRegRbp = 6, kRegRsp = 7, kRegRa = 16;  // DWARF x86_64 numbers

struct ExecSegment {
  uint64_t vaddr, size, offset;
};

// The executable PT_LOAD segments: where a CFI address has a file offset.
std::vector<ExecSegment> exec_segments(Elf* elf) {
  std::vector<ExecSegment> out;
  size_t count = 0;
  if (elf_getphdrnum(elf, &count) != 0) return out;
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      out.push_back({ph.p_vaddr, ph.p_filesz, ph.p_offset});
  }
  return out;
}

std::optional<uint64_t> to_offset(const std::vector<ExecSegment>& segs, uint64_t vaddr) {
  for (const auto& s : segs)
    if (vaddr >= s.vaddr && vaddr < s.vaddr + s.size) return vaddr - s.vaddr + s.offset;
  return std::nullopt;
}

Elf_Scn* section_named(Elf* elf, const char* name, GElf_Shdr& shdr) {
  size_t strndx = 0;
  if (elf_getshdrstrndx(elf, &strndx) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    if (!gelf_getshdr(scn, &shdr)) continue;
    const char* n = elf_strptr(elf, strndx, shdr.sh_name);
    if (n && strcmp(n, name) == 0 && shdr.sh_type != SHT_NOBITS) return scn;
  }
  return nullptr;
}

// A DW_EH_PE-encoded pointer at p (of the section at `base` in memory,
// `vaddr` in the binary); advances p.  nullopt for encodings not seen in
// .eh_frame_hdr tables.
std::optional<uint64_t> read_encoded(const uint8_t*& p, const uint8_t* end, uint8_t enc,
                                     const uint8_t* base, uint64_t vaddr) {
  uint64_t value = 0;
  size_t size = 0;
  switch (enc & 0x0f) {
    case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8: size = 8; break;
    case DW_EH_PE_udata4: case DW_EH_PE_sdata4: size = 4; break;
    default: return std::nullopt;
  }
  if (p + size > end) return std::nullopt;
  if (size == 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    value = (enc & 0x0f) == DW_EH_PE_sdata4 ? uint64_t(int64_t(int32_t(v))) : v;
  } else {
    memcpy(&value, p, 8);
  }
  uint64_t here = vaddr + uint64_t(p - base);
  p += size;
  switch (enc & 0x70) {
    case 0: break;
    case DW_EH_PE_pcrel: value += here; break;
    case DW_EH_PE_datarel: value += vaddr; break;  // .eh_frame_hdr: its own start
    default: return std::nullopt;
  }
  return value;
}

// The FDEs' initial locations from .eh_frame_hdr's search table.
bool eh_frame_starts(Elf* elf, std::vector<uint64_t>& starts) {
  GElf_Shdr shdr;
  Elf_Scn* scn = section_named(elf, ".eh_frame_hdr", shdr);
  Elf_Data* data = scn ? elf_getdata(scn, nullptr) : nullptr;
  if (!data || data->d_size < 4) return false;
  const auto* base = static_cast<const uint8_t*>(data->d_buf);
  const uint8_t* end = base + data->d_size;
  if (base[0] != 1 || base[3] == DW_EH_PE_omit) return false;
  const uint8_t* p = base + 4;
  auto frame = read_encoded(p, end, base[1], base, shdr.sh_addr);
  auto count = read_encoded(p, end, base[2], base, shdr.sh_addr);
  if (!frame || !count) return false;
  for (uint64_t i = 0; i < *count; ++i) {
    auto start = read_encoded(p, end, base[3], base, shdr.sh_addr);
    if (!start || !read_encoded(p, end, base[3], base, shdr.sh_addr)) return false;
    starts.push_back(*start);
  }
  return true;
}

// The FDEs' initial locations in .debug_frame (absolute 8-byte addresses).
bool debug_frame_starts(Elf* elf, std::vector<uint64_t>& starts) {
  GElf_Shdr shdr;
  Elf_Scn* scn = section_named(elf, ".debug_frame", shdr);
  Elf_Data* data = scn ? elf_getdata(scn, nullptr) : nullptr;
  if (!data) return false;
  const unsigned char* ident = reinterpret_cast<const unsigned char*>(elf_getident(elf, nullptr));
  Dwarf_Off offset = 0, next = 0;
  Dwarf_CFI_Entry entry;
  while (dwarf_next_cfi(ident, data, false, offset, &next, &entry) == 0) {
    if (!dwarf_cfi_cie_p(&entry) && entry.fde.start + 8 <= entry.fde.end) {
      uint64_t start;
      memcpy(&start, entry.fde.start, 8);
      if (start) starts.push_back(start);
    }
    if (next == Dwarf_Off(-1)) break;
    offset = next;
  }
  return !starts.empty();
}

// An offset-from-CFA register rule (DW_OP_call_frame_cfa [plus_uconst N]).
std::optional<int64_t> cfa_relative(const Dwarf_Op* ops, size_t nops) {
  if (nops == 0 || ops[0].atom != DW_OP_call_frame_cfa) return std::nullopt;
  if (nops == 1) return 0;
  if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) return int64_t(ops[1].number);
  return std::nullopt;
}

// glibc/binutils' .plt CFA: rsp + 8 + ((rip & 15) >= T) << 3.
bool plt_rule(const Dwarf_Op* ops, size_t nops, UnwindRow& row) {
  if (nops != 9 || ops[0].atom != DW_OP_breg7 || ops[1].atom != DW_OP_breg16 ||
      ops[1].number != 0 || ops[2].atom != DW_OP_lit15 || ops[3].atom != DW_OP_and ||
      ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15 || ops[5].atom != DW_OP_ge ||
      ops[6].atom != DW_OP_lit3 || ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
    return false;
  row.cfa = STAP_CFA_PLT;
  row.cfa_offset = uint16_t(ops[0].number);
  row.arg = uint8_t(ops[4].atom - DW_OP_lit0);
  return true;
}

// The row a libdw frame state makes (start not set).
UnwindRow row_of(Dwarf_Frame* frame) {
  UnwindRow row;
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  Dwarf_Op mem[3];
  // An undefined return address marks the outermost frame (_start,
  // clone's child): the stack ends here.
  if (dwarf_frame_register(frame, kRegRa, mem, &ops, &nops) == 0 && nops == 0 && ops == mem) {
    row.arg = 1;
    return row;
  }
  if (dwarf_frame_cfa(frame, &ops, &nops) != 0) return row;
  if (nops == 1 && ops[0].atom == DW_OP_bregx) {
    auto off = int64_t(ops[0].number2);
    if ((ops[0].number != kRegRsp && ops[0].number != kRegRbp) || off < 0 || off > 0xffff) return row;
    row.cfa = ops[0].number == kRegRsp ? STAP_CFA_RSP : STAP_CFA_RBP;
    row.cfa_offset = uint16_t(off);
  } else if (!plt_rule(ops, nops, row)) {
    return row;
  }
  if (dwarf_frame_register(frame, kRegRa, mem, &ops, &nops) != 0 || cfa_relative(ops, nops) != -8)
    return UnwindRow{};
  if (dwarf_frame_register(frame, kRegRbp, mem, &ops, &nops) != 0) return UnwindRow{};
  auto rbp = cfa_relative(ops, nops);
  if (nops > 0 && (!rbp || *rbp % 8 != 0 || *rbp / 8 < -128 || *rbp / 8 > 127 || *rbp == 0))
    return UnwindRow{};  // saved somewhere the unwinder cannot reach
  if (rbp && nops > 0) row.rbp = int8_t(*rbp / 8);
  return row;
}

// A signal frame ('S' CIE: glibc's __restore_rt): the CFA is the
// interrupted rsp, saved in the ucontext the kernel left at rsp
// (DW_OP_breg7 160; DW_OP_deref, the rt_sigframe layout of x86_64 Linux).
// The unwinder then reloads rip, rsp and rbp from that ucontext.
UnwindRow signal_row(Dwarf_Frame* frame) {
  UnwindRow row;
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 2 && ops[0].atom == DW_OP_breg7 &&
      ops[0].number == 160 && ops[1].atom == DW_OP_deref)
    row.arg = 2;
  return row;
}

// Appends the rows of the FDE at `start`, not past `bound` (the next
// FDE's start); what is left of [start, bound) after it is UNKNOWN.
void add_fde_rows(Dwarf_CFI* cfi, uint64_t start, uint64_t bound,
                  const std::vector<ExecSegment>& segs, UnwindTable& table) {
  uint64_t addr = start;
  while (addr < bound) {
    Dwarf_Frame* frame = nullptr;
    if (dwarf_cfi_addrframe(cfi, addr, &frame) != 0) break;
    Dwarf_Addr from = 0, to = 0;
    bool signal = false;
    dwarf_frame_info(frame, &from, &to, &signal);
    UnwindRow row = signal ? signal_row(frame) : row_of(frame);
    free(frame);
    if (auto off = to_offset(segs, addr); off && *off <= UINT32_MAX) {
      row.start = uint32_t(*off);
      table.rows.push_back(row);
    }
    if (to <= addr) break;  // a malformed range: stop this FDE here
    addr = to;
  }
  if (addr < bound)
    if (auto off = to_offset(segs, addr); off && *off <= UINT32_MAX) {
      UnwindRow gap;
      gap.start = uint32_t(*off);
      table.rows.push_back(gap);
    }
}

// Sorted, one row per start (the last added wins), equal neighbours merged.
void finish_rows(UnwindTable& table) {
  auto& rows = table.rows;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const UnwindRow& a, const UnwindRow& b) { return a.start < b.start; });
  std::vector<UnwindRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + 1 < rows.size() && rows[i + 1].start == rows[i].start) continue;
    if (!out.empty() && out.back().same_rule(rows[i])) continue;
    out.push_back(rows[i]);
  }
  rows = std::move(out);
  table.unknown_rows = size_t(std::count_if(rows.begin(), rows.end(),
                                            [](const UnwindRow& r) { return r.cfa == STAP_CFA_UNKNOWN; }));
}

bool build_from_elf(Elf* elf, UnwindTable& table, std::string& why) {
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64 || ehdr.e_ident[EI_CLASS] != ELFCLASS64) {
    why = "not an x86_64 ELF file";
    return false;
  }
  std::vector<uint64_t> starts;
  Dwarf* dwarf = nullptr;
  Dwarf_CFI* cfi = nullptr;
  bool eh = false;
  if (eh_frame_starts(elf, starts) && (cfi = dwarf_getcfi_elf(elf))) {
    eh = true;
    table.source = ".eh_frame";
  } else {
    starts.clear();
    dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
    cfi = dwarf ? dwarf_getcfi(dwarf) : nullptr;
    if (!cfi || !debug_frame_starts(elf, starts)) {
      if (dwarf) dwarf_end(dwarf);
      why = "no call-frame information (.eh_frame_hdr or .debug_frame)";
      return false;
    }
    table.source = ".debug_frame";
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  auto segs = exec_segments(elf);
  for (size_t i = 0; i < starts.size(); ++i)
    add_fde_rows(cfi, starts[i], i + 1 < starts.size() ? starts[i + 1] : UINT64_MAX, segs, table);
  table.fdes = starts.size();
  if (eh) dwarf_cfi_end(cfi);
  if (dwarf) dwarf_end(dwarf);
  finish_rows(table);
  return true;
}

}  // namespace

uint64_t UnwindRow::packed() const { return stap_unwind_row(start, cfa, arg, cfa_offset, rbp); }

bool build_unwind_table(const std::string& path, UnwindTable& table, std::string& why) {
  elf_version(EV_CURRENT);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why = path + ": " + strerror(errno);
    return false;
  }
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  bool ok = false;
  if (!elf || elf_kind(elf) != ELF_K_ELF) why = "not an ELF file";
  else ok = build_from_elf(elf, table, why);
  if (!ok) why = path + ": " + why;
  if (elf) elf_end(elf);
  close(fd);
  return ok;
}

bool build_unwind_table_image(const std::string& name, std::string image, UnwindTable& table,
                              std::string& why) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(image.data(), image.size());
  bool ok = false;
  if (!elf || elf_kind(elf) != ELF_K_ELF) why = "not an ELF image";
  else ok = build_from_elf(elf, table, why);
  if (!ok) why = name + ": " + why;
  if (elf) elf_end(elf);
  return ok;
}

const UnwindRow* find_unwind_row(const UnwindTable& table, uint64_t offset) {
  auto it = std::upper_bound(table.rows.begin(), table.rows.end(), offset,
                             [](uint64_t o, const UnwindRow& r) { return o < r.start; });
  return it == table.rows.begin() ? nullptr : &*(it - 1);
}

}  // namespace stap::debuginfo
