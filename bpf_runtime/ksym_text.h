/* The work area of bpf_runtime/ksym_text.c, shared with the code
 * generator (compiler/codegen/emit_stack_text.cpp sizes the scratch slot:
 * this struct, then an output area of P + 32 bytes, P = MAXSTRINGLEN
 * rounded up to a power of two). */
#ifndef STAP_KSYM_TEXT_H
#define STAP_KSYM_TEXT_H

#include <linux/types.h>

/* Frames kept for text (stack_text.c writes at most 64 too), and room
 * behind them: the text starts at the first frame after the glue, at
 * most STP_GLUE_LEAD frames in. */
#define STP_KSYM_FRAMES 64
#define STP_GLUE_LEAD 15
/* One symbol's text from bpf_snprintf; longer names are cut. */
#define STP_KSYM_ROOM 256
/* Binary search steps over the glue ranges: up to 2^17 of them. */
#define STP_GLUE_STEPS 17

enum stp_ksym_form {
	STP_KSYM_NAME = 0, STP_KSYM_DATA = 1, STP_KSYM_LINES = 2, STP_KSYM_MODULE = 3,
	STP_KSYM_FULL = 4
};
/* Internal to ksym_text.c. */
enum stp_ksym_mode {
	STP_KSYM_FORMAT = 0, STP_KSYM_COPY = 1, STP_KSYM_SKIP = 2, STP_KSYM_DONE = 3, STP_KSYM_SEEK = 4
};

struct stp_ksym_work {
	__u64 frames[STP_KSYM_FRAMES + STP_GLUE_LEAD + 1];
	long n, first, frame;       /* frames captured, first kept, next to name */
	long at, pos, mode, plus;   /* output length, position in sym, state */
	long lo, hi;                /* the glue search; a parsed word */
	long line;                  /* where FULL's current line starts */
	char sym[STP_KSYM_ROOM];
};

#endif
