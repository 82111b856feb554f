#include "loader/attach/proc_tasks.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace stap {

std::vector<int> numbered_entries(const std::string& dir) {
  std::vector<int> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long n = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == 0 && n > 0) out.push_back(int(n));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<int64_t> stat_field(const std::string& dir, int n) {
  std::ifstream f(dir + "/stat");
  std::string line;
  std::getline(f, line);
  size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 1));
  std::string word;
  for (int field = 3; rest >> word; ++field)
    if (field == n) return std::strtoll(word.c_str(), nullptr, 10);
  return std::nullopt;
}

namespace {

bool program_of(int pid, struct stat& st) {
  return stat(("/proc/" + std::to_string(pid) + "/exe").c_str(), &st) == 0;
}

}  // namespace

bool has_program(int pid) {
  struct stat st;
  return program_of(pid, st);
}

bool runs_file(int pid, dev_t dev, ino_t ino) {
  struct stat st;
  return program_of(pid, st) && st.st_dev == dev && st.st_ino == ino;
}

}  // namespace stap
