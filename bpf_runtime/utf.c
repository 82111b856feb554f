/* kernel_string_utf16/32 and user_string_utf16/32 in kernel context: a
 * NUL-terminated UTF-16 or UTF-32 string read one code unit at a time and
 * written out as UTF-8, as stap 4.8's conversions.stp and uconversions.stp
 * do (loader/interp/interp_kernel.cpp does the same for user context):
 *  - a UTF-16 high surrogate followed by a low one is one character; a
 *    lone surrogate, or a character past U+10FFFF, is an invalid character
 *    (stap's error names it and the address of its last code unit);
 *  - a character that does not fit in what is left of MAXSTRINGLEN ends
 *    the string (no error);
 *  - a fault ends it with stap's copy-fault error at the unit's address.
 *
 * The slot the generated code hands over is struct stp_utf (the loop's
 * state, in map memory so that the callback's states converge at once:
 * see text.c), then the output (P + 16 bytes, P = MAXSTRINGLEN rounded up
 * to a power of two, mask = P - 1).  One character per bpf_loop iteration;
 * the code unit's width is the callback's constant (a helper's read size
 * must be known to the verifier).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STP_INLINE __attribute__((always_inline))

enum { STP_UTF_OK = 0, STP_UTF_FAULT = 1, STP_UTF_INVALID = 2 };

struct stp_utf {
	long src;     /* the next code unit's address; the failing one's after an error */
	long out;     /* bytes written */
	long status;  /* STP_UTF_* */
	long bad;     /* the invalid character */
	long user;    /* user memory (else kernel memory) */
	long n;       /* MAXSTRINGLEN */
};

struct stp_utf_ctx {
	struct stp_utf *u;
	long mask;
};

STP_INLINE char *stp_utf_out(void *slot)
{
	return (char *)slot + sizeof(struct stp_utf);
}

STP_INLINE long stp_utf_read(void *dst, unsigned int size, long addr, long user)
{
	const void *src = (const void *)addr;
	return user ? bpf_probe_read_user(dst, size, src) : bpf_probe_read_kernel(dst, size, src);
}

/* Appends c as UTF-8: its length, 0 when it does not fit (with the NUL),
 * -1 when it is no character (a surrogate, or past U+10FFFF). */
STP_INLINE long stp_utf_put(struct stp_utf *u, long mask, unsigned long c)
{
	long k;
	if (c <= 0x7f)
		k = 1;
	else if (c <= 0x7ff)
		k = 2;
	else if (c >= 0xd800 && c <= 0xdfff)
		return -1;
	else if (c <= 0xffff)
		k = 3;
	else if (c <= 0x10ffff)
		k = 4;
	else
		return -1;
	long o = u->out;
	if (u->n - o < k + 1)
		return 0;
	char *out = stp_utf_out(u);
	if (k == 1) {
		out[o & mask] = c;
	} else {
		/* Continuation bytes from the last: 10xxxxxx each. */
		for (long i = 3; i > 0; i--) {
			if (i < k) {
				out[(o + i) & mask] = 0x80 | (c & 0x3f);
				c >>= 6;
			}
		}
		unsigned long lead = (0xf00 >> k) & 0xff; /* 110..., 1110..., 11110... */
		out[o & mask] = lead | c;
	}
	u->out = o + k;
	return k;
}

/* After a character: 0 to go on, 1 to stop. */
STP_INLINE long stp_utf_emit(struct stp_utf *u, long mask, unsigned long c, long at)
{
	long k = stp_utf_put(u, mask, c);
	if (k > 0)
		return 0;
	if (k < 0) {
		u->status = STP_UTF_INVALID;
		u->bad = c;
		u->src = at;
	}
	return 1;
}

/* One character of a string of `width`-byte units (a constant in each
 * callback below: a helper's read size must be known to the verifier). */
STP_INLINE long stp_utf_step(void *ctx, unsigned int width)
{
	struct stp_utf_ctx *x = ctx;
	struct stp_utf *u = x->u;
	if (u->n - u->out <= 1)
		return 1;
	long at = u->src;
	__u32 unit = 0;
	if (stp_utf_read(&unit, width, at, u->user) < 0) {
		u->status = STP_UTF_FAULT;
		return 1;
	}
	if (!unit)
		return 1;
	unsigned long c = unit;
	if (width == 2 && c >= 0xd800 && c <= 0xdbff) {
		__u32 low = 0;
		if (stp_utf_read(&low, 2, at + 2, u->user) < 0) {
			u->status = STP_UTF_FAULT;
			u->src = at + 2;
			return 1;
		}
		if (low >= 0xdc00 && low <= 0xdfff) {
			c = 0x10000 + ((c & 0x3ff) << 10) + (low & 0x3ff);
			at += 2;
		}
	}
	if (stp_utf_emit(u, x->mask, c, at))
		return 1;
	u->src = at + width;
	return 0;
}

static long stp_utf16_step(__u32 index, void *ctx)
{
	return stp_utf_step(ctx, 2);
}

static long stp_utf32_step(__u32 index, void *ctx)
{
	return stp_utf_step(ctx, 4);
}

/* Converts the string at addr (width 2 or 4) into the slot's output,
 * NUL-terminated; returns STP_UTF_*, the slot's src and bad telling more. */
STP_INLINE long stp_utf_string(void *slot, long addr, long width, long user, long n, long mask)
{
	struct stp_utf *u = slot;
	u->src = addr;
	u->out = 0;
	u->status = STP_UTF_OK;
	u->bad = 0;
	u->user = user;
	u->n = n;
	struct stp_utf_ctx x = {u, mask};
	if (width == 2)
		bpf_loop(n, stp_utf16_step, &x, 0);
	else
		bpf_loop(n, stp_utf32_step, &x, 0);
	stp_utf_out(slot)[u->out & mask] = 0;
	return u->status;
}
