/* Stack capture in kernel context: a stack's id in the object's own stack
 * storage (compiler/codegen/emit_stack.cpp makes the maps, stap_layout.h
 * names them, loader/stack_symbols.cpp reads them).
 *
 * The kernel's BPF_MAP_TYPE_STACK_TRACE hashes a stack into a bucket
 * without chaining: a second stack in a taken bucket is refused, and a
 * busy profile lost dozens of stacks that way.  Here:
 *   - bpf_get_stack copies the frames into a scratch buffer of
 *     MAXBACKTRACE words (zero-filled past the last frame);
 *   - STAP_STACK_IDS_MAP, a HASH, maps the frames' 64-bit hash
 *     (stack_hash.h) to the stack's id;
 *   - STAP_STACKS_MAP, an ARRAY indexed by id, holds the frames; a hit in
 *     the hash is only taken when these frames equal the captured ones,
 *     so two stacks are never merged;
 *   - STAP_STACKS_LOST_MAP[1] hands out ids, [0] counts lost captures
 *     (the id space full, or a different stack with the same hash: the
 *     runtime warns at the end).
 * Equal stacks get one id wherever and whenever they are captured, so a
 * stack code aggregates as the text would.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "stack_hash.h"

#define STP_INLINE __attribute__((always_inline))

enum { STP_STACKS_LOST = 0, STP_STACKS_NEXT_ID = 1 };

/* Whether the n words at a and b are equal; branch-free, so the verifier
 * walks it once. */
STP_INLINE long stp_frames_equal(const __u64 *a, const __u64 *b, long n)
{
	__u64 diff = 0;
	for (long i = 0; i < n; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

STP_INLINE void stp_stack_lost(void *counts)
{
	__u32 key = STP_STACKS_LOST;
	__u64 *lost = bpf_map_lookup_elem(counts, &key);
	if (lost)
		__sync_fetch_and_add(lost, 1);
}

/* The id the hash `*hash` names, when its frames are buf's; -1 when the
 * hash names no stack, -2 when it names another one. */
STP_INLINE long stp_stack_find(void *ids, void *frames, const __u64 *hash, const __u64 *buf,
			       long depth)
{
	__u32 *id = bpf_map_lookup_elem(ids, hash);
	if (!id)
		return -1;
	__u32 at = *id;
	const __u64 *stored = bpf_map_lookup_elem(frames, &at);
	if (!stored || !stp_frames_equal(stored, buf, depth))
		return -2;
	return at;
}

/* A new stack: the next id, its frames stored before the hash names it
 * (a reader that finds the hash finds the frames).  Another CPU may add
 * the same stack meanwhile: then its id wins and ours is left unused. */
STP_INLINE long stp_stack_add(void *ids, void *frames, void *counts, __u64 *hash,
			      const __u64 *buf, long depth, long max_ids)
{
	__u32 key = STP_STACKS_NEXT_ID;
	__u64 *next = bpf_map_lookup_elem(counts, &key);
	if (!next)
		return -1;
	__u64 id = __sync_fetch_and_add(next, 1);
	if (id >= (__u64)max_ids)
		return -1;
	__u32 at = (__u32)id;
	if (bpf_map_update_elem(frames, &at, buf, BPF_ANY))
		return -1;
	if (bpf_map_update_elem(ids, hash, &at, BPF_NOEXIST) == 0)
		return at;
	long won = stp_stack_find(ids, frames, hash, buf, depth);
	return won >= 0 ? won : -1;
}

/* The id of this context's kernel stack (flags 0) or user stack
 * (BPF_F_USER_STACK), captured into buf (depth words, a scratch slot);
 * -1 when there is no stack (a kernel thread's user stack) or it was
 * lost (counted). */
STP_INLINE long stp_stack_store(__u64 *buf, long depth, void *ids, void *frames, void *counts,
				long max_ids);

STP_INLINE long stp_stack_id(void *ctx, __u64 *buf, long depth, long flags, void *ids,
			     void *frames, void *counts, long max_ids)
{
	long size = bpf_get_stack(ctx, buf, depth * 8, flags);
	if (size <= 0)
		return -1;
	return stp_stack_store(buf, depth, ids, frames, counts, max_ids);
}

/* The id of a one-frame "stack" holding address: symname(addr()) of a
 * perf sample, whose pc the runtime names as any first frame (a user
 * address in user mode, which kallsyms names by its hex, as stap does). */
STP_INLINE long stp_address_id(__u64 address, __u64 *buf, long depth, void *ids, void *frames,
			       void *counts, long max_ids)
{
	for (long i = 0; i < depth; i++)
		buf[i] = 0;
	buf[0] = address;
	return stp_stack_store(buf, depth, ids, frames, counts, max_ids);
}

/* The id of the frames in buf (depth words, zeros past the last frame),
 * found or added; -1 when lost (counted).  Also for the user stacks
 * unwind.c unwinds. */
STP_INLINE long stp_stack_store(__u64 *buf, long depth, void *ids, void *frames, void *counts,
				long max_ids)
{
	__u64 hash = stap_stack_hash(buf, depth);
	long id = stp_stack_find(ids, frames, &hash, buf, depth);
	if (id == -1)
		id = stp_stack_add(ids, frames, counts, &hash, buf, depth, max_ids);
	if (id < 0)
		stp_stack_lost(counts);
	return id;
}
