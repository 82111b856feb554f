#include "loader/symbols/user_symbols.h"

#include <fstream>
#include <sstream>

#include "debuginfo/debug_file.h"
#include "debuginfo/elf_file.h"

namespace stap {

// A binary and, when it has no function symbols of its own, its separate
// debuginfo's (same link-time addresses).
struct UserSymbols::Binary {
  std::unique_ptr<debuginfo::ElfFile> elf;
  std::unique_ptr<debuginfo::ElfFile> debug;
  const debuginfo::ElfFile* symbols() const {
    return debug && !debug->functions().empty() ? debug.get() : elf.get();
  }
};

UserSymbols::UserSymbols() = default;
UserSymbols::~UserSymbols() = default;

std::vector<Mapping> parse_maps(const std::string& text) {
  std::vector<Mapping> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    // start-end perms offset dev inode path
    std::istringstream f(line);
    std::string range, perms, offset, dev, inode, path;
    if (!(f >> range >> perms >> offset >> dev >> inode)) continue;
    std::getline(f, path);
    size_t first = path.find_first_not_of(' ');
    path = first == std::string::npos ? "" : path.substr(first);
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    Mapping m;
    m.start = std::stoull(range.substr(0, dash), nullptr, 16);
    m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    m.offset = std::stoull(offset, nullptr, 16);
    m.path = path;
    out.push_back(std::move(m));
  }
  return out;
}

bool UserSymbols::capture(uint32_t tgid, bool refresh) {
  if (!refresh && processes_.count(tgid)) return true;
  std::ifstream in("/proc/" + std::to_string(tgid) + "/maps");
  if (!in) return processes_.count(tgid) != 0;
  std::stringstream text;
  text << in.rdbuf();
  std::vector<Mapping> maps = parse_maps(text.str());
  // Open the binaries now: an exited process's files may be replaced later.
  for (const Mapping& m : maps) binary(m.path);
  processes_[tgid] = std::move(maps);
  return true;
}

bool UserSymbols::covers(uint32_t tgid, const std::vector<uint64_t>& addresses) const {
  auto p = processes_.find(tgid);
  if (p == processes_.end()) return false;
  for (uint64_t a : addresses) {
    bool in = false;
    for (const Mapping& m : p->second) in = in || (a >= m.start && a < m.end);
    if (!in) return false;
  }
  return true;
}

void UserSymbols::set_mappings(uint32_t tgid, std::vector<Mapping> maps) {
  processes_[tgid] = std::move(maps);
}

const debuginfo::ElfFile* UserSymbols::binary(const std::string& path) {
  auto it = binaries_.find(path);
  if (it == binaries_.end()) {
    auto b = std::make_unique<Binary>();
    std::string why;
    b->elf = debuginfo::ElfFile::open(path, why);
    if (b->elf && b->elf->functions().empty()) {
      std::string debug = debuginfo::find_debug_file(*b->elf, why);
      if (!debug.empty()) b->debug = debuginfo::ElfFile::open(debug, why);
    }
    it = binaries_.emplace(path, std::move(b)).first;
  }
  return it->second->elf ? it->second->symbols() : nullptr;
}

std::optional<UserSymbol> UserSymbols::lookup(uint32_t tgid, uint64_t address) {
  auto find = [&]() -> const Mapping* {
    auto p = processes_.find(tgid);
    if (p == processes_.end()) return nullptr;
    for (const Mapping& m : p->second)
      if (address >= m.start && address < m.end) return &m;
    return nullptr;
  };
  const Mapping* m = find();
  // Mapped since the capture (dlopen): read the mappings again if it lives.
  if (!m && capture(tgid, true)) m = find();
  if (!m) return std::nullopt;
  UserSymbol out;
  out.module = m->path;
  const debuginfo::ElfFile* elf = binary(m->path);
  if (!elf) return out;
  // The file offset of the address, then the link-time address of that
  // offset through the PT_LOAD segment holding it (PIE, libraries and
  // fixed executables alike).
  uint64_t file_offset = address - m->start + m->offset;
  for (const debuginfo::LoadSegment& s : elf->segments()) {
    if (file_offset < s.offset || file_offset >= s.offset + s.filesz) continue;
    uint64_t vaddr = file_offset - s.offset + s.vaddr;
    if (const debuginfo::ElfSymbol* sym = elf->function_at(vaddr)) {
      out.name = sym->demangled.empty() ? sym->name : sym->demangled;
      out.offset = vaddr - sym->address;
      out.size = sym->size;
    }
    break;
  }
  return out;
}

}  // namespace stap
