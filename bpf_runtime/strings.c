/* strpos/isinstr, str_replace, strtol and tokenize in kernel context, as
 * loader/interp_builtins.cpp does them (stap 4.8's string.stp and
 * tokenize.stp semantics).
 *
 * Same scheme as text.c: the strings are first copied into one scratch
 * slot laid out as struct stp_str_work, then areas of P + 16 bytes each
 * (P = MAXSTRINGLEN rounded up to a power of two, mask = P - 1), so every
 * index can be masked into bounds without a branch; one bpf_loop
 * iteration per input position, the loop's state in map memory (unknown
 * to the verifier, so the callback's states converge at once).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "digits.h"

#define STP_INLINE __attribute__((always_inline))

struct stp_str_work {
	long pos, out, found, value, negative, base;
	long tok_begin, n;
};

/* On the stack (bpf_loop wants it there), so kept small: the areas are
 * found from the slot and the mask, a constant the verifier sees.  Areas:
 * 0 input, 1 pattern or delimiters, 2 replacement, 3 output. */
struct stp_str_ctx {
	struct stp_str_work *w;
	long mask;
};

STP_INLINE char *stp_str_area(void *slot, long i, long mask)
{
	return (char *)slot + sizeof(struct stp_str_work) + i * (mask + 1 + 16);
}

#define STP_AREA(x, i) stp_str_area((x)->w, i, (x)->mask)

/* Copies up to three strings (n readable bytes each; null: none) into
 * the slot's areas 0..2. */
STP_INLINE void stp_str_load(void *slot, const char *a, const char *b, const char *c, long n,
			     long mask)
{
	bpf_probe_read_kernel_str(stp_str_area(slot, 0, mask), n, a);
	if (b)
		bpf_probe_read_kernel_str(stp_str_area(slot, 1, mask), n, b);
	if (c)
		bpf_probe_read_kernel_str(stp_str_area(slot, 2, mask), n, c);
}

/* Whether area b (NUL terminated) occurs in area a at pos. */
STP_INLINE long stp_match_at(const char *a, const char *b, long pos, long mask)
{
	for (long k = 0; k <= mask; k++) {
		char cb = b[k & mask];
		if (!cb)
			return 1;
		if (a[(pos + k) & mask] != cb)
			return 0;
	}
	return 1;
}

/* ---- strpos, isinstr */

static long stp_find_step(__u32 index, void *ctx)
{
	struct stp_str_ctx *x = ctx;
	struct stp_str_work *w = x->w;
	const char *a = STP_AREA(x, 0);
	long pos = w->pos;
	if (pos >= w->n)
		return 1;
	if (stp_match_at(a, STP_AREA(x, 1), pos, x->mask)) {
		w->found = pos;
		return 1;
	}
	if (!a[pos & x->mask])
		return 1;
	w->pos = pos + 1;
	return 0;
}

/* The first position of area 1 in area 0, or -1 (0 for an empty area 1). */
STP_INLINE long stp_strpos(void *slot, long n, long mask)
{
	struct stp_str_work *w = slot;
	w->pos = 0;
	w->found = -1;
	w->n = n;
	struct stp_str_ctx x = {w, mask};
	bpf_loop(n, stp_find_step, &x, 0);
	return w->found;
}

/* ---- str_replace */

static long stp_replace_step(__u32 index, void *ctx)
{
	struct stp_str_ctx *x = ctx;
	struct stp_str_work *w = x->w;
	const char *a = STP_AREA(x, 0), *c = STP_AREA(x, 2);
	char *out = STP_AREA(x, 3);
	long pos = w->pos, o = w->out, mask = x->mask, n = w->n;
	char ch = a[pos & mask];
	if (!ch || pos >= n)
		return 1;
	if (w->value > 0 && stp_match_at(a, STP_AREA(x, 1), pos, mask)) {
		for (long k = 0; k <= mask; k++) {
			char r = c[k & mask];
			if (!r || o >= n - 1)
				break;
			out[o & mask] = r;
			o++;
		}
		w->pos = pos + w->value;
	} else {
		if (o < n - 1) {
			out[o & mask] = ch;
			o++;
		}
		w->pos = pos + 1;
	}
	w->out = o;
	return 0;
}

/* Area 0 with every occurrence of area 1 (of length from_len) replaced by
 * area 2, cut to n - 1 characters; the result is area 3. */
STP_INLINE char *stp_str_replace(void *slot, long from_len, long n, long mask)
{
	struct stp_str_work *w = slot;
	char *out = stp_str_area(slot, 3, mask);
	w->pos = 0;
	w->out = 0;
	w->value = from_len;
	w->n = n;
	struct stp_str_ctx x = {w, mask};
	bpf_loop(n, stp_replace_step, &x, 0);
	out[w->out & mask] = 0;
	return out;
}

/* ---- strtol: the kernel's simple_strtol */

static long stp_strtol_step(__u32 index, void *ctx)
{
	struct stp_str_ctx *x = ctx;
	struct stp_str_work *w = x->w;
	long pos = w->pos;
	unsigned long c = (unsigned char)STP_AREA(x, 0)[pos & x->mask];
	long digit = stp_digit(c);
	if (pos >= w->n || digit >= w->base)
		return 1;
	w->value = (long)((unsigned long)w->value * (unsigned long)w->base + (unsigned long)digit);
	w->pos = pos + 1;
	return 0;
}

STP_INLINE int stp_is_xdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* strtol(area 0, base) */
STP_INLINE long stp_strtol(void *slot, long base, long n, long mask)
{
	struct stp_str_work *w = slot;
	const char *s = stp_str_area(slot, 0, mask);
	long pos = s[0] == '-';
	int hex_prefix = s[pos] == '0' && (s[pos + 1] == 'x' || s[pos + 1] == 'X') &&
			 stp_is_xdigit(s[pos + 2]);
	if (base == 0)
		base = hex_prefix ? 16 : s[pos] == '0' ? 8 : 10;
	w->negative = pos;
	if (base == 16 && hex_prefix)
		pos += 2;
	w->pos = pos;
	w->base = base;
	w->value = 0;
	w->n = n;
	struct stp_str_ctx x = {w, mask};
	bpf_loop(n, stp_strtol_step, &x, 0);
	unsigned long v = w->value;
	return w->negative ? (long)(0 - v) : (long)v;
}

/* ---- tokenize: the rest of the input is kept per CPU between calls */

struct stp_tokenize {
	long start;  /* where the next token may begin */
	long active; /* input left */
	char str[];  /* P + 16 bytes */
};

static long stp_token_step(__u32 index, void *ctx)
{
	struct stp_str_ctx *x = ctx;
	struct stp_str_work *w = x->w;
	const char *a = STP_AREA(x, 0), *delim = STP_AREA(x, 1);
	long pos = w->pos, mask = x->mask;
	char ch = a[pos & mask];
	int is_delim = 0;
	for (long k = 0; k <= mask; k++) {
		char d = delim[k & mask];
		if (!d)
			break;
		is_delim |= d == ch;
	}
	if (ch && !is_delim && pos < w->n) {
		w->pos = pos + 1;
		return 0;
	}
	/* The end of a token, maybe empty (skipped, as stap's do-while). */
	if (pos > w->tok_begin) {
		w->found = 1;
		w->out = ch ? pos + 1 : -1; /* -1: no input left */
		return 1;
	}
	if (!ch || pos >= w->n) {
		w->out = -1;
		return 1;
	}
	w->pos = pos + 1;
	w->tok_begin = pos + 1;
	return 0;
}

/* tokenize(area 0, area 1) with the state `t`; the token is written to
 * dst (n bytes).  The kept string is copied to area 0 for the search. */
STP_INLINE void stp_tokenize(struct stp_tokenize *t, void *slot, char *dst, long n, long mask)
{
	struct stp_str_work *w = slot;
	char *input = stp_str_area(slot, 0, mask);
	dst[0] = 0;
	if (input[0]) {
		bpf_probe_read_kernel_str(t->str, n, input);
		t->start = 0;
		t->active = 1;
	}
	if (!t->active)
		return;
	bpf_probe_read_kernel_str(input, n, t->str);
	w->pos = t->start;
	w->tok_begin = t->start;
	w->found = 0;
	w->out = -1;
	w->n = n;
	struct stp_str_ctx x = {w, mask};
	bpf_loop(n + 1, stp_token_step, &x, 0);
	if (w->out < 0)
		t->active = 0;
	else
		t->start = w->out;
	if (!w->found)
		return;
	long begin = w->tok_begin & mask;
	long size = w->pos - w->tok_begin + 1;
	__asm__ volatile("" : "+r"(size)); /* keep the checks (see runtime.c's STP_OPAQUE) */
	if (size < 1)
		size = 1;
	if (size > n)
		size = n;
	bpf_probe_read_kernel_str(dst, size, input + begin);
}
