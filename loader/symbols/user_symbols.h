// User-space addresses named through a process's mappings: the
// executable and shared libraries mapped executable in /proc/PID/maps,
// each read once with compiler/debuginfo's ElfFile (.symtab, .dynsym,
// MiniDebugInfo) and, when those have no function symbols, its separate
// debuginfo (/usr/lib/debug/.build-id, .gnu_debuglink).
//
// A process's mappings are captured on request (each user stack new to a
// process sends a record; the runtime reads the mappings again when they
// do not cover that stack's frames), and kept after it exits, so the end probe's report still names its frames.  PIE
// executables and libraries are relocated through the mapping's start and
// file offset and the ELF's PT_LOAD segments.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stap::debuginfo {
class ElfFile;
}

namespace stap {

struct UserSymbol {
  std::string name;    // demangled when C++
  uint64_t offset = 0, size = 0;
  std::string module;  // the binary's path
};

struct Mapping {
  uint64_t start = 0, end = 0, offset = 0;
  std::string path;
};

// "/proc/PID/maps" text -> the file-backed executable mappings.
std::vector<Mapping> parse_maps(const std::string& text);

class UserSymbols {
 public:
  UserSymbols();
  ~UserSymbols();
  // Reads the process's mappings now (again, when `refresh`).  False when
  // the process is gone and nothing was captured before.
  bool capture(uint32_t tgid, bool refresh = false);
  // Whether every address is inside a captured mapping of the process.
  bool covers(uint32_t tgid, const std::vector<uint64_t>& addresses) const;
  // For tests: mappings given directly.
  void set_mappings(uint32_t tgid, std::vector<Mapping> maps);
  // The function containing `address` in process `tgid`; the module alone
  // (empty name) when the binary has no symbol there; nullopt when no
  // mapping holds it.
  std::optional<UserSymbol> lookup(uint32_t tgid, uint64_t address);
  // A binary's symbols, by path (cached): for -d BINARY and tests.
  const debuginfo::ElfFile* binary(const std::string& path);

 private:
  std::map<uint32_t, std::vector<Mapping>> processes_;
  struct Binary;
  std::map<std::string, std::unique_ptr<Binary>> binaries_;
};

}  // namespace stap
