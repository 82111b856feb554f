/* BPF-side runtime helpers: the parts of kernel-context code that are
 * easier to write in C than to emit as LLVM IR.  compiler/codegen links
 * this file's bitcode into every script's module (LinkOnlyNeeded), so only
 * what a script calls ends up in its object.
 *
 * Every function is always_inline: after inlining, the length and shape
 * arguments are constants, so the verifier sees fixed bounds, and map
 * pointers passed in become the ld_imm64 map references the verifier
 * requires.  Nothing here is ever a BPF-to-BPF call.
 *
 * MAXSTRINGLEN is not known when this file is compiled: string functions
 * take it as `n`.  Every string pointer the generated code hands over
 * points to at least n readable bytes (see compiler/codegen/README.md).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "stap_layout.h"

#define STP_INLINE __attribute__((always_inline))

/* ---- strings */

/* Hides v's value from LLVM, so that a bounds check after it stays in the
 * code: LLVM drops checks it can prove, or rewrites them in 32 bits, and
 * the verifier then sees an unbounded size or index. */
#define STP_OPAQUE(v) __asm__ volatile("" : "+r"(v))

/* The size argument (1 .. n) for copying at most len characters. */
STP_INLINE long stp_copy_size(long len, long n)
{
	long size = len < n - 1 ? len + 1 : n;
	STP_OPAQUE(size);
	if (size < 1)
		size = 1;
	if (size > n)
		size = n;
	return size;
}

/* user_string_n / kernel_string_n: at most len characters into dst (n
 * bytes); the helper's result (< 0 on a fault). */
STP_INLINE long stp_read_str(char *dst, const void *src, long len, long n, long user)
{
	if (len < 0)
		len = 0;
	long size = stp_copy_size(len, n);
	if (user)
		return bpf_probe_read_user_str(dst, size, src);
	return bpf_probe_read_kernel_str(dst, size, src);
}

/* <0, 0, >0 as strcmp, over at most n bytes.  Each exit returns a value
 * that does not depend on the index, so the verifier can prune the paths
 * that leave the loop at different iterations.  When n is a multiple of 8
 * (string buffers are 8-aligned: scratch slots, map values, literals), 8
 * bytes at a time until a word differs or holds a NUL, then bytewise
 * within that word: 8 times fewer iterations for the verifier to walk. */
STP_INLINE long stp_strcmp_bytes(const char *a, const char *b, long from, long to)
{
	for (long i = from; i < to; i++) {
		unsigned char ca = a[i], cb = b[i];
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (!ca)
			return 0;
	}
	return 0;
}

STP_INLINE long stp_strcmp(const char *a, const char *b, long n)
{
	if (n % 8)
		return stp_strcmp_bytes(a, b, 0, n);
	const unsigned long *wa = (const unsigned long *)a, *wb = (const unsigned long *)b;
	for (long k = 0; k < n / 8; k++) {
		unsigned long x = wa[k], y = wb[k];
		/* a zero byte in x: (x - 0x01..) & ~x & 0x80.. */
		if (x != y || ((x - 0x0101010101010101UL) & ~x & 0x8080808080808080UL))
			return stp_strcmp_bytes(a, b, 8 * k, 8 * k + 8);
	}
	return 0;
}

/* Length of s, using tmp (n bytes) as the copy target of the one helper
 * call that measures it: a loop would leave the verifier one state per
 * possible length. */
STP_INLINE long stp_strlen(const char *s, char *tmp, long n)
{
	long r = bpf_probe_read_kernel_str(tmp, n, s);
	return r > 0 ? r - 1 : 0;
}

/* dst = a . b, cut to n - 1 characters.  dst must have 2 * n bytes: the
 * verifier does not relate the offset of the second copy to its size, so
 * it checks offset (< n) and size (<= n) separately. */
STP_INLINE void stp_concat(char *dst, const char *a, const char *b, long n)
{
	long la = bpf_probe_read_kernel_str(dst, n, a);
	if (la < 1) {
		dst[0] = 0;
		la = 1;
	}
	la -= 1;
	STP_OPAQUE(la);
	if (la > n - 1)
		la = n - 1;
	long rest = n - la;
	if (rest < 1 || rest > n)
		return;
	bpf_probe_read_kernel_str(dst + la, rest, b);
}

/* ---- statistics (struct stap_stat, one per CPU) */

STP_INLINE long stp_hist_log_bucket(long v)
{
	if (v == 0)
		return 64;
	unsigned long m = v > 0 ? (unsigned long)v : -(unsigned long)v;
	long bits = 64 - __builtin_clzll(m);
	return v > 0 ? 64 + bits : 64 - bits;
}

/* As loader/histogram_output.h numbers them: 0 underflow, nb-1 overflow. */
STP_INLINE long stp_hist_linear_bucket(long v, long lo, long step, long nb)
{
	if (v < lo)
		return 0;
	unsigned long idx = ((unsigned long)v - (unsigned long)lo) / (unsigned long)step + 1;
	if (idx > (unsigned long)(nb - 1))
		idx = nb - 1;
	return idx;
}

/* kind: 0 no histogram, 1 log, 2 linear (ir::HistShape::Kind). */
STP_INLINE void stp_stat_add(struct stap_stat *s, long v, long kind, long lo, long step, long nb)
{
	if (s->count == 0 || v < s->min)
		s->min = v;
	if (s->count == 0 || v > s->max)
		s->max = v;
	s->count += 1;
	s->sum = (long)((unsigned long)s->sum + (unsigned long)v);
	s->sum_squares = (long)((unsigned long)s->sum_squares +
				(unsigned long)v * (unsigned long)v);
	if (kind == 0)
		return;
	long idx = kind == 1 ? stp_hist_log_bucket(v) : stp_hist_linear_bucket(v, lo, step, nb);
	/* Opaque to LLVM: it can prove idx < 128 through the bit counting and
	 * drop the check, which the verifier (seeing 0..255 after the
	 * count-leading-zeros expansion) needs. */
	STP_OPAQUE(idx);
	if (idx >= 0 && idx < nb)
		s->buckets[idx] += 1;
}

/* @variance as the interpreter computes it, with __int128:
 * (n * sum_squares - sum^2) / (n * (n - 1)) truncated, 0 below two values.
 * BPF has no 128-bit multiply or divide, so both are done by hand on
 * (hi, lo) pairs: magnitudes and a sign, then long division. */
struct stp_u128 {
	unsigned long hi, lo;
};

STP_INLINE struct stp_u128 stp_mul64(unsigned long a, unsigned long b)
{
	unsigned long a0 = a & 0xffffffff, a1 = a >> 32, b0 = b & 0xffffffff, b1 = b >> 32;
	unsigned long p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	unsigned long mid = (p00 >> 32) + (p01 & 0xffffffff) + (p10 & 0xffffffff);
	struct stp_u128 r;
	r.lo = (mid << 32) | (p00 & 0xffffffff);
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

STP_INLINE struct stp_u128 stp_neg128(struct stp_u128 x)
{
	struct stp_u128 r;
	r.lo = ~x.lo + 1;
	r.hi = ~x.hi + (r.lo == 0);
	return r;
}

/* One step of 128-bit long division, for bit 127 - index.  Branch-free
 * (borrows by Hacker's Delight's formula, masks instead of ifs): a branch
 * on the data makes the verifier track each value precisely and walk the
 * callback ~130,000 times; without one, its states converge at once. */
struct stp_divide {
	struct stp_u128 num, den, q, r;
};

static long stp_divide_step(__u32 index, void *ctx)
{
	struct stp_divide *d = ctx;
	unsigned long i = 127 - (index & 127);
	unsigned long high = (i >> 6) & 1; /* bit i is in num.hi */
	unsigned long bit = (((d->num.hi >> ((i - 64) & 63)) & high) |
			     ((d->num.lo >> (i & 63)) & (high ^ 1))) & 1;
	unsigned long rh = (d->r.hi << 1) | (d->r.lo >> 63);
	unsigned long rl = (d->r.lo << 1) | bit;
	unsigned long lo = rl - d->den.lo;
	unsigned long borrow_lo = ((~rl & d->den.lo) | (~(rl ^ d->den.lo) & lo)) >> 63;
	unsigned long hi = rh - d->den.hi - borrow_lo;
	unsigned long borrow_hi = ((~rh & d->den.hi) | (~(rh ^ d->den.hi) & hi)) >> 63;
	unsigned long ge = borrow_hi ^ 1; /* r >= den */
	/* Opaque to LLVM, which would otherwise turn the masks back into
	 * selects, that is branches. */
	__asm__ volatile("" : "+r"(ge));
	unsigned long mask = -ge;
	d->r.lo = rl ^ ((rl ^ lo) & mask);
	d->r.hi = rh ^ ((rh ^ hi) & mask);
	d->q.hi |= (ge & high) << ((i - 64) & 63);
	d->q.lo |= (ge & (high ^ 1)) << (i & 63);
	return 0;
}

STP_INLINE long stp_variance(long n, long sum, long sum_squares)
{
	if (n < 2)
		return 0;
	unsigned long mag = sum_squares < 0 ? -(unsigned long)sum_squares : (unsigned long)sum_squares;
	struct stp_u128 a = stp_mul64((unsigned long)n, mag);
	if (sum_squares < 0)
		a = stp_neg128(a);
	unsigned long smag = sum < 0 ? -(unsigned long)sum : (unsigned long)sum;
	struct stp_u128 b = stp_mul64(smag, smag);
	struct stp_u128 num; /* a - b, two's complement */
	num.lo = a.lo - b.lo;
	num.hi = a.hi - b.hi - (a.lo < b.lo);
	int negative = (long)num.hi < 0;
	if (negative)
		num = stp_neg128(num);
	struct stp_divide d = {num, stp_mul64((unsigned long)n, (unsigned long)(n - 1)), {0, 0}, {0, 0}};
	/* bpf_loop: an open-coded loop of 128 data-dependent branches made
	 * the verifier walk a million instructions. */
	bpf_loop(128, stp_divide_step, &d, 0);
	struct stp_u128 q = d.q;
	return negative ? -(long)q.lo : (long)q.lo;
}

/* One aggregate of a per-CPU statistic merged over CPUs 0 .. max_cpus-1
 * (stopping at the first CPU the map has no slot for).  op: 0 count, 1 sum,
 * 2 min, 3 max, 4 avg (returns the sum; the caller divides), 5 variance, 6 bucket
 * `bucket`.  *count_out gets the merged count, so the caller can raise
 * "empty aggregate". */
STP_INLINE long stp_stat_merge(void *map, const void *key, long op, long bucket, long nb,
			       long max_cpus, long *count_out)
{
	long count = 0, sum = 0, min = 0, max = 0, hits = 0, squares = 0;
	for (long cpu = 0; cpu < max_cpus; cpu++) {
		struct stap_stat *s = bpf_map_lookup_percpu_elem(map, key, cpu);
		if (!s)
			break;
		if (s->count == 0)
			continue;
		if (count == 0 || s->min < min)
			min = s->min;
		if (count == 0 || s->max > max)
			max = s->max;
		count += s->count;
		sum = (long)((unsigned long)sum + (unsigned long)s->sum);
		squares = (long)((unsigned long)squares + (unsigned long)s->sum_squares);
		STP_OPAQUE(bucket); /* keep the check (see stp_stat_add) */
		if (op == 6 && bucket >= 0 && bucket < nb)
			hits += s->buckets[bucket];
	}
	*count_out = count;
	switch (op) {
	case 0: return count;
	case 1: case 4: return sum;
	case 2: return min;
	case 3: return max;
	case 5: return stp_variance(count, sum, squares);
	case 6: return hits;
	}
	return 0;
}

/* ---- the current task, through CO-RE (libbpf relocates the offsets) */

typedef struct { unsigned int val; } kuid_t;
typedef struct { unsigned int val; } kgid_t;

struct cred {
	kuid_t euid;
	kgid_t egid;
} __attribute__((preserve_access_index));

struct task_struct {
	struct task_struct *real_parent;
	int tgid;
	char comm[16];
	const struct cred *cred;
} __attribute__((preserve_access_index));

STP_INLINE long stp_ppid(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(t, real_parent, tgid);
}

STP_INLINE long stp_euid(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(t, cred, euid.val);
}

STP_INLINE long stp_egid(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(t, cred, egid.val);
}

/* The parent's comm into dst (n >= 16 bytes). */
STP_INLINE void stp_pexecname(char *dst, long n)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct task_struct *p = BPF_CORE_READ(t, real_parent);
	if (bpf_core_read_str(dst, 16, &p->comm) < 0)
		dst[0] = 0;
}

/* ---- whole-map deletes (`delete a` in kernel context) */

static long stp_clear_one(void *map, const void *key, void *value, void *ctx)
{
	bpf_map_delete_elem(map, key);
	return 0;
}

/* Every element of a hash map (plain, LRU or per-CPU). */
STP_INLINE void stp_clear_map(void *map)
{
	bpf_for_each_map_elem(map, stp_clear_one, 0, 0);
}

/* A scalar statistic (one-entry per-CPU array): zero every CPU's value. */
STP_INLINE void stp_stat_clear(void *map, const void *key, long nb, long max_cpus)
{
	for (long cpu = 0; cpu < max_cpus; cpu++) {
		struct stap_stat *s = bpf_map_lookup_percpu_elem(map, key, cpu);
		if (!s)
			break;
		s->count = 0;
		s->sum = 0;
		s->min = 0;
		s->max = 0;
		s->sum_squares = 0;
		/* volatile: LLVM would turn the loop into a memset, which BPF
		 * cannot call once it exceeds the inline-store limit. */
		for (long i = 0; i < nb && i < 128; i++)
			*(volatile __s64 *)&s->buckets[i] = 0;
	}
}

/* substr(s, start, length) into dst (n bytes): "" when start is outside
 * the string or length <= 0, as the interpreter does. */
STP_INLINE void stp_substr(char *dst, const char *s, long start, long len, char *tmp, long n)
{
	long l = stp_strlen(s, tmp, n);
	dst[0] = 0;
	STP_OPAQUE(start);
	if (start < 0 || start >= l || len <= 0 || start > n - 1)
		return;
	bpf_probe_read_kernel_str(dst, stp_copy_size(len, n), s + start);
}

/* s[pos] as a signed char; the caller checked pos against strlen(s). */
STP_INLINE long stp_char_at(const char *s, long pos, long n)
{
	STP_OPAQUE(pos);
	if (pos < 0 || pos > n - 1)
		return 0;
	return (signed char)s[pos];
}
