// Array entries whose keys stand for the same thing.  A stack builtin used
// as a key is a code over the captured stack (compiler/ir/key_codes.h),
// and two codes can print the same: probefunc() of two stacks in one
// function, symname(addr()) of two pcs in it, one stack taken by two
// probes (their own frames, which are not printed, differ).  To a script
// they are one key, as stap's text key would be, so the runtime reads
// such entries as one: the first is the key foreach sees, a read sums the
// numbers (every increment landed on one of them) or merges the
// statistics, a write or delete applies to all of them.
//
// The index is built from a walk of the map (GlobalStore::keys, or the
// first read after a change) and kept until the next walk; an entry the
// kernel adds after it is read on its own until then.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace stap {

class KeyAliases {
 public:
  using Packed = std::vector<char>;

  // From the map's keys in walk order, each with its identity.
  void build(const std::vector<std::pair<Packed, std::string>>& keys);
  bool built() const { return built_; }
  void reset();
  // The keys `packed` stands with (itself first among them when it is a
  // group's first); null when it has no alias.
  const std::vector<Packed>* group_of(const Packed& packed) const;
  // The first key of each group, in walk order.
  std::vector<Packed> firsts() const;
  // After a write (keep) or delete of `packed` and its aliases: its group
  // is `packed` alone, or gone.
  void collapse(const Packed& packed, bool keep);

 private:
  std::map<std::string, std::vector<Packed>> groups_;  // identity -> keys
  std::map<Packed, std::string> identity_of_;
  std::vector<std::string> order_;  // identities, first seen first
  bool built_ = false;
};

}  // namespace stap
