#include "debuginfo/elf_file.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include "debuginfo/minidebug.h"

namespace stap::debuginfo {

std::string demangle(const std::string& name) {
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return {};
  int status = -1;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string result = (status == 0 && out) ? out : "";
  free(out);
  return result;
}

std::unique_ptr<ElfFile> ElfFile::open(const std::string& path, std::string& why) {
  std::unique_ptr<ElfFile> file(new ElfFile());
  file->path_ = path;
  if (!file->read(why)) return nullptr;
  return file;
}

ElfFile::~ElfFile() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

bool ElfFile::read(std::string& why) {
  elf_version(EV_CURRENT);
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    why = path_ + ": " + strerror(errno);
    return false;
  }
  elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  GElf_Ehdr ehdr;
  if (!elf_ || elf_kind(elf_) != ELF_K_ELF || !gelf_getehdr(elf_, &ehdr)) {
    why = path_ + ": not an ELF file";
    return false;
  }
  if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
    why = path_ + ": not an executable or shared library";
    return false;
  }
  relocatable_ = ehdr.e_type == ET_DYN;
  machine_ = ehdr.e_machine;
  read_headers();
  read_dynamic();
  read_notes();
  read_symbols(elf_, ElfSymbol::symtab);
  read_minidebug();
  finish_symbols();
  return true;
}

void ElfFile::read_headers() {
  size_t count = 0;
  if (elf_getphdrnum(elf_, &count) == 0) {
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr phdr;
      if (!gelf_getphdr(elf_, static_cast<int>(i), &phdr) || phdr.p_type != PT_LOAD) continue;
      segments_.push_back({.vaddr = phdr.p_vaddr, .memsz = phdr.p_memsz,
                           .offset = phdr.p_offset, .filesz = phdr.p_filesz,
                           .executable = (phdr.p_flags & PF_X) != 0});
    }
  }
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf_, &shstrndx) != 0) return;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    const char* name = elf_strptr(elf_, shstrndx, shdr.sh_name);
    section_names_.push_back(name ? name : "");
    if (name && strcmp(name, ".gnu_debuglink") == 0) {
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (data && data->d_size > 4) {
        const char* text = static_cast<const char*>(data->d_buf);
        debuglink_.assign(text, strnlen(text, data->d_size));
        // The CRC32 sits at the next 4-byte boundary after the name's NUL.
        size_t crc_at = (debuglink_.size() + 4) & ~size_t(3);
        if (crc_at + 4 <= data->d_size) memcpy(&debuglink_crc_, text + crc_at, 4);
      }
    }
  }
}

bool ElfFile::has_section(const std::string& name) const {
  return std::find(section_names_.begin(), section_names_.end(), name) != section_names_.end();
}

void ElfFile::read_dynamic() {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || shdr.sh_entsize == 0) continue;
    for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(data, static_cast<int>(i), &dyn)) break;
      if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME && dyn.d_tag != DT_RUNPATH &&
          dyn.d_tag != DT_RPATH)
        continue;
      const char* name = elf_strptr(elf_, shdr.sh_link, dyn.d_un.d_val);
      if (!name) continue;
      if (dyn.d_tag == DT_NEEDED) needed_.push_back(name);
      else if (dyn.d_tag == DT_SONAME) soname_ = name;
      else if (dyn.d_tag == DT_RUNPATH || runpath_.empty()) set_runpath(name);
    }
  }
}

// DT_RUNPATH wins over DT_RPATH; "$ORIGIN" is the binary's directory.
void ElfFile::set_runpath(const std::string& text) {
  std::string origin = path_.substr(0, path_.rfind('/') == std::string::npos ? 0 : path_.rfind('/'));
  runpath_.clear();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    std::string dir = text.substr(start, end - start);
    for (const char* token : {"${ORIGIN}", "$ORIGIN"})
      for (size_t at; (at = dir.find(token)) != std::string::npos;)
        dir.replace(at, strlen(token), origin);
    if (!dir.empty()) runpath_.push_back(dir);
    start = end + 1;
  }
}

void ElfFile::read_notes() {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    GElf_Nhdr nhdr;
    size_t offset = 0, name_at = 0, desc_at = 0;
    while ((offset = gelf_getnote(data, offset, &nhdr, &name_at, &desc_at)) > 0) {
      const char* base = static_cast<const char*>(data->d_buf);
      if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
          memcmp(base + name_at, "GNU", 4) != 0)
        continue;
      static const char hex[] = "0123456789abcdef";
      build_id_.clear();
      for (size_t i = 0; i < nhdr.n_descsz; ++i) {
        auto byte = static_cast<unsigned char>(base[desc_at + i]);
        build_id_ += hex[byte >> 4];
        build_id_ += hex[byte & 15];
      }
      return;
    }
  }
}

// Reads the function symbols of `elf`'s .symtab (and of elf_'s .dynsym
// when reading elf_ itself).
void ElfFile::read_symbols(Elf* elf, ElfSymbol::Source table_kind) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    if (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) continue;
    ElfSymbol::Source source = table_kind;
    if (shdr.sh_type == SHT_DYNSYM) {
      if (table_kind != ElfSymbol::symtab) continue;
      source = ElfSymbol::dynsym;
    }
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || shdr.sh_entsize == 0) continue;
    size_t count = shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
      int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
          sym.st_value == 0)
        continue;
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (!name || !*name) continue;
      int bind = GELF_ST_BIND(sym.st_info);
      std::string plain = name;
      // .dynsym names carry no @VERSION (that is in .gnu.version); .symtab
      // ones may ("memcpy@GLIBC_2.2.5" in static archives): drop it.
      if (auto at = plain.find('@'); at != std::string::npos && at > 0) plain.resize(at);
      functions_.push_back({.name = plain, .demangled = demangle(plain),
                            .address = sym.st_value, .size = sym.st_size,
                            .weak = bind == STB_WEAK,
                            .global = bind == STB_GLOBAL || bind == STB_WEAK,
                            .ifunc = type == STT_GNU_IFUNC, .source = source});
    }
  }
}

void ElfFile::read_minidebug() {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    size_t shstrndx = 0;
    if (!gelf_getshdr(scn, &shdr) || elf_getshdrstrndx(elf_, &shstrndx) != 0) continue;
    const char* name = elf_strptr(elf_, shstrndx, shdr.sh_name);
    if (!name || strcmp(name, ".gnu_debugdata") != 0) continue;
    Elf_Data* data = elf_rawdata(scn, nullptr);
    if (!data) return;
    std::vector<char> image;
    if (!xz_decompress(data->d_buf, data->d_size, image, minidebug_note_)) return;
    Elf* inner = elf_memory(image.data(), image.size());
    if (!inner) {
      minidebug_note_ = ".gnu_debugdata: not an ELF image";
      return;
    }
    read_symbols(inner, ElfSymbol::minidebug);
    elf_end(inner);
    return;
  }
}

void ElfFile::add_debug_symbols(Elf* debug_elf) {
  if (!debug_elf || debug_elf == elf_) return;
  read_symbols(debug_elf, ElfSymbol::debugfile);
  finish_symbols();
}

void ElfFile::finish_symbols() {
  // Prefer .symtab over the debug file's over MiniDebugInfo over .dynsym
  // for the same (name, address): the enum order.
  std::sort(functions_.begin(), functions_.end(), [](const ElfSymbol& a, const ElfSymbol& b) {
    if (a.address != b.address) return a.address < b.address;
    if (a.name != b.name) return a.name < b.name;
    return a.source < b.source;
  });
  auto same = [](const ElfSymbol& a, const ElfSymbol& b) {
    return a.address == b.address && a.name == b.name;
  };
  functions_.erase(std::unique(functions_.begin(), functions_.end(), same), functions_.end());
}

std::vector<const ElfSymbol*> ElfFile::functions_named(const std::string& name) const {
  std::vector<const ElfSymbol*> out;
  for (const auto& sym : functions_)
    if (sym.name == name || (!sym.demangled.empty() && sym.demangled == name))
      out.push_back(&sym);
  return out;
}

const ElfSymbol* ElfFile::function_at(uint64_t address) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), address,
                             [](uint64_t a, const ElfSymbol& s) { return a < s.address; });
  // Walk back over aliases and nested symbols for one that covers address.
  const ElfSymbol* nearest = nullptr;
  while (it != functions_.begin()) {
    --it;
    if (!nearest) nearest = &*it;
    if (it->size && address < it->address + it->size) return &*it;
    if (it->address != nearest->address) break;
  }
  return nearest && nearest->size == 0 ? nearest : nullptr;
}

std::optional<uint64_t> ElfFile::file_offset(uint64_t vaddr) const {
  for (const auto& seg : segments_)
    if (vaddr >= seg.vaddr && vaddr < seg.vaddr + seg.filesz)
      return vaddr - seg.vaddr + seg.offset;
  return std::nullopt;
}

}  // namespace stap::debuginfo
