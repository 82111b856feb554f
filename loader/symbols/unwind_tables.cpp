// Unwind tables into the unwinder's maps (unwind_tables.h).
#include "loader/symbols/unwind_tables.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "debuginfo/binary_path.h"
#include "debuginfo/elf_file.h"
#include "debuginfo/unwind_table.h"

namespace stap {

namespace {

// The program of a -c command line: its first word, as the shell would
// find it (no shell syntax here; a command needing sh -c names sh).
std::string command_program(const std::string& command) {
  std::istringstream words(command);
  std::string first, why;
  words >> first;
  if (first.empty()) return "";
  return debuginfo::find_executable(first, why);
}

// The file-backed executable mappings of a running process.
std::vector<std::string> mapped_files(int64_t pid) {
  std::vector<std::string> out;
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream f(line);
    std::string range, perms, offset, dev, inode, path;
    if (f >> range >> perms >> offset >> dev >> inode >> path && perms.find('x') != std::string::npos &&
        path.starts_with("/"))
      out.push_back(path);
  }
  return out;
}

// PT_INTERP of an executable ("" for none: a library or a static program).
std::string interpreter(const debuginfo::ElfFile& file) {
  size_t count = 0;
  if (elf_getphdrnum(file.elf(), &count) != 0) return "";
  for (size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(file.elf(), int(i), &ph) || ph.p_type != PT_INTERP) continue;
    size_t size = 0;
    const char* image = elf_rawfile(file.elf(), &size);
    if (!image || ph.p_offset + ph.p_filesz > size || ph.p_filesz == 0) return "";
    return std::string(image + ph.p_offset, strnlen(image + ph.p_offset, ph.p_filesz));
  }
  return "";
}

std::string canonical(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (!real) return "";
  std::string out = real;
  free(real);
  return out;
}

// Adds `path` and, depth first, its interpreter and DT_NEEDED libraries.
void add_with_needed(const std::string& path, std::vector<std::string>& out, std::set<std::string>& seen) {
  std::string real = canonical(path);
  if (real.empty() || !seen.insert(real).second) return;
  out.push_back(real);
  std::string why;
  auto file = debuginfo::ElfFile::open(real, why);
  if (!file) return;
  if (std::string interp = interpreter(*file); !interp.empty()) add_with_needed(interp, out, seen);
  for (const auto& needed : file->needed()) {
    std::string lib = debuginfo::find_library(needed, real, why);
    if (!lib.empty()) add_with_needed(lib, out, seen);
  }
}

}  // namespace

std::vector<std::string> UnwindTables::binaries(const ir::Module& module, const UnwindSources& sources) {
  std::vector<std::string> roots;
  for (const auto& p : module.probes)
    if (const auto* u = p.as<ir::UprobeSpec>(); u && !u->binary.empty()) roots.push_back(u->binary);
  if (!sources.command.empty()) roots.push_back(command_program(sources.command));
  if (sources.target_pid > 0)
    for (auto& f : mapped_files(sources.target_pid)) roots.push_back(f);
  for (const auto& m : sources.modules) roots.push_back(m);
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : roots)
    if (!r.empty()) add_with_needed(r, out, seen);
  return out;
}

void UnwindTables::add_table(const stap_unwind_file& key, const debuginfo::UnwindTable& table,
                             const std::string& name, int verbose) {
  if (files_.size() >= STAP_UNWIND_MAX_FILES) return;
  stap_unwind_range range{uint32_t(rows_.size()), uint32_t(table.rows.size())};
  for (const auto& row : table.rows) rows_.push_back(row.packed());
  files_.push_back({key, range});
  if (verbose >= 2)
    std::fprintf(stderr, "unwind: %s: %zu rows from %zu FDEs in %s (%zu without a usable rule)\n",
                 name.c_str(), table.rows.size(), table.fdes, table.source.c_str(), table.unknown_rows);
}

void UnwindTables::add_binary(const std::string& path, int verbose) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return;
  debuginfo::UnwindTable table;
  std::string why;
  if (!debuginfo::build_unwind_table(path, table, why)) {
    if (verbose >= 2) std::fprintf(stderr, "unwind: %s\n", why.c_str());
    return;
  }
  add_table({(uint64_t(major(st.st_dev)) << 20) | minor(st.st_dev), uint64_t(st.st_ino)}, table, path,
            verbose);
}

// The vDSO: the kernel maps the same image into every 64-bit process, so
// ours stands for theirs.  Its mapping has no file; the unwinder knows it
// by mm->context.vdso and looks it up as STAP_UNWIND_VDSO.
void UnwindTables::add_vdso(int verbose) {
  const auto* base = reinterpret_cast<const char*>(getauxval(AT_SYSINFO_EHDR));
  if (!base) return;
  Elf64_Ehdr eh;
  memcpy(&eh, base, sizeof eh);
  size_t size = eh.e_shoff + size_t(eh.e_shnum) * eh.e_shentsize;
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || size > (size_t(1) << 20)) return;
  debuginfo::UnwindTable table;
  std::string why;
  if (!debuginfo::build_unwind_table_image("[vdso]", std::string(base, size), table, why)) {
    if (verbose >= 2) std::fprintf(stderr, "unwind: %s\n", why.c_str());
    return;
  }
  add_table({0, STAP_UNWIND_VDSO}, table, "[vdso]", verbose);
}

void UnwindTables::prepare(bpf_object* obj, const ir::Module& module, const UnwindSources& sources,
                           int verbose) {
  bpf_map* rows = bpf_object__find_map_by_name(obj, STAP_UNWIND_ROWS_MAP);
  if (!rows) return;
  active_ = true;
  auto started = std::chrono::steady_clock::now();
  rows_.assign(1, 0);
  // STAP_UNWIND=fp: no tables, the kernel's frame-pointer walk (to compare).
  const char* mode = getenv("STAP_UNWIND");
  bool fp_only = mode && std::string(mode) == "fp";
  if (!fp_only) {
    for (const auto& path : binaries(module, sources)) add_binary(path, verbose);
    if (!files_.empty()) add_vdso(verbose);
  }
  rows_[0] = stap_unwind_row(uint32_t(files_.size()), 0, 0, 0, 0);
  bpf_map__set_max_entries(rows, uint32_t(rows_.size()));
  if (verbose >= 1) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    std::fprintf(stderr, "unwind tables: %zu binaries, %zu rows (%lld ms)\n", files_.size(),
                 rows_.size() - 1, static_cast<long long>(ms.count()));
  }
}

bool UnwindTables::fill(bpf_object* obj, std::string& error) const {
  if (!active_) return true;
  int rows = bpf_object__find_map_fd_by_name(obj, STAP_UNWIND_ROWS_MAP);
  int files = bpf_object__find_map_fd_by_name(obj, STAP_UNWIND_FILES_MAP);
  if (rows < 0 || files < 0) return true;
  // One batch (libc alone is some 28,000 rows); element by element where
  // the kernel refuses batches.
  std::vector<uint32_t> keys(rows_.size());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = i;
  uint32_t count = uint32_t(keys.size());
  if (bpf_map_update_batch(rows, keys.data(), rows_.data(), &count, nullptr) != 0 || count != keys.size())
    for (uint32_t i = 0; i < rows_.size(); ++i)
      if (bpf_map_update_elem(rows, &i, &rows_[i], BPF_ANY) != 0) {
        error = std::string("cannot load the unwind tables: ") + std::strerror(errno);
        return false;
      }
  for (const auto& [key, range] : files_)
    if (bpf_map_update_elem(files, &key, &range, BPF_ANY) != 0) {
      error = std::string("cannot load the unwind tables: ") + std::strerror(errno);
      return false;
    }
  return true;
}

}  // namespace stap
