#include "loader/session/object_file.h"

#include <gelf.h>
#include <libelf.h>

#include <memory>

#include "ir/serialize.h"

namespace stap {

namespace {

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};

}  // namespace

bool read_elf_section(std::string_view object, const char* name, std::string& out,
                      std::string& error) {
  if (elf_version(EV_CURRENT) == EV_NONE) {
    error = "libelf is unusable";
    return false;
  }
  // elf_memory wants a mutable buffer; it only reads in ELF_C_READ_MMAP mode.
  std::string copy(object);
  std::unique_ptr<Elf, ElfCloser> elf(elf_memory(copy.data(), copy.size()));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
    error = "not an ELF object file";
    return false;
  }
  size_t names = 0;
  if (elf_getshdrstrndx(elf.get(), &names) != 0) {
    error = "ELF object without section names";
    return false;
  }
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn; scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr header;
    if (!gelf_getshdr(scn, &header)) continue;
    const char* section = elf_strptr(elf.get(), names, header.sh_name);
    if (!section || std::string_view(section) != name) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || header.sh_type == SHT_NOBITS) {
      out.clear();
      return true;
    }
    out.assign(static_cast<const char*>(data->d_buf), data->d_size);
    return true;
  }
  error = std::string("no ") + name + " section";
  return false;
}

bool read_object_module(std::string_view object, ir::Module& out, std::string& error) {
  std::string meta;
  std::string why;
  if (!read_elf_section(object, ir::kMetaSection, meta, why)) {
    error = "not a compiled stap object (" + why + ")";
    return false;
  }
  if (!ir::deserialize(meta, out, why)) {
    error = "unreadable " + std::string(ir::kMetaSection) + " section: " + why;
    return false;
  }
  return true;
}

}  // namespace stap
