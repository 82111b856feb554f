/* A captured stack as stap's text, in kernel context, for the scripts
 * that use backtrace(), ubacktrace(), callers(n) or ucallers(n) as a
 * string (strlen, substr, tokenize, concatenation, a string array's value
 * or key): compiler/codegen/emit_stack_text.cpp.  Used as an array key or
 * printed, a stack stays a code over the exact storage (stacks.c).
 *
 * stap's text (runtime/stack.c, the context-symbols tapsets): each
 * address "%#lx"; backtrace() puts a space after each and is cut at
 * MAXSTRINGLEN like any string, callers(n) joins the first n+1 with
 * spaces and keeps whole addresses only. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STP_INLINE __attribute__((always_inline))

/* The longest word: " 0x" and 16 digits, or 16 digits and a space, and
 * the NUL bpf_snprintf always writes. */
#define STP_STACK_WORD 24

/* The frames of buf (depth words, the first zero ends them) into out,
 * a string of size bytes followed by STP_STACK_WORD bytes of room (each
 * word is written whole, then the text cut).  count < 0: backtrace()'s
 * form, every address followed by a space, cut at size - 1 characters;
 * count > 0: callers(n)'s, the first count addresses joined by spaces,
 * whole ones only.  One bpf_snprintf per frame keeps the verifier's walk
 * short (a digit loop per frame did not fit in its budget).  The formats
 * "0x%lx ", "0x%lx" and " 0x%lx" come from the object's read-only data,
 * where bpf_snprintf wants them. */
STP_INLINE void stp_stack_text(const __u64 *buf, long depth, char *out, long size, long count,
			       const char *each, const char *first, const char *next)
{
	long at = 0;
	out[0] = 0;
	for (long f = 0; f < depth && f < 64; f++) {
		__u64 v = buf[f];
		if (v == 0 || (count > 0 && f >= count))
			break;
		const char *fmt = count < 0 ? each : f == 0 ? first : next;
		/* One unsigned compare bounds `at` both ways for the verifier. */
		if ((__u64)at >= (__u64)(size - 1))
			break;
		long n = bpf_snprintf(out + at, STP_STACK_WORD, fmt, &v, sizeof v);
		/* Bounded both ways, so `at` stays bounded for older verifiers
		 * (6.1 took the helper's result as unbounded below). */
		if (n <= 1 || n > STP_STACK_WORD)
			break;
		if (count > 0 && at + n - 1 > size - 1)
			break;  /* not whole: left out */
		at += n - 1;
	}
	if (at > size - 1)
		at = size - 1;
	if ((__u64)at < (__u64)size)
		out[at] = 0;
}
