/* The 64-bit hash that names a captured stack in the stack-id map
 * (bpf_runtime/stacks.c).  Plain C over fixed-width types so the unit
 * tests can check it on the host.
 *
 * Every one of the MAXBACKTRACE words is hashed, the zeros past the last
 * frame included (bpf_get_stack zero-fills the buffer), so the loops have
 * constant trip counts and no branch on data: after inlining the verifier
 * walks them once.  The scheme is xxHash64's (its primes and rounds, not
 * its exact output): four accumulators each take every fourth word
 * (a multiply-add, a rotate, a multiply), so four dependency chains run
 * side by side instead of one four times as long; the remainder goes into
 * the first; then the lanes are merged and the result mixed.  A stack's
 * frames are always compared as well, so a hash collision can only lose
 * a stack (counted), never merge two.
 */
#ifndef STAP_STACK_HASH_H
#define STAP_STACK_HASH_H

#include <linux/types.h>

#define STAP_STACK_HASH_SEED 0x27d4eb2f165667c5ULL
#define STAP_STACK_HASH_P1 0x9e3779b185ebca87ULL
#define STAP_STACK_HASH_P2 0xc2b2ae3d27d4eb4fULL

static inline __attribute__((always_inline)) __u64 stap_stack_round(__u64 acc, __u64 word)
{
	acc += word * STAP_STACK_HASH_P2;
	acc = (acc << 31) | (acc >> 33);
	return acc * STAP_STACK_HASH_P1;
}

static inline __attribute__((always_inline)) __u64 stap_stack_hash(const __u64 *frames, long n)
{
	__u64 a = STAP_STACK_HASH_SEED, b = STAP_STACK_HASH_SEED + STAP_STACK_HASH_P1,
	      c = STAP_STACK_HASH_SEED + STAP_STACK_HASH_P2, d = STAP_STACK_HASH_SEED - STAP_STACK_HASH_P1;
	long i = 0;
	for (; i + 4 <= n; i += 4) {
		a = stap_stack_round(a, frames[i]);
		b = stap_stack_round(b, frames[i + 1]);
		c = stap_stack_round(c, frames[i + 2]);
		d = stap_stack_round(d, frames[i + 3]);
	}
	for (; i < n; i++)
		a = stap_stack_round(a, frames[i]);
	__u64 h = ((a << 1) | (a >> 63)) + ((b << 7) | (b >> 57)) + ((c << 12) | (c >> 52)) +
		  ((d << 18) | (d >> 46));
	h ^= h >> 33;
	h *= STAP_STACK_HASH_P2;
	h ^= h >> 29;
	h *= 0x165667b19e3779f9ULL;
	h ^= h >> 32;
	return h;
}

#endif
