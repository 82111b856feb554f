// stap_stack_hash (bpf_runtime/stack_hash.h), the hash that names a stack
// in the BPF stack storage.  A collision there costs a lost stack (the
// frames are compared, so never a merged one), so it must spread the
// stacks real programs have: a handful of return addresses recombined.
#include <catch2/catch.hpp>

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "bpf_runtime/stack_hash.h"

namespace {

uint64_t hash_of(const std::vector<__u64>& frames) {
  return stap_stack_hash(frames.data(), long(frames.size()));
}

}  // namespace

TEST_CASE("stack hash: equal frames, equal hash; any change shows", "[stack_hash]") {
  std::vector<__u64> a = {0xffffffff81234567, 0xffffffff81000130, 0, 0};
  CHECK(hash_of(a) == hash_of(std::vector<__u64>(a)));
  // Each single bit of each word (zeros past the end included).
  std::unordered_set<uint64_t> seen = {hash_of(a)};
  for (size_t w = 0; w < a.size(); ++w)
    for (int bit = 0; bit < 64; ++bit) {
      std::vector<__u64> b = a;
      b[w] ^= __u64{1} << bit;
      CHECK(seen.insert(hash_of(b)).second);
    }
  // Order and position count: swapped frames, a frame moved past a zero.
  CHECK(hash_of({2, 1, 0, 0}) != hash_of({1, 2, 0, 0}));
  CHECK(hash_of({1, 2, 0, 0}) != hash_of({1, 0, 2, 0}));
  // The empty stack does not hash to 0 or to the seed.
  CHECK(hash_of({0, 0, 0, 0}) != 0);
  CHECK(hash_of({0, 0, 0, 0}) != STAP_STACK_HASH_SEED);
}

// Every chain of 17 levels through two call sites each, as the live case
// profile_stacks_many's program makes (step_a/step_b): 131072 stacks
// that differ only in which of two return addresses each level holds.
// A hash that mixed words weakly (a sum, an xor) would collide here.
TEST_CASE("stack hash: no collision over 2^17 recombined call chains", "[stack_hash]") {
  const __u64 site[2] = {0x562db26ff1c5, 0x562db26ff1fc};
  std::unordered_set<uint64_t> hashes, low_bits;
  std::vector<__u64> frames(20, 0);
  for (uint32_t pattern = 0; pattern < (1u << 17); ++pattern) {
    frames[0] = 0x7f1095f0f829;  // the libc wrapper
    for (int level = 0; level < 17; ++level) frames[1 + level] = site[(pattern >> level) & 1];
    frames[18] = 0x562db26ff327;  // main
    uint64_t h = hash_of(frames);
    hashes.insert(h);
    low_bits.insert(h & 0xffffffff);
  }
  CHECK(hashes.size() == (1u << 17));
  // The low 32 bits alone nearly as distinct (expected collisions ~2).
  CHECK(low_bits.size() >= (1u << 17) - 16);
}
