// Shared helpers of the debuginfo tests (test_debuginfo_*.cpp): where the
// test programs are (tests/data/debuginfo/build.sh builds them), running
// the binutils that the tests cross-check against, and finding the
// "// LINE:name" markers in the test sources.
#pragma once

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "debuginfo/dwarf_file.h"
#include "debuginfo/elf_file.h"

namespace stap::test {

inline std::string debuginfo_bin(const std::string& name) {
  return std::string(STAP_DEBUGINFO_TEST_DIR) + "/" + name;
}

inline std::string debuginfo_source(const std::string& name) {
  return std::string(STAP_DEBUGINFO_SOURCE_DIR) + "/" + name;
}

// The standard output of a shell command (the tests pass fixed paths).
inline std::string run_command(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The line number of "// LINE:name" in a test source; 0 when absent.
inline int marker_line(const std::string& source, const std::string& name) {
  std::ifstream in(debuginfo_source(source));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find("// LINE:" + name) != std::string::npos) return n;
  return 0;
}

struct OpenedBinary {
  std::unique_ptr<debuginfo::ElfFile> elf;
  std::unique_ptr<debuginfo::DwarfFile> dwarf;
  std::string why;
};

inline OpenedBinary open_binary(const std::string& path, const std::string& debug_root = "/usr/lib/debug") {
  OpenedBinary out;
  out.elf = debuginfo::ElfFile::open(path, out.why);
  if (out.elf) out.dwarf = debuginfo::DwarfFile::open(*out.elf, out.why, debug_root);
  return out;
}

}  // namespace stap::test
