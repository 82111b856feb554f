// The running kernel's symbols: /proc/kallsyms (addresses, modules,
// types), which functions can be probed (tracefs available_filter_functions
// when readable, minus the kprobe blacklist), and address -> symbol lookup
// for stacks and probefunc().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stap::kernel {

struct Symbol {
  uint64_t address = 0;
  std::string name;
  std::string module;  // "" for vmlinux, "bpf" for BPF programs, else the module
  char type = 0;       // kallsyms' type letter: 't', 'T', 'd', 'b', ...
  uint64_t size = 0;   // to the next symbol of the same module (0 for the last)
  // Code (text, or weak), not data.
  bool is_code() const { return type == 't' || type == 'T' || type == 'w' || type == 'W'; }
};

class KernelSymbols {
 public:
  // Reads /proc/kallsyms (or `path`).  Addresses are all zero when the
  // reader is not root (kptr_restrict); lookup() then finds nothing.
  bool load(std::string& why, const std::string& path = "/proc/kallsyms");
  bool loaded() const { return !by_address_.empty(); }
  // Every symbol, sorted by address.
  const std::vector<Symbol>& symbols() const { return by_address_; }

  // A text symbol by exact name (in `module` when not empty).
  std::optional<Symbol> function(const std::string& name, const std::string& module = "") const;
  // A symbol of any type (a variable too) by exact name, vmlinux's first.
  std::optional<Symbol> symbol(const std::string& name) const;
  // The symbol containing `address`, with its offset in `offset`.
  std::optional<Symbol> lookup(uint64_t address, uint64_t* offset = nullptr) const;
  // Text symbols of `module` ("" or "kernel": vmlinux; "*": any) matching a
  // glob (fnmatch: *, ?, [...]) that can be probed: listed in tracefs's
  // available_filter_functions when that file is readable (else any text
  // symbol outside vmlinux's .init.text), not on the kprobe blacklist, and
  // not a compiler clone such as "foo.isra.0" or "foo.cold".  Sorted,
  // without duplicates.
  std::vector<std::string> match_functions(const std::string& glob,
                                           const std::string& module) const;
  // On SystemTap's own list of kernel functions it never probes (by name:
  // locks, atomics, NMI and fault paths...; with is_return also the
  // functions that never return).  match_functions leaves these out.
  static bool blocklisted(const std::string& name, bool is_return = false);

 private:
  std::vector<Symbol> by_address_;  // sorted by address
  // Indexes into by_address_, sorted by (name, module); built on first use.
  mutable std::vector<size_t> by_name_;
  mutable bool traceable_read_ = false;
  mutable std::vector<std::string> traceable_;  // "name" or "name [module]", sorted
  mutable std::vector<std::string> blacklist_;  // sorted
  void read_traceable() const;
  void set_sizes();
  void index_names() const;
};

}  // namespace stap::kernel
