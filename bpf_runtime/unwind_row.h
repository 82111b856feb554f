/* One row of a binary's unwind table: how to find the caller's frame from
 * any pc at or after the row's start (up to the next row's).  Built in
 * user space from the binary's call-frame information
 * (compiler/debuginfo/unwind_table.cpp), read by the BPF unwinder
 * (bpf_runtime/unwind.c).  Plain C over fixed-width types so both sides
 * share it; x86_64 only.
 *
 * A row is one 64-bit word:
 *   bits  0-31  start: the file offset of the row's first pc
 *   bits 32-33  how the CFA (the caller's rsp) is found:
 *               UNKNOWN (no usable rule: take a frame-pointer step),
 *               RSP / RBP (that register + cfa_offset),
 *               PLT (a .plt stub: rsp + 8, + 8 more when (pc & 15) >= arg)
 *   bits 34-39  arg (PLT: the threshold; UNKNOWN: 1 = the outermost
 *               frame, the stack ends; 2 = a signal trampoline, the
 *               interrupted rip/rsp/rbp are in the ucontext at rsp)
 *   bits 40-55  cfa_offset, bytes
 *   bits 56-63  rbp: the caller's rbp is saved at CFA + 8 * rbp (signed);
 *               0: this frame left rbp alone
 * The return address is always at CFA - 8 (rows where the CFI says
 * otherwise are UNKNOWN).
 *
 * Slot 0 of the rows map is not a row: its start field counts the
 * binaries loaded (0: no table, the plain frame-pointer walk).
 */
#ifndef STAP_UNWIND_ROW_H
#define STAP_UNWIND_ROW_H

#include <linux/types.h>

enum { STAP_CFA_UNKNOWN = 0, STAP_CFA_RSP = 1, STAP_CFA_RBP = 2, STAP_CFA_PLT = 3 };
enum { STAP_ROW_END = 1, STAP_ROW_SIGNAL = 2 }; /* UNKNOWN rows' arg */

/* The maps the unwinder reads (compiler/codegen/emit_stack.cpp makes them
 * when a script captures user stacks; loader/unwind_tables.cpp fills them
 * before any probe is attached):
 *   STAP_UNWIND_ROWS_MAP    ARRAY of __u64 rows, every binary's sorted
 *                           run one after another; sized by the loader
 *   STAP_UNWIND_FILES_MAP   HASH struct stap_unwind_file -> struct
 *                           stap_unwind_range */
#define STAP_UNWIND_ROWS_MAP "stap_unwind_rows"
#define STAP_UNWIND_FILES_MAP "stap_unwind_files"
#define STAP_UNWIND_MAX_FILES 512
/* The unwinder's scratch slot (unwind.c's struct stp_unwind_work): room
 * for MAXBACKTRACE's largest value, then 6 words. */
#define STP_UNWIND_MAX_FRAMES 128
#define STP_UNWIND_SLOT ((STP_UNWIND_MAX_FRAMES + 6) * 8)

/* A mapped file as the kernel names it: inode->i_sb->s_dev (the kernel's
 * dev_t, major << 20 | minor) and inode->i_ino; the vDSO, which has no
 * file, is {0, STAP_UNWIND_VDSO}. */
#define STAP_UNWIND_VDSO (~0ULL)
struct stap_unwind_file {
	__u64 dev;
	__u64 ino;
};

/* Where a file's rows are in the rows map: [first, first + count). */
struct stap_unwind_range {
	__u32 first;
	__u32 count;
};

static inline __attribute__((always_inline)) __u64 stap_unwind_row(__u32 start, __u32 cfa, __u32 arg,
								   __u32 cfa_offset, int rbp)
{
	return (__u64)start | ((__u64)(cfa & 3) << 32) | ((__u64)(arg & 63) << 34) |
	       ((__u64)(cfa_offset & 0xffff) << 40) | ((__u64)(__u8)(signed char)rbp << 56);
}

static inline __attribute__((always_inline)) __u32 stap_row_start(__u64 row)
{
	return (__u32)row;
}

static inline __attribute__((always_inline)) __u32 stap_row_cfa(__u64 row)
{
	return (row >> 32) & 3;
}

static inline __attribute__((always_inline)) __u32 stap_row_arg(__u64 row)
{
	return (row >> 34) & 63;
}

static inline __attribute__((always_inline)) __u32 stap_row_cfa_offset(__u64 row)
{
	return (row >> 40) & 0xffff;
}

static inline __attribute__((always_inline)) int stap_row_rbp(__u64 row)
{
	return (signed char)(__u8)(row >> 56);
}

#endif
