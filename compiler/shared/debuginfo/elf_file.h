// A user-space binary's ELF side: what a uprobe needs without debuginfo.
// Function symbols from .symtab, .dynsym and MiniDebugInfo (.gnu_debugdata,
// an xz-compressed ELF with the stripped .symtab that Fedora-style builds
// keep), the PT_LOAD segments that turn a symbol's address into the file
// offset the kernel's uprobe wants, the build-id and .gnu_debuglink that
// lead to separate debuginfo, DT_SONAME/DT_NEEDED for library lookup, and
// .plt stubs for process("P").plt("name").
//
// Addresses are link-time virtual addresses (st_value); for a PIE or a
// shared library the runtime adds the load bias.  x86-64 only for .plt.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

typedef struct Elf Elf;

namespace stap::debuginfo {

struct ElfSymbol {
  std::string name;       // as in the symbol table (mangled for C++)
  std::string demangled;  // abi::__cxa_demangle of name; empty when not C++
  uint64_t address = 0;   // st_value
  uint64_t size = 0;
  bool weak = false;
  bool global = false;    // STB_GLOBAL or STB_WEAK (visible to other objects)
  bool ifunc = false;     // STT_GNU_IFUNC: the address is the resolver's
  enum Source : uint8_t { symtab, debugfile, minidebug, dynsym } source = symtab;
};

struct LoadSegment {
  uint64_t vaddr = 0, memsz = 0;
  uint64_t offset = 0, filesz = 0;
  bool executable = false;
};

struct PltEntry {
  std::string name;       // the called function ("malloc"), no @plt
  uint64_t address = 0;   // the stub's address
};

class ElfFile {
 public:
  // Opens and reads `path`.  nullptr with `why` set when the file is
  // missing, not ELF, or not an executable / shared object.
  static std::unique_ptr<ElfFile> open(const std::string& path, std::string& why);
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  const std::string& path() const { return path_; }
  Elf* elf() const { return elf_; }
  // ET_DYN: a PIE or a shared library, loaded at a bias chosen at run time.
  bool relocatable() const { return relocatable_; }
  uint16_t machine() const { return machine_; }
  const std::string& build_id() const { return build_id_; }  // lowercase hex, "" if none
  const std::string& debuglink() const { return debuglink_; }  // file name, "" if none
  uint32_t debuglink_crc() const { return debuglink_crc_; }
  const std::string& soname() const { return soname_; }
  const std::vector<std::string>& needed() const { return needed_; }
  // DT_RUNPATH (or DT_RPATH) directories, $ORIGIN replaced.
  const std::vector<std::string>& runpath() const { return runpath_; }
  const std::vector<LoadSegment>& segments() const { return segments_; }
  bool has_section(const std::string& name) const;
  // Whether the binary carries its own DWARF (.debug_info).
  bool has_dwarf() const { return has_section(".debug_info"); }

  // Function symbols (STT_FUNC and STT_GNU_IFUNC, defined, nonzero
  // address) from every table, one per (name, address), sorted by address
  // then name.  Aliases (malloc and __libc_malloc) are separate entries
  // with the same address.
  const std::vector<ElfSymbol>& functions() const { return functions_; }
  // Adds the function symbols of a separate debuginfo file's .symtab
  // (Debian's -dbg/-dbgsym files keep the full one: glibc's __GI_ aliases,
  // .cold parts), as stap reads them.  Not done by open(): the debuginfo
  // is found later (DwarfFile::debug_elf()).
  void add_debug_symbols(Elf* debug_elf);
  // Why MiniDebugInfo was not read ("" when it was read or absent).
  const std::string& minidebug_note() const { return minidebug_note_; }

  // The function symbols named `name` (raw or demangled, exact).
  std::vector<const ElfSymbol*> functions_named(const std::string& name) const;
  // The function symbol containing `address` (the largest start <= it
  // within its size, or the nearest start below when sizes are 0).
  const ElfSymbol* function_at(uint64_t address) const;

  // The file offset of `vaddr` through the PT_LOAD segment holding it
  // (what a uprobe is attached at); nullopt outside every file-backed
  // segment.
  std::optional<uint64_t> file_offset(uint64_t vaddr) const;

  // The .plt / .plt.sec stubs, one per R_X86_64_JUMP_SLOT relocation.
  std::vector<PltEntry> plt_entries() const;

 private:
  ElfFile() = default;
  bool read(std::string& why);
  void read_headers();
  void read_dynamic();
  void set_runpath(const std::string& text);
  void read_notes();
  void read_symbols(Elf* elf, ElfSymbol::Source table_kind);
  void read_minidebug();
  void finish_symbols();

  std::string path_;
  int fd_ = -1;
  Elf* elf_ = nullptr;
  bool relocatable_ = false;
  uint16_t machine_ = 0;
  std::string build_id_, debuglink_, soname_, minidebug_note_;
  uint32_t debuglink_crc_ = 0;
  std::vector<std::string> needed_, runpath_;
  std::vector<std::string> section_names_;
  std::vector<LoadSegment> segments_;
  std::vector<ElfSymbol> functions_;
};

// The name of `sym` that C++ users write: "ns::f(int)" demangled, else raw.
std::string demangle(const std::string& name);

}  // namespace stap::debuginfo
