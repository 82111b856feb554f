/* text_str(), string_quoted() and the *_quoted readers in kernel context:
 * stap 4.8's _stp_text_str (runtime/stp_string.c) as loader/interp_text.cpp
 * implements it for user context, with the same rules:
 *  - printable ASCII stays, except '"' and '\\';
 *  - \a \b \f \n \r \t \v \" \\ are two-character escapes, other bytes
 *    \ooo; a NUL inside a buffer (the *_buffer_quoted readers) is "\0"
 *    but counts as four characters, as in stap;
 *  - well-formed UTF-8 (2-4 bytes, no surrogate, not overlong, at most
 *    U+10FFFF) becomes \uXXXX or \UXXXXXXXX;
 *  - at most inlen input bytes and outlen output characters (0 or too
 *    big: MAXSTRINGLEN-1); an escape that does not fit ends the text;
 *  - quoted: in double quotes, and `"...` when input was left over.
 *
 * The work area is one scratch slot the generated code hands over:
 * struct stp_text (the loop's state), then the input (P + 8 bytes), then
 * the output (P + 16 bytes), P being MAXSTRINGLEN rounded up to a power
 * of two (mask = P - 1).  Indexes are masked with it, so the verifier
 * sees every access in bounds without a branch; the logic never needs
 * the mask (every index stays below MAXSTRINGLEN).
 *
 * One input character per bpf_loop iteration, its state in the scratch
 * map rather than on the stack: values loaded from map memory are unknown
 * to the verifier, so the callback's states converge at once whatever the
 * branches (a stack-held state would be tracked precisely and walked
 * iteration by iteration).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STP_INLINE __attribute__((always_inline))
#define STP_OPAQUE(v) __asm__ volatile("" : "+r"(v))

struct stp_text {
	long at, left;   /* input position, bytes left of inlen */
	long out, room;  /* output position, characters left of outlen */
	long esc, esc_len; /* first escape a truncation could cut, or -1 */
	long c;          /* the last character decoded */
	long buffer;     /* a buffer: NULs are data */
};

/* On the stack (bpf_loop wants it there), so kept small: the areas are
 * found from the slot and the mask, a constant the verifier sees. */
struct stp_text_ctx {
	struct stp_text *t;
	long mask;
};

STP_INLINE char *stp_text_in(void *slot)
{
	return (char *)slot + sizeof(struct stp_text);
}

STP_INLINE char *stp_text_out(void *slot, long mask)
{
	return (char *)slot + sizeof(struct stp_text) + mask + 1 + 8;
}

/* The letter of a two-character escape, or 0: \a..\r are 7..13. */
STP_INLINE unsigned long stp_short_escape(unsigned long c)
{
	const unsigned long letters = 'a' | 'b' << 8 | 't' << 16 | (unsigned long)'n' << 24 |
				      (unsigned long)'v' << 32 | (unsigned long)'f' << 40 |
				      (unsigned long)'r' << 48;
	if (c >= 7 && c <= 13)
		return (letters >> ((c - 7) * 8)) & 0xff;
	if (c == '"' || c == '\\')
		return c;
	return 0;
}

STP_INLINE char stp_hex_digit(unsigned long d)
{
	return d < 10 ? '0' + d : 'A' + d - 10;
}

static long stp_text_step(__u32 index, void *ctx)
{
	struct stp_text_ctx *x = ctx;
	struct stp_text *t = x->t;
	long mask = x->mask;
	const char *in = stp_text_in(t);
	char *out = stp_text_out(t, mask);
	long left = t->left;
	if (left <= 0)
		return 1;
	long at = t->at;
	unsigned long b = (unsigned char)in[at & mask];
	unsigned long c = b;
	long nbytes = 1;
	if ((b & 0xE0) == 0xC0 && left >= 2)
		nbytes = 2, c = b & 0x1F;
	else if ((b & 0xF0) == 0xE0 && left >= 3)
		nbytes = 3, c = b & 0x0F;
	else if ((b & 0xF8) == 0xF0 && left >= 4)
		nbytes = 4, c = b & 0x07;
	if (nbytes > 1) {
		unsigned long ok = 1;
		for (long i = 1; i < 4; i++) {
			if (i >= nbytes)
				break;
			unsigned long b2 = (unsigned char)in[(at + i) & mask];
			ok &= (b2 & 0xC0) == 0x80;
			c = (c << 6) | (b2 & 0x3F);
		}
		if (!ok || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF || c < 0x80 ||
		    (nbytes == 3 && c < 0x800) || (nbytes == 4 && c < 0x10000))
			nbytes = 1, c = b;
	}
	t->c = c;
	long room = t->room;
	if ((c == 0 && !t->buffer) || room <= 0)
		return 1;
	t->at = at + nbytes;
	t->left = left - nbytes;
	int plain = nbytes == 1 && c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
	unsigned long letter = nbytes == 1 ? stp_short_escape(c) : 0;
	long num = plain ? 1 : nbytes > 1 ? (c <= 0xFFFF ? 6 : 10) : letter ? 2 : 4;
	if (!plain && t->esc < 0 && room - 3 < num) {
		t->esc = t->out;
		t->esc_len = num;
	}
	if (room < num)
		return 1;
	long o = t->out & mask;
	long written = num;
	if (plain) {
		out[o] = c;
	} else if (nbytes > 1) {
		out[o] = '\\';
		out[o + 1] = c <= 0xFFFF ? 'u' : 'U';
		long digits = num - 2;
		for (long i = 0; i < 8; i++) {
			if (i >= digits)
				break;
			out[o + 2 + i] = stp_hex_digit((c >> ((digits - 1 - i) * 4)) & 0xF);
		}
	} else if (letter || c == 0) {
		out[o] = '\\';
		out[o + 1] = letter ? letter : '0';
		written = 2;
	} else {
		out[o] = '\\';
		out[o + 1] = '0' + ((c >> 6) & 3);
		out[o + 2] = '0' + ((c >> 3) & 7);
		out[o + 3] = '0' + (c & 7);
	}
	t->out += written;
	t->room = room - num;
	return 0;
}

/* Escapes the input already in the slot (n = MAXSTRINGLEN); returns the
 * output, a string of at most n - 1 characters. */
STP_INLINE char *stp_text_escape(void *slot, long inlen, long outlen, long quoted, long buffer,
				 long n, long mask)
{
	struct stp_text *t = slot;
	char *out = stp_text_out(slot, mask);
	if (inlen <= 0 || inlen > n - 1)
		inlen = n - 1;
	if (outlen <= 0 || outlen > n - 1)
		outlen = n - 1;
	t->at = 0;
	t->left = inlen;
	t->out = 0;
	t->esc = -1;
	t->esc_len = 0;
	t->c = 0;
	if (quoted) {
		outlen = (outlen < 5 ? 5 : outlen) - 2;
		out[0] = '"';
		t->out = 1;
	}
	t->room = outlen;
	t->buffer = buffer;
	struct stp_text_ctx x = {t, mask};
	bpf_loop(n, stp_text_step, &x, 0);
	long o = t->out;
	if (quoted) {
		if (t->c != 0 && t->left > 0) {
			long trunc = o - 3 + t->room;
			if (trunc < 0)
				trunc = 0;
			long esc = t->esc;
			if (esc >= 0 && esc < trunc && trunc < esc + t->esc_len)
				trunc = esc;
			if (trunc > o)
				trunc = o;
			o = trunc & mask;
			out[o] = '"';
			out[o + 1] = '.';
			out[o + 2] = '.';
			out[o + 3] = '.';
			o += 4;
		} else {
			out[o & mask] = '"';
			o += 1;
		}
	}
	/* o <= n - 1 <= mask: stap's accounting keeps the text within MAXSTRINGLEN. */
	out[o & mask] = 0;
	return out;
}

/* The input from a string value (n readable bytes). */
STP_INLINE void stp_text_load(void *slot, const char *s, long n)
{
	bpf_probe_read_kernel_str(stp_text_in(slot), n, s);
}

/* The input from memory: a string (at most n - 1 characters), or with
 * buffer, exactly inlen bytes (clamped as stap: <= 0 or > n - 1 is
 * n - 1).  The helper's result, < 0 on a fault. */
STP_INLINE long stp_text_read(void *slot, long addr, long inlen, long user, long buffer, long n)
{
	char *in = stp_text_in(slot);
	const void *src = (const void *)addr;
	if (!buffer)
		return user ? bpf_probe_read_user_str(in, n, src) : bpf_probe_read_kernel_str(in, n, src);
	if (inlen <= 0 || inlen > n - 1)
		inlen = n - 1;
	STP_OPAQUE(inlen);
	if (inlen < 1)
		inlen = 1;
	if (inlen > n - 1)
		inlen = n - 1;
	return user ? bpf_probe_read_user(in, inlen, src) : bpf_probe_read_kernel(in, inlen, src);
}

/* user_string_n_quoted's cut: a quoted text longer than outlen - 2 keeps
 * its first outlen - 4 characters and gets `"...`, the whole cut to
 * n - 1 characters (as stap's concatenation). */
STP_INLINE void stp_quoted_cut(void *slot, long outlen, long n, long mask)
{
	char *out = stp_text_out(slot, mask);
	/* The input area is free now: the copy target of the measuring read. */
	long len = bpf_probe_read_kernel_str(stp_text_in(slot), n, out) - 1;
	if (len <= outlen - 2)
		return;
	long keep = outlen - 4;
	if (keep < 0)
		keep = 0;
	if (keep > len)
		keep = len;
	keep &= mask;
	out[keep] = '"';
	out[keep + 1] = '.';
	out[keep + 2] = '.';
	out[keep + 3] = '.';
	long end = keep + 4;
	if (end > n - 1)
		end = n - 1;
	out[end & mask] = 0;
}
