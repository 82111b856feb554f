#include "debuginfo/kernel_dwarf.h"

#include <elf.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace stap::debuginfo {

namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// Whether `path` is an ELF file with .debug_info and, when `build_id` is
// given, that build id.
bool has_dwarf(const std::string& path, const std::string& build_id, std::string& looked) {
  looked += (looked.empty() ? "" : ", ") + path;
  if (!exists(path)) return false;
  std::string why;
  std::unique_ptr<ElfFile> elf = ElfFile::open(path, why);
  if (!elf) {
    // A .ko (ET_REL) is not an ElfFile: look for the section by name.
    std::string bytes = read_all(path);
    return bytes.find(".debug_info") != std::string::npos;
  }
  if (!elf->has_dwarf()) {
    looked += " (no .debug_info)";
    return false;
  }
  if (!build_id.empty() && !elf->build_id().empty() && elf->build_id() != build_id) {
    looked += " (another build of the kernel)";
    return false;
  }
  return true;
}

std::string hex_bytes(const unsigned char* p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

// The path of a module under /lib/modules/R from modules.dep ("" if not
// listed): "kernel/fs/ext4/ext4.ko".
std::string listed_module_path(const KernelDebugPlaces& at, const std::string& name) {
  std::ifstream dep(at.root + "/lib/modules/" + at.release + "/modules.dep");
  std::string line;
  while (std::getline(dep, line)) {
    std::string path = line.substr(0, line.find(':'));
    std::string base = path.substr(path.rfind('/') + 1);
    if (module_name_of(base) == name) return path;
  }
  return {};
}

}  // namespace

std::string running_kernel_release() {
  struct utsname u {};
  return uname(&u) == 0 ? u.release : "";
}

std::string build_id_from_notes(const std::string& notes) {
  size_t at = 0;
  auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
  while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
    Elf64_Nhdr h;
    std::memcpy(&h, notes.data() + at, sizeof h);
    size_t name_at = at + sizeof h;
    size_t desc_at = name_at + align4(h.n_namesz);
    if (desc_at + h.n_descsz > notes.size()) break;
    if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 &&
        std::memcmp(notes.data() + name_at, "GNU", 4) == 0)
      return hex_bytes(reinterpret_cast<const unsigned char*>(notes.data() + desc_at), h.n_descsz);
    at = desc_at + align4(h.n_descsz);
  }
  return {};
}

std::string running_kernel_build_id(const std::string& notes) {
  return build_id_from_notes(read_all(notes));
}

std::string module_name_of(const std::string& module) {
  std::string name = module.substr(module.rfind('/') + 1);
  if (name.ends_with(".ko")) name.resize(name.size() - 3);
  for (char& c : name)
    if (c == '-' || c == ',') c = '_';
  return name;
}

std::string find_vmlinux_dwarf(const KernelDebugPlaces& at, std::string& looked) {
  const std::string& r = at.release;
  std::vector<std::string> places = {
      at.root + "/usr/lib/debug/boot/vmlinux-" + r,
      at.root + "/usr/lib/debug/lib/modules/" + r + "/vmlinux",
      at.root + "/lib/modules/" + r + "/build/vmlinux",
  };
  if (at.build_id.size() > 2)
    places.push_back(at.root + "/usr/lib/debug/.build-id/" + at.build_id.substr(0, 2) + "/" +
                     at.build_id.substr(2) + ".debug");
  for (const std::string& p : places)
    if (has_dwarf(p, at.build_id, looked)) return p;
  return {};
}

std::string find_module_dwarf(const KernelDebugPlaces& at, const std::string& module,
                              std::string& looked) {
  if (module.find('/') != std::string::npos)
    return has_dwarf(module, "", looked) ? module : "";
  std::string name = module_name_of(module);
  std::string listed = listed_module_path(at, name);
  std::vector<std::string> places;
  if (!listed.empty()) {
    places.push_back(at.root + "/lib/modules/" + at.release + "/" + listed);
    places.push_back(at.root + "/usr/lib/debug/lib/modules/" + at.release + "/" + listed);
  }
  std::string id = running_kernel_build_id(at.root + "/sys/module/" + name +
                                           "/notes/.note.gnu.build-id");
  if (id.size() > 2)
    places.push_back(at.root + "/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" +
                     id.substr(2) + ".debug");
  if (places.empty()) looked = "module " + name + " is not in /lib/modules/" + at.release + "/modules.dep";
  for (const std::string& p : places)
    if (has_dwarf(p, "", looked)) return p;
  return {};
}

std::string no_kernel_dwarf_message(const std::string& what, const std::string& module,
                                    const std::string& looked) {
  // vmlinux's: the package as a command line, so the message is the same
  // on every kernel (the places looked in are in the README).
  if (module.empty())
    return "missing kernel debuginfo: " + what + " needs the kernel's DWARF (BTF has no source "
           "files, lines or statements); install linux-image-$(uname -r)-dbg (Debian; "
           "kernel-debuginfo on Fedora), or use a function name or wildcard";
  std::string install = module.find('/') != std::string::npos
                            ? "rebuild " + module + " with debug information (-g)"
                            : "install linux-image-$(uname -r)-dbg (Debian; kernel-debuginfo on "
                              "Fedora)";
  return "missing kernel debuginfo: " + what + " needs the DWARF of module " +
         module_name_of(module) + " (looked in " + looked + "); " + install;
}

// ---------------------------------------------------------------- relocation

namespace {

// Shdr/Sym access into a byte buffer holding an ELF64 file.
struct Image {
  std::string bytes;
  Elf64_Ehdr& ehdr() { return *reinterpret_cast<Elf64_Ehdr*>(bytes.data()); }
  Elf64_Shdr& shdr(size_t i) {
    return reinterpret_cast<Elf64_Shdr*>(bytes.data() + ehdr().e_shoff)[i];
  }
  bool in_bounds(uint64_t off, uint64_t size) const { return off <= bytes.size() && size <= bytes.size() - off; }
};

// Lays the allocated sections out one after another (so code of .text,
// .init.text and .exit.text, all at 0 in the file, gets distinct
// addresses) and makes each defined symbol's value an address.
void lay_out(Image& im) {
  uint64_t next = 0x10000;
  size_t n = im.ehdr().e_shnum;
  for (size_t i = 1; i < n; ++i) {
    Elf64_Shdr& s = im.shdr(i);
    if (!(s.sh_flags & SHF_ALLOC)) continue;
    uint64_t align = s.sh_addralign ? s.sh_addralign : 1;
    next = (next + align - 1) / align * align;
    s.sh_addr = next;
    next += s.sh_size;
  }
  for (size_t i = 1; i < n; ++i) {
    Elf64_Shdr& s = im.shdr(i);
    if (s.sh_type != SHT_SYMTAB || !im.in_bounds(s.sh_offset, s.sh_size)) continue;
    auto* syms = reinterpret_cast<Elf64_Sym*>(im.bytes.data() + s.sh_offset);
    for (size_t k = 0; k < s.sh_size / sizeof(Elf64_Sym); ++k) {
      uint16_t shndx = syms[k].st_shndx;
      if (shndx != SHN_UNDEF && shndx < SHN_LORESERVE && shndx < n)
        syms[k].st_value += im.shdr(shndx).sh_addr;
    }
  }
}

// The name of section i ("" when unreadable).
std::string section_name(Image& im, size_t i) {
  Elf64_Shdr& names = im.shdr(im.ehdr().e_shstrndx);
  uint64_t at = names.sh_offset + im.shdr(i).sh_name;
  if (im.ehdr().e_shstrndx >= im.ehdr().e_shnum || !im.in_bounds(at, 1)) return {};
  return std::string(im.bytes.c_str() + at);
}

// Applies the x86-64 RELA relocations of the non-allocated (debug)
// sections and of .eh_frame (the CFI, when the object has it rather than
// .debug_frame).  Symbols already hold addresses (lay_out).
bool relocate_debug(Image& im, std::string& why) {
  size_t n = im.ehdr().e_shnum;
  for (size_t i = 1; i < n; ++i) {
    Elf64_Shdr rel = im.shdr(i);
    if (rel.sh_type != SHT_RELA || rel.sh_info >= n || rel.sh_link >= n) continue;
    Elf64_Shdr target = im.shdr(rel.sh_info);
    Elf64_Shdr symtab = im.shdr(rel.sh_link);
    if ((target.sh_flags & SHF_ALLOC) && section_name(im, rel.sh_info) != ".eh_frame") continue;
    if (!im.in_bounds(rel.sh_offset, rel.sh_size) || !im.in_bounds(symtab.sh_offset, symtab.sh_size))
      return why = "bad relocation section", false;
    const auto* relas = reinterpret_cast<const Elf64_Rela*>(im.bytes.data() + rel.sh_offset);
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(im.bytes.data() + symtab.sh_offset);
    size_t nsyms = symtab.sh_size / sizeof(Elf64_Sym);
    for (size_t k = 0; k < rel.sh_size / sizeof(Elf64_Rela); ++k) {
      const Elf64_Rela& r = relas[k];
      uint32_t type = ELF64_R_TYPE(r.r_info);
      size_t sym = ELF64_R_SYM(r.r_info);
      if (type == R_X86_64_NONE) continue;
      if (sym >= nsyms) return why = "relocation with a bad symbol", false;
      uint64_t value = syms[sym].st_value + static_cast<uint64_t>(r.r_addend);
      size_t size = type == R_X86_64_64 ? 8 : (type == R_X86_64_32 || type == R_X86_64_32S) ? 4 : 0;
      if (type == R_X86_64_PC32) {
        value -= target.sh_addr + r.r_offset;
        size = 4;
      }
      if (!size) return why = "relocation type " + std::to_string(type) + " in debug sections", false;
      if (!im.in_bounds(target.sh_offset + r.r_offset, size)) return why = "relocation out of bounds", false;
      std::memcpy(im.bytes.data() + target.sh_offset + r.r_offset, &value, size);
    }
  }
  return true;
}

// The relocated copy of a .ko as a file ElfFile can open (ET_EXEC in an
// anonymous memfd kept open for the process); "" with `why`.
std::string relocated_copy(const std::string& path, std::string& why) {
  Image im{read_all(path)};
  if (im.bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(im.bytes.data(), ELFMAG, SELFMAG) != 0 ||
      im.ehdr().e_ident[EI_CLASS] != ELFCLASS64 || im.ehdr().e_machine != EM_X86_64) {
    why = path + " is not an x86-64 ELF file";
    return {};
  }
  if (im.ehdr().e_type == ET_REL) {
    if (!im.in_bounds(im.ehdr().e_shoff, uint64_t{im.ehdr().e_shnum} * sizeof(Elf64_Shdr))) {
      why = path + ": bad section headers";
      return {};
    }
    lay_out(im);
    if (!relocate_debug(im, why)) {
      why = path + ": " + why;
      return {};
    }
    im.ehdr().e_type = ET_EXEC;
  }
  int fd = memfd_create("stap-kernel-module", 0);
  if (fd < 0 || write(fd, im.bytes.data(), im.bytes.size()) != static_cast<ssize_t>(im.bytes.size())) {
    why = "cannot copy " + path + " to memory: " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return {};
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

// ---------------------------------------------------------------- binaries

Binary* open_kernel_binary(const std::string& module, std::string& why, const std::string& what) {
  static std::map<std::string, std::unique_ptr<Binary>> cache;
  static std::map<std::string, std::string> missing;  // module -> the places looked in
  static std::map<std::string, std::string> failures;
  if (auto it = cache.find(module); it != cache.end()) return it->second.get();
  if (auto it = missing.find(module); it != missing.end()) {
    why = no_kernel_dwarf_message(what, module, it->second);
    return nullptr;
  }
  if (auto it = failures.find(module); it != failures.end()) {
    why = it->second;
    return nullptr;
  }
  KernelDebugPlaces at{"", running_kernel_release(), ""};
  std::string looked, path;
  if (module.empty()) {
    at.build_id = running_kernel_build_id();
    path = find_vmlinux_dwarf(at, looked);
  } else {
    path = find_module_dwarf(at, module, looked);
  }
  auto fail = [&](const std::string& message) -> Binary* {
    why = failures[module] = message;
    return nullptr;
  };
  if (path.empty()) {
    missing[module] = looked;
    why = no_kernel_dwarf_message(what, module, looked);
    return nullptr;
  }
  std::string readable = module.empty() ? path : relocated_copy(path, why);
  if (readable.empty()) return fail(why);
  auto b = std::make_unique<Binary>();
  b->path = path;
  b->elf = ElfFile::open(readable, why);
  if (!b->elf) return fail(path + ": " + why);
  b->dwarf = DwarfFile::open(*b->elf, b->no_dwarf);
  if (!b->dwarf) return fail(path + ": " + b->no_dwarf);
  return cache.emplace(module, std::move(b)).first->second.get();
}

namespace {

// Where the relocated copy put a module's .text (0 when it has none).
uint64_t text_address(const Binary& bin) {
  Elf* elf = bin.elf->elf();
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return 0;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    const char* name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : nullptr;
    if (name && std::strcmp(name, ".text") == 0) return sh.sh_addr;
  }
  return 0;
}

}  // namespace

bool resolve_kernel_point(const ProcessPattern& pattern, const std::string& module,
                          ResolvedPoint& out, std::string& why, const std::string& what) {
  out.binary = open_kernel_binary(module, why, what);
  if (!out.binary) return false;
  // A module's address is as its .ko's symbol table gives it (nm): an
  // offset in .text, which the relocated copy has moved.
  ProcessPattern p = pattern;
  if (!module.empty() && p.has_address) p.address += text_address(*out.binary);
  out.process = module.empty() ? "kernel" : module_name_of(module);
  out.is_return = p.suffix == ".return";
  std::string prefix = module.empty() ? "kernel" : "module(\"" + module + "\")";
  if (!resolve_code_point(p, prefix, out, why)) return false;
  // Each site as its function symbol + offset, what a kprobe takes.
  std::vector<ProbeSite> placed;
  for (ProbeSite& s : out.sites) {
    const ElfSymbol* sym = out.binary->elf->function_at(s.pc);
    if (!sym || s.pc < sym->address || (sym->size && s.pc >= sym->address + sym->size)) continue;
    s.symbol = sym->name;
    s.offset = s.pc - sym->address;
    // The point names the address as the script gave it.
    if (p.has_address && p.address != pattern.address) {
      char moved[32], given[32];
      std::snprintf(moved, sizeof moved, "(0x%llx)", static_cast<unsigned long long>(p.address));
      std::snprintf(given, sizeof given, "(0x%llx)", static_cast<unsigned long long>(pattern.address));
      if (size_t at = s.point.find(moved); at != std::string::npos)
        s.point.replace(at, std::strlen(moved), given);
    }
    placed.push_back(std::move(s));
  }
  out.sites = std::move(placed);
  return true;
}

}  // namespace stap::debuginfo
