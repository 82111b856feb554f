// symname(), symdata(), print_stack() and sprint_stack() in user context:
// kernel addresses named from /proc/kallsyms (read once, on first use).
// The text follows stap 4.8's runtime (_stp_snprint_addr, print_syms):
//   symname  "vfs_read", or the address as "0x..." when unknown;
//   symdata  "vfs_read+0x10/0x1a0 [kernel]" (offset and size in hex);
//   stacks   one " ADDR : SYMDATA\n" line per address of the string.
// kallsyms has no sizes: a symbol's size is the distance to the next one.
#include <algorithm>
#include <cinttypes>
#include <fstream>
#include <sstream>

#include "interpreter_impl.h"

namespace stap::interp {

void Kallsyms::load() {
  loaded = true;
  std::ifstream in("/proc/kallsyms");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string addr, type, name, module;
    if (!(fields >> addr >> type >> name)) continue;
    if (type != "t" && type != "T" && type != "w" && type != "W") continue;
    fields >> module;
    uint64_t a = std::strtoull(addr.c_str(), nullptr, 16);
    if (a == 0) continue;  // addresses hidden (kptr_restrict)
    if (module.size() > 2 && module.front() == '[') module = module.substr(1, module.size() - 2);
    symbols.push_back(Symbol{a, 0, std::move(name), module.empty() ? "kernel" : std::move(module)});
  }
  std::sort(symbols.begin(), symbols.end(), [](const Symbol& x, const Symbol& y) { return x.address < y.address; });
  for (size_t i = 0; i + 1 < symbols.size(); ++i) symbols[i].size = symbols[i + 1].address - symbols[i].address;
}

const Symbol* Kallsyms::find(uint64_t address) {
  if (!loaded) load();
  auto it = std::upper_bound(symbols.begin(), symbols.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols.begin()) return nullptr;
  const Symbol& s = *std::prev(it);
  // The last symbol has no known end: accept only its own address.
  if (s.size == 0 ? address != s.address : address - s.address >= s.size) return nullptr;
  return &s;
}

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

}  // namespace

std::string Kallsyms::name(uint64_t address) {
  const Symbol* s = find(address);
  return s ? s->name : hex(address);
}

std::string Kallsyms::data(uint64_t address) {
  const Symbol* s = find(address);
  if (!s) return hex(address);
  return s->name + "+" + (address == s->address ? "0x0" : hex(address - s->address)) + "/" +
         (s->size ? hex(s->size) : "0x0") + " [" + s->module + "]";
}

// The lines print_stack prints for a string of hex addresses (the kernel's
// simple_strtol with base 16 reads each, as stap's print_syms does).
std::string Kallsyms::stack(const std::string& addresses) {
  std::string out;
  std::istringstream words(addresses);
  std::string word;
  while (words >> word) {
    const char* p = word.c_str();
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    uint64_t a = std::strtoull(p, nullptr, 16);
    out += " " + word + " : " + data(a) + "\n";
  }
  return out;
}

}  // namespace stap::interp
