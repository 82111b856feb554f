/* Kernel stacks and symbols as strings in kernel context, for scripts
 * that use them as values (strlen, concatenation, a local, sprintf ...):
 * compiler/codegen/emit_stack_text.cpp.  Printed or used as a key, they
 * stay stack codes the runtime names (emit_stack.cpp); these are the same
 * texts made in the kernel:
 *   symname(a)          "vfs_read", or "0x..." when no symbol holds a
 *   symdata(a)          "vfs_read+0x0/0x1a0 [kernel]", "...[ext4]", "0x..."
 *   probefunc()         symname of the probed context's pc
 *   sprint_backtrace()  "vfs_read+0x0 [kernel]\n" per frame, cut at
 *                       MAXSTRINGLEN (stap's _STP_SYM_SIMPLE lines)
 *   probemod()          "kernel" or the module of the probed context's pc
 *   sprint_stack(s)     " 0x... : vfs_read+0x0/0x1a0 [kernel]\n" per address
 *                       of s, whole lines up to MAXSTRINGLEN (sprint_syms)
 * The kernel names the addresses: bpf_snprintf's %ps / %pS look them up
 * in kallsyms ("name", "name+0x0/0x1a0", either followed by " [module]"
 * for a module's symbol, or "0x..." for none).  A state machine over that
 * text, one character per bpf_loop iteration, keeps what stap prints.
 *
 * A stack captured in our program starts with the program and the kernel
 * functions that call it; the loader lists their addresses in
 * STAP_STACK_GLUE_MAP (stap_layout.h) and the leading frames found there
 * are skipped, as the runtime skips them when it prints a stack code.
 *
 * The work area is one scratch slot: struct stp_ksym_work, then the
 * output area of P + 32 bytes (P = MAXSTRINGLEN rounded up to a power of
 * two, mask = P - 1), so indexes are masked into bounds.  Its state is
 * in map memory, unknown to the verifier, so each callback is verified
 * once. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "digits.h"
#include "ksym_text.h"
#include "stap_layout.h"

#define STP_INLINE __attribute__((always_inline))

/* bpf_loop's context, on the stack. */
struct stp_ksym_ctx {
	struct stp_ksym_work *w;
	void *glue;
	const char *fmt, *prefix;
	long form, size, mask;
};

/* The frames past the glue (backtrace() and callers(n) as text,
 * stack_text.c: at most STP_KSYM_FRAMES of them). */
STP_INLINE const __u64 *stp_kstack_kept(struct stp_ksym_work *w)
{
	return w->frames + (w->first & STP_GLUE_LEAD);
}

STP_INLINE char *stp_ksym_out(struct stp_ksym_work *w)
{
	return (char *)w + sizeof(struct stp_ksym_work);
}

/* Whether pc lies in one of the glue ranges. */
STP_INLINE long stp_glue_has(struct stp_ksym_work *w, void *glue, __u64 pc)
{
	__u32 key = 0;
	struct stap_glue_range *head = bpf_map_lookup_elem(glue, &key);
	if (!head)
		return 0;
	w->lo = 1;
	w->hi = head->start + 1;
	for (int k = 0; k < STP_GLUE_STEPS; k++) {
		__u64 lo = w->lo, hi = w->hi;
		if (lo >= hi)
			break;
		key = lo + (hi - lo) / 2;
		struct stap_glue_range *r = bpf_map_lookup_elem(glue, &key);
		if (!r)
			return 0;
		if (r->start <= pc)
			w->lo = key + 1;
		else
			w->hi = key;
	}
	key = w->lo - 1;
	if (key == 0)
		return 0;
	struct stap_glue_range *r = bpf_map_lookup_elem(glue, &key);
	return r && r->start <= pc && pc < r->end;
}

static long stp_glue_step(__u32 index, void *ctx)
{
	struct stp_ksym_ctx *x = ctx;
	struct stp_ksym_work *w = x->w;
	long f = w->first;
	if (f >= w->n || f >= STP_GLUE_LEAD)
		return 1;
	if (!stp_glue_has(w, x->glue, w->frames[f & STP_GLUE_LEAD]))
		return 1;
	w->first = f + 1;
	return 0;
}

/* This context's kernel stack into w->frames (depth <= STP_KSYM_FRAMES
 * words, zeros after the last frame and in the room behind), w->n its
 * frames, w->first the first one past the glue (0 when every frame is
 * glue: better our frames than nothing, as the runtime prints them); at
 * most `keep` frames from there. */
STP_INLINE void stp_kstack_capture(void *ctx, struct stp_ksym_work *w, long depth, long keep,
				   void *glue)
{
	long size = bpf_get_stack(ctx, w->frames, depth * 8, 0);
	/* The helper zeroes up to depth; a text past the glue reads up to
	 * STP_GLUE_LEAD words further. */
	for (int i = 0; i <= STP_GLUE_LEAD; i++)
		w->frames[depth + i] = 0;
	w->n = size > 0 ? size / 8 : 0;
	w->first = 0;
	struct stp_ksym_ctx x = {w, glue, 0, 0, 0, 0, 0};
	bpf_loop(STP_GLUE_LEAD, stp_glue_step, &x, 0);
	if (w->first >= w->n)
		w->first = 0;
	if (w->n > w->first + keep)
		w->n = w->first + keep;
}

/* stack(n): the address n frames past the glue, 0 past the last. */
STP_INLINE __u64 stp_kstack_frame(struct stp_ksym_work *w, long n)
{
	__u64 at = (__u64)w->first + (__u64)n;
	if ((__u64)n >= STP_KSYM_FRAMES || at >= (__u64)w->n ||
	    at >= STP_KSYM_FRAMES + STP_GLUE_LEAD)
		return 0;
	return w->frames[at];
}

/* One address to name (symname(a), symdata(a)). */
STP_INLINE void stp_ksym_address(struct stp_ksym_work *w, __u64 address)
{
	w->frames[0] = address;
	w->n = 1;
	w->first = 0;
}

/* The text of frames[first..n) in the form, one step per iteration:
 * FORMAT names the next frame into sym; COPY keeps its characters (LINES
 * skips "/0x<size>", NAME stops at the module, an address without a
 * symbol stops at its end, a module's "]" ends the frame); LINES ends
 * each frame with a newline. */
static long stp_ksym_step(__u32 index, void *ctx)
{
	struct stp_ksym_ctx *x = ctx;
	struct stp_ksym_work *w = x->w;
	char *out = stp_ksym_out(w);
	long full = x->form == STP_KSYM_FULL;
	if (w->mode == STP_KSYM_DONE)
		return 1;
	if (w->at >= x->size - 1 && (!full || w->mode == STP_KSYM_FORMAT))
		return 1;
	if (full && w->at > x->size) {  /* this line does not fit: left out */
		w->at = w->line;
		w->mode = STP_KSYM_DONE;
		return 1;
	}
	if (w->mode == STP_KSYM_FORMAT) {
		long f = w->frame;
		if (f >= w->n || (__u64)f >= STP_KSYM_FRAMES + STP_GLUE_LEAD)
			return 1;
		__u64 pc = w->frames[f];
		if (full) {  /* " 0x... : ", at most 23 characters, into the slack */
			w->line = w->at;
			long k = bpf_snprintf(out + (w->at & x->mask), 24, x->prefix, &pc, sizeof pc);
			if (k > 1 && k <= 24)
				w->at += k - 1;
		}
		if (pc) {
			bpf_snprintf(w->sym, STP_KSYM_ROOM, x->fmt, &pc, sizeof pc);
		} else {  /* %pS says "(null)"; stap says what it says of any address */
			w->sym[0] = '0';
			w->sym[1] = 'x';
			w->sym[2] = '0';
			w->sym[3] = 0;
		}
		w->frame = f + 1;
		w->pos = 0;
		w->plus = 0;
		w->mode = x->form == STP_KSYM_MODULE ? STP_KSYM_SEEK : STP_KSYM_COPY;
		return 0;
	}
	char c = w->sym[w->pos & (STP_KSYM_ROOM - 1)];
	long end = c == 0 || w->pos >= STP_KSYM_ROOM - 1;
	w->pos++;
	if (!end && w->mode == STP_KSYM_SEEK) {  /* MODULE: to the "[" */
		if (c == '+')
			w->plus = 1;
		if (c != '[')
			return 0;
		/* No symbol holds the address: no module either. */
		w->mode = w->plus ? STP_KSYM_COPY : STP_KSYM_DONE;
		return !w->plus;
	}
	if (!end && w->mode == STP_KSYM_SKIP) {
		if (c != ' ')
			return 0;
		w->mode = STP_KSYM_COPY;
	} else if (!end) {
		if (c == '/' && x->form == STP_KSYM_LINES) {
			w->mode = STP_KSYM_SKIP;
			return 0;
		}
		end = (c == ' ' && (x->form == STP_KSYM_NAME || !w->plus)) ||
		      (c == ']' && x->form == STP_KSYM_MODULE);
	}
	if (!end) {
		if (c == '+')
			w->plus = 1;
		if (w->at < x->size)
			out[w->at & x->mask] = c;
		w->at++;
		if (c != ']')
			return 0;
	}
	/* The frame's end. */
	if (x->form != STP_KSYM_LINES && !full) {
		w->mode = STP_KSYM_DONE;
		return 1;
	}
	if (w->at < x->size)
		out[w->at & x->mask] = '\n';
	w->at++;
	w->mode = STP_KSYM_FORMAT;
	if (full && w->at > x->size) {
		w->at = w->line;
		w->mode = STP_KSYM_DONE;
		return 1;
	}
	return 0;
}

/* sprint_stack(s): the words of s (hex, "0x" optional, as strtol(w, 16)
 * reads them; a word stops at its first other character) into w->frames,
 * at most STP_KSYM_FRAMES.  The text is read from the output area, where
 * stp_ksym_parse put it; the names overwrite it afterwards. */
static long stp_parse_step(__u32 index, void *ctx)
{
	struct stp_ksym_ctx *x = ctx;
	struct stp_ksym_work *w = x->w;
	const char *in = stp_ksym_out(w);
	long pos = w->pos;
	char c = pos <= x->mask ? in[pos & x->mask] : 0;
	w->pos = pos + 1;
	if (c == ' ' || c == 0) {
		if (w->plus) {  /* a word ends */
			long n = w->n;
			if (n < STP_KSYM_FRAMES)
				w->frames[n & (STP_KSYM_FRAMES - 1)] = w->lo;
			w->n = n + 1;
		}
		w->plus = 0;
		w->lo = 0;
		w->hi = 0;
		return c == 0;
	}
	long v = stp_digit((unsigned char)c);
	if ((c == 'x' || c == 'X') && w->plus && w->lo == 0 && !w->hi)
		return 0;  /* the 0x prefix */
	w->plus = 1;
	if (v >= 16 || w->hi)
		w->hi = 1;  /* the rest of the word is not read */
	else
		w->lo = w->lo * 16 + v;
	return 0;
}

STP_INLINE void stp_ksym_parse(struct stp_ksym_work *w, const char *text, long size, long mask)
{
	bpf_probe_read_kernel_str(stp_ksym_out(w), size, text);
	w->pos = 0;
	w->n = 0;
	w->lo = 0;
	w->hi = 0;
	w->plus = 0;
	w->first = 0;
	struct stp_ksym_ctx x = {w, 0, 0, 0, 0, size, mask};
	bpf_loop(size + 1, stp_parse_step, &x, 0);
	if (w->n > STP_KSYM_FRAMES)
		w->n = STP_KSYM_FRAMES;
}

/* The text (NUL terminated, at most size - 1 characters) in w's output
 * area, which it returns.  fmt: "%ps" for NAME, "%pS [kernel]" for DATA,
 * LINES and MODULE (the kernel's own symbols get stap's " [kernel]"; a module's
 * " [mod]" comes first and ends the frame). */
STP_INLINE char *stp_ksym_text(struct stp_ksym_work *w, long form, long size, long mask,
			       const char *fmt, const char *prefix)
{
	char *out = stp_ksym_out(w);
	w->at = 0;
	w->line = 0;
	w->frame = w->first;
	w->mode = STP_KSYM_FORMAT;
	struct stp_ksym_ctx x = {w, 0, fmt, prefix, form, size, mask};
	/* Every character of each frame's text, and one step per frame. */
	long frames = form == STP_KSYM_LINES || form == STP_KSYM_FULL ? STP_KSYM_FRAMES : 1;
	bpf_loop(frames * (STP_KSYM_ROOM + 1), stp_ksym_step, &x, 0);
	long at = w->at;
	if (at > size - 1)
		at = size - 1;
	out[at & mask] = 0;
	return out;
}
