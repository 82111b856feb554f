// .plt stubs of an x86-64 binary: each stub jumps through a GOT slot
// (`jmp *disp(%rip)`, after an endbr64 and a bnd prefix in .plt.sec), and
// .rela.plt names the function whose address that slot receives.  Decoding
// the jump rather than counting stubs holds for .plt, .plt.sec and lazy or
// -z now binaries alike.
#include <gelf.h>

#include <cstring>
#include <map>

#include "debuginfo/elf_file.h"

namespace stap::debuginfo {

namespace {

// GOT slot address -> function name, from the R_X86_64_JUMP_SLOT
// relocations.
std::map<uint64_t, std::string> jump_slots(Elf* elf) {
  std::map<uint64_t, std::string> slots;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA || shdr.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    Elf_Scn* symscn = elf_getscn(elf, shdr.sh_link);
    GElf_Shdr symshdr;
    if (!data || !symscn || !gelf_getshdr(symscn, &symshdr)) continue;
    Elf_Data* symdata = elf_getdata(symscn, nullptr);
    if (!symdata) continue;
    for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Rela rela;
      GElf_Sym sym;
      if (!gelf_getrela(data, static_cast<int>(i), &rela)) break;
      if (GELF_R_TYPE(rela.r_info) != R_X86_64_JUMP_SLOT) continue;
      if (!gelf_getsym(symdata, static_cast<int>(GELF_R_SYM(rela.r_info)), &sym)) continue;
      const char* name = elf_strptr(elf, symshdr.sh_link, sym.st_name);
      if (name && *name) slots[rela.r_offset] = name;
    }
  }
  return slots;
}

// The GOT slot a 16-byte stub at `address` jumps through, or 0.
uint64_t stub_target(const unsigned char* code, uint64_t address) {
  for (int at = 0; at + 6 <= 16; ++at) {
    if (code[at] != 0xff || code[at + 1] != 0x25) continue;
    int32_t disp;
    memcpy(&disp, code + at + 2, 4);
    return address + at + 6 + static_cast<int64_t>(disp);
  }
  return 0;
}

}  // namespace

std::vector<PltEntry> ElfFile::plt_entries() const {
  std::vector<PltEntry> out;
  if (machine_ != EM_X86_64) return out;
  auto slots = jump_slots(elf_);
  size_t shstrndx = 0;
  if (slots.empty() || elf_getshdrstrndx(elf_, &shstrndx) != 0) return out;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    const char* name = elf_strptr(elf_, shstrndx, shdr.sh_name);
    if (!name || (strcmp(name, ".plt") != 0 && strcmp(name, ".plt.sec") != 0)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    const auto* code = static_cast<const unsigned char*>(data->d_buf);
    // .plt's first stub is PLT0, the resolver trampoline: it jumps through
    // GOT[2], which no relocation names, so the lookup skips it.
    for (size_t at = 0; at + 16 <= data->d_size; at += 16) {
      auto slot = slots.find(stub_target(code + at, shdr.sh_addr + at));
      if (slot != slots.end()) out.push_back({slot->second, shdr.sh_addr + at});
    }
  }
  return out;
}

}  // namespace stap::debuginfo
