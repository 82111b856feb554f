#include "loader/symbols/stack_glue.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "kernel/kernel_symbols.h"
#include "loader/symbols/stack_symbols.h"

namespace stap {

namespace {

// Ranges the map has room for beyond the kernel's at load: our programs,
// their subprograms and trampolines appear after it (most merge with the
// [bpf] range next to them).
constexpr size_t kRoomForPrograms = 4096;
// ksym_text.c searches at most 2^17 entries.
constexpr size_t kMaxRanges = (size_t{1} << 17) - 2;

bpf_map* glue_map(bpf_object* obj) {
  return obj ? bpf_object__find_map_by_name(obj, STAP_STACK_GLUE_MAP) : nullptr;
}

}  // namespace

std::vector<stap_glue_range> read_stack_glue() {
  kernel::KernelSymbols symbols;
  std::string why;
  std::vector<stap_glue_range> out;
  if (!symbols.load(why)) return out;
  const std::vector<kernel::Symbol>& all = symbols.symbols();
  for (size_t i = 0; i < all.size(); ++i) {
    const kernel::Symbol& s = all[i];
    if (s.address == 0 || !s.is_code()) continue;
    if (s.module != "bpf" && !StackSymbols::bpf_dispatch_frame(s.name)) continue;
    // The last symbol of a module has no size: up to the next symbol.
    uint64_t end = s.size ? s.address + s.size
                          : (i + 1 < all.size() ? all[i + 1].address : s.address + 1);
    if (end <= s.address) end = s.address + 1;
    if (!out.empty() && out.back().end >= s.address) {
      if (end > out.back().end) out.back().end = end;
      continue;
    }
    out.push_back({s.address, end});
  }
  return out;
}

void size_stack_glue(bpf_object* obj) {
  bpf_map* map = glue_map(obj);
  if (!map) return;
  size_t want = std::min(read_stack_glue().size() + kRoomForPrograms, kMaxRanges) + 1;
  bpf_map__set_max_entries(map, uint32_t(want));
}

bool fill_stack_glue(bpf_object* obj, std::string& error) {
  bpf_map* map = glue_map(obj);
  if (!map) return true;
  std::vector<stap_glue_range> ranges = read_stack_glue();
  size_t room = bpf_map__max_entries(map) - 1;
  // Past the room (the kernel's ranges at load and 4096 more; programs
  // merge into few), the highest addresses are left out and their frames
  // kept in the text.
  if (ranges.size() > room) ranges.resize(room);
  int fd = bpf_map__fd(map);
  for (uint32_t i = 0; i < ranges.size(); ++i) {
    uint32_t key = i + 1;
    if (bpf_map_update_elem(fd, &key, &ranges[i], BPF_ANY) != 0) {
      error = std::string("cannot fill the stack glue map: ") + std::strerror(errno);
      return false;
    }
  }
  uint32_t key = 0;
  stap_glue_range head{ranges.size(), 0};
  if (bpf_map_update_elem(fd, &key, &head, BPF_ANY) != 0) {
    error = std::string("cannot fill the stack glue map: ") + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace stap
