#include "debuginfo/binary_path.h"

#include <fnmatch.h>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "debuginfo/elf_file.h"

namespace stap::debuginfo {

namespace fs = std::filesystem;

namespace {

std::string canonical(const std::string& path) {
  std::error_code ec;
  auto out = fs::canonical(path, ec);
  return ec ? path : out.string();
}

bool is_regular(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// /etc/ld.so.conf's directories, following `include` globs.
void read_ld_conf(const std::string& file, std::vector<std::string>& dirs, int depth) {
  std::ifstream in(file);
  std::string line;
  while (depth < 4 && std::getline(in, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word != "include") {
      dirs.push_back(word);
      continue;
    }
    std::string pattern;
    words >> pattern;
    glob_t g{};
    if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) read_ld_conf(g.gl_pathv[i], dirs, depth + 1);
    globfree(&g);
  }
}

bool has_wildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

}  // namespace

std::string find_executable(const std::string& name, std::string& why, const char* path_env) {
  if (name.empty()) {
    why = "empty program name";
    return "";
  }
  if (name.find('/') != std::string::npos) {
    if (is_regular(name)) return canonical(name);
    why = name + ": no such file";
    return "";
  }
  std::string path = path_env ? path_env : (getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (is_regular(candidate) && access(candidate.c_str(), X_OK) == 0) return canonical(candidate);
  }
  why = "cannot find executable '" + name + "' in $PATH";
  return "";
}

bool is_program_glob(const std::string& path) {
  return path.find_first_of("*?[") != std::string::npos;
}

std::vector<std::string> glob_programs(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i)
      if (is_regular(g.gl_pathv[i])) out.push_back(canonical(g.gl_pathv[i]));
  globfree(&g);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> library_dirs() {
  std::vector<std::string> dirs;
  read_ld_conf("/etc/ld.so.conf", dirs, 0);
  for (const char* d : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
                        "/usr/lib64", "/lib", "/usr/lib"})
    dirs.push_back(d);
  return dirs;
}

std::string find_library(const std::string& name, const std::string& exe, std::string& why) {
  if (name.find('/') != std::string::npos) {
    if (is_regular(name)) return canonical(name);
    why = name + ": no such file";
    return "";
  }
  // Candidate file names: the name itself, then the program's DT_NEEDED
  // entries it names ("libc" and "libc.so*" both mean libc.so.6).
  std::vector<std::string> names{name};
  std::vector<std::string> dirs;
  if (!exe.empty()) {
    std::string ignored;
    if (auto elf = ElfFile::open(exe, ignored)) {
      dirs = elf->runpath();
      std::string pattern = has_wildcard(name) ? name : name + ".so*";
      for (const auto& needed : elf->needed())
        if (needed != name && fnmatch(pattern.c_str(), needed.c_str(), 0) == 0)
          names.push_back(needed);
    }
  }
  for (const auto& dir : library_dirs()) dirs.push_back(dir);
  for (const auto& file : names) {
    if (has_wildcard(file)) continue;
    for (const auto& dir : dirs) {
      std::string candidate = dir + "/" + file;
      if (is_regular(candidate)) return canonical(candidate);
    }
  }
  why = "cannot find library '" + name + "'" +
        (exe.empty() ? std::string() : " needed by " + exe) + " in the system library directories";
  return "";
}

}  // namespace stap::debuginfo
