/* The 64-bit hash that names a captured stack in the stack-id map
 * (bpf_runtime/stacks.c).  Plain C over fixed-width types so the unit
 * tests can check it on the host.
 *
 * Every one of the MAXBACKTRACE words is hashed, the zeros past the last
 * frame included (bpf_get_stack zero-fills the buffer), so the loop has a
 * constant trip count and no branch on data: after inlining the verifier
 * walks it once.  Per word: a multiply-add, a rotate and a multiply (the
 * round of xxHash64, with its primes); then xxHash64's final mix.  A
 * stack's frames are always compared as well, so a hash collision can
 * only lose a stack (counted), never merge two.
 */
#ifndef STAP_STACK_HASH_H
#define STAP_STACK_HASH_H

#include <linux/types.h>

#define STAP_STACK_HASH_SEED 0x27d4eb2f165667c5ULL

static inline __attribute__((always_inline)) __u64 stap_stack_hash(const __u64 *frames, long n)
{
	__u64 h = STAP_STACK_HASH_SEED;
	for (long i = 0; i < n; i++) {
		h += frames[i] * 0xc2b2ae3d27d4eb4fULL;
		h = (h << 31) | (h >> 33);
		h *= 0x9e3779b185ebca87ULL;
	}
	h ^= h >> 33;
	h *= 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	h *= 0x165667b19e3779f9ULL;
	h ^= h >> 32;
	return h;
}

#endif
