#include "loader/output/folded_stacks.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "bpf_runtime/stap_layout.h"
#include "ir/key_codes.h"

namespace stap {

namespace {

// One element's frames, root first, and whether any column was a stack.
bool element_frames(const ir::Module& m, const ir::Global& g, const char* key,
                    StackSymbols& stacks, std::vector<std::string>& out) {
  std::vector<std::string> roots, user, kernel;
  bool any = false;
  size_t at = 0;
  for (size_t k = 0; k < g.keys.size(); ++k) {
    if (g.key_coded(k) || g.keys[k] == ir::Type::long_) {
      int64_t v;
      std::memcpy(&v, key + at, 8);
      at += 8;
      if (g.key_coded(k) && ir::is_stack_code(v)) {
        any = true;
        std::vector<std::string> f = stacks.folded(v);
        auto& side = ir::split_stack_code(v).user ? user : kernel;
        side.insert(side.end(), f.begin(), f.end());
      } else {
        roots.push_back(g.key_coded(k) ? ir::key_string(m, v) : std::to_string(v));
      }
    } else {
      size_t width = g.key_width(k, uint32_t(m.limits.maxstringlen));
      roots.emplace_back(key + at, strnlen(key + at, width));
      at += width;
    }
  }
  out = roots;
  out.insert(out.end(), user.begin(), user.end());
  out.insert(out.end(), kernel.begin(), kernel.end());
  return any;
}

// The element's count: a long's value, or a statistic's @count over CPUs.
int64_t element_count(const ir::Global& g, int fd, const std::vector<char>& key, int ncpus) {
  size_t stride = (g.value_size + 7) & ~size_t{7};
  std::vector<char> value(g.type == ir::Type::stats ? stride * size_t(ncpus) : stride, 0);
  if (bpf_map_lookup_elem(fd, key.data(), value.data()) != 0) return 0;
  if (g.type != ir::Type::stats) {
    int64_t v;
    std::memcpy(&v, value.data(), 8);
    return v;
  }
  int64_t total = 0;
  for (int c = 0; c < ncpus; ++c) {
    int64_t n;
    std::memcpy(&n, value.data() + stride * size_t(c) + offsetof(stap_stat, count), 8);
    total += n;
  }
  return total;
}

// Frame names may not hold the separators of the format.
std::string clean(std::string s) {
  for (char& c : s)
    if (c == ';' || c == '\n') c = '_';
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == ' ' && (i == 0 || s[i - 1] == ' ')) s[i] = '_';
  return s;
}

}  // namespace

std::string folded_stacks(const ir::Module& m, const GlobalStore& store, StackSymbols& stacks) {
  std::map<std::string, int64_t> lines;
  for (size_t gi = 0; gi < m.globals.size(); ++gi) {
    const ir::Global& g = m.globals[gi];
    if (!g.is_array() || g.coded_keys.empty()) continue;
    if (g.type == ir::Type::string) continue;
    int fd = store.map_fd(gi);
    std::vector<char> key(g.key_size), next(g.key_size);
    const void* prev = nullptr;
    while (bpf_map_get_next_key(fd, prev, next.data()) == 0) {
      key = next;
      prev = key.data();
      std::vector<std::string> frames;
      if (!element_frames(m, g, key.data(), stacks, frames)) continue;
      std::string line;
      for (const std::string& f : frames) line += (line.empty() ? "" : ";") + clean(f);
      lines[line] += element_count(g, fd, key, store.possible_cpus());
    }
  }
  std::string out;
  for (const auto& [line, count] : lines)
    if (count > 0) out += line + " " + std::to_string(count) + "\n";
  return out;
}

bool write_folded_stacks(const std::string& path, const ir::Module& m, const GlobalStore& store,
                         StackSymbols& stacks, std::string& error) {
  std::ofstream out(path, std::ios::trunc);
  if (out) out << folded_stacks(m, store, stacks);
  if (!out) {
    error = "cannot write the folded stacks to " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace stap
