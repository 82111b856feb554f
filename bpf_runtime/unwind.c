/* User stacks unwound with call-frame information, in the BPF program
 * (issue 6: Debian's libc and -O2 code keep no frame pointers, so the
 * kernel's frame-pointer walk behind bpf_get_stack(BPF_F_USER_STACK)
 * stops or goes astray there).
 *
 * The loader turns each binary of interest's .eh_frame into sorted rows
 * (unwind_row.h, compiler/debuginfo/unwind_table.cpp) in
 * STAP_UNWIND_ROWS_MAP and names each binary's run of rows by its inode
 * in STAP_UNWIND_FILES_MAP.  Here, from the thread's user registers
 * (bpf_task_pt_regs: the state it entered the kernel with, also under a
 * uprobe or a perf sample taken in user mode), each frame:
 *   - finds the mapping of its pc: a per-CPU cache of the process's
 *     mappings (STAP_UNWIND_MAPS_MAP, by tgid, checked against the mm),
 *     else bpf_find_vma, whose callback reads the vma's start, page
 *     offset and file (inode, device), or sees it is the vDSO.  The cache is what makes perf
 *     samples work: with interrupts off bpf_find_vma succeeds once per
 *     program run (its mmap unlock is deferred to an irq_work), so a
 *     profile learns one mapping per sample until it knows them all;
 *   - turns the pc into a file offset and binary-searches the rows;
 *   - computes the CFA, reads the return address at CFA-8 and the saved
 *     rbp; no row (or an UNKNOWN one) takes a frame-pointer step instead.
 * A row marking the outermost frame (_start's undefined return address)
 * ends the stack.  The frames then go to the same storage as every
 * other stack (stacks.c), so ids, symbols and output are unchanged.
 * The cache can go stale when a process unmaps a library and maps
 * another at the same address (dlclose/dlopen); exec and pid reuse are
 * caught by the mm check.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "unwind_row.h"

#define STP_INLINE __attribute__((always_inline))
#define STP_UMAPS 8
#define STP_ROW_SEARCH_STEPS 24 /* 16M rows */

struct super_block {
	unsigned int s_dev;
} __attribute__((preserve_access_index));

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	struct file *vm_file;
} __attribute__((preserve_access_index));

/* x86's mm_context_t: where the vDSO is mapped. */
struct mm_context___unwind {
	void *vdso;
} __attribute__((preserve_access_index));

struct mm_struct___unwind {
	struct mm_context___unwind context;
} __attribute__((preserve_access_index));

/* The flavour suffixes keep these apart from runtime.c's task_struct;
 * CO-RE matches them to the kernel's by the name before "___". */
struct task_struct___unwind {
	struct mm_struct___unwind *mm;
} __attribute__((preserve_access_index));

/* x86_64 struct pt_regs offsets (an ABI the kernel keeps). */
enum { STP_PT_BP = 32, STP_PT_IP = 128, STP_PT_SP = 152 };

/* A mapping of the process: pc + base is the file offset; its rows are
 * [first, first + count) (count 0: no table, frame-pointer steps). */
struct stp_umap {
	__u64 start, end, base;
	__u32 first, count;
};

/* STAP_UNWIND_MAPS_MAP's value: one process's mappings seen so far. */
struct stp_umaps {
	__u64 mm;
	__u64 next;
	struct stp_umap m[STP_UMAPS];
};

struct stp_uregs {
	__u64 ip, sp, bp;
};

/* What the bpf_find_vma callback reports. */
struct stp_vma_info {
	__u64 start, end, pgoff, dev, ino;
};

static long stp_unwind_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct stp_vma_info *v = data;
	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	struct file *f = BPF_CORE_READ(vma, vm_file);
	if (f) {
		v->ino = BPF_CORE_READ(f, f_inode, i_ino);
		v->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	} else {
		struct task_struct___unwind *t = (void *)task;
		if ((__u64)BPF_CORE_READ(t, mm, context.vdso) == v->start)
			v->ino = STAP_UNWIND_VDSO;
	}
	return 0;
}

/* The cached mapping holding pc into *out. */
STP_INLINE long stp_umap_cached(const struct stp_umaps *c, __u64 pc, struct stp_umap *out)
{
	for (int i = 0; i < STP_UMAPS; i++) {
		if (pc >= c->m[i].start && pc < c->m[i].end) {
			*out = c->m[i];
			return 1;
		}
	}
	return 0;
}

/* The mapping holding pc from the kernel (and into the cache). */
STP_INLINE long stp_umap_lookup(struct stp_umaps *c, __u64 pc, void *files, struct stp_umap *out)
{
	struct stp_vma_info v = {};
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, stp_unwind_vma, &v, 0))
		return 0;
	out->start = v.start;
	out->end = v.end;
	out->base = v.pgoff * 4096 - v.start;
	out->first = 0;
	out->count = 0;
	if (v.ino) {
		struct stap_unwind_file key = {v.dev, v.ino};
		struct stap_unwind_range *r = bpf_map_lookup_elem(files, &key);
		if (r) {
			out->first = r->first;
			out->count = r->count;
		}
	}
	if (c)
		c->m[c->next++ & (STP_UMAPS - 1)] = *out;
	return 1;
}

/* The row covering file offset off among [first, first + count). */
STP_INLINE long stp_row_find(void *rows, __u32 first, __u32 count, __u64 off, __u64 *row)
{
	__u32 lo = first, hi = first + count;
	for (int k = 0; k < STP_ROW_SEARCH_STEPS; k++) {
		if (lo >= hi)
			break;
		__u32 mid = lo + (hi - lo) / 2;
		__u64 *p = bpf_map_lookup_elem(rows, &mid);
		if (!p)
			return 0;
		if (stap_row_start(*p) <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first)
		return 0;
	__u32 at = lo - 1;
	__u64 *p = bpf_map_lookup_elem(rows, &at);
	if (!p)
		return 0;
	*row = *p;
	return 1;
}

/* x86_64 rt_sigframe: where the interrupted registers are, from the
 * ucontext at rsp when the handler has returned into __restore_rt. */
enum { STP_UC_RBP = 40 + 80, STP_UC_RSP = 40 + 120, STP_UC_RIP = 40 + 128 };

/* Out of a signal frame: 2 done (the next pc is exact, not a return
 * address), -1 the stack ends. */
STP_INLINE long stp_step_signal(struct stp_uregs *r)
{
	__u64 ip = 0, sp = 0, bp = 0;
	if (bpf_probe_read_user(&ip, 8, (void *)(r->sp + STP_UC_RIP)) ||
	    bpf_probe_read_user(&sp, 8, (void *)(r->sp + STP_UC_RSP)) ||
	    bpf_probe_read_user(&bp, 8, (void *)(r->sp + STP_UC_RBP)))
		return -1;
	r->ip = ip;
	r->sp = sp;
	r->bp = bp;
	return 2;
}

/* One step by a row: 1 done, 2 done into an exact pc, 0 no rule here,
 * -1 the stack ends. */
STP_INLINE long stp_step_row(__u64 row, struct stp_uregs *r)
{
	__u32 kind = stap_row_cfa(row);
	if (kind == STAP_CFA_UNKNOWN) {
		__u32 arg = stap_row_arg(row);
		if (arg == STAP_ROW_SIGNAL)
			return stp_step_signal(r);
		return arg == STAP_ROW_END ? -1 : 0;
	}
	__u64 cfa = (kind == STAP_CFA_RBP ? r->bp : r->sp) + stap_row_cfa_offset(row);
	if (kind == STAP_CFA_PLT && (r->ip & 15) >= stap_row_arg(row))
		cfa += 8;
	if (cfa <= r->sp)
		return -1;
	__u64 ra = 0;
	if (bpf_probe_read_user(&ra, 8, (void *)(cfa - 8)))
		return -1;
	long rbp = stap_row_rbp(row);
	if (rbp) {
		__u64 bp = 0;
		if (bpf_probe_read_user(&bp, 8, (void *)(cfa + rbp * 8)))
			return -1;
		r->bp = bp;
	}
	r->sp = cfa;
	r->ip = ra;
	return 1;
}

/* One frame-pointer step: [rbp] the caller's rbp, [rbp+8] the return
 * address. */
STP_INLINE long stp_step_fp(struct stp_uregs *r)
{
	if (r->bp < r->sp || (r->bp & 7))
		return -1;
	__u64 frame[2];
	if (bpf_probe_read_user(frame, 16, (void *)r->bp))
		return -1;
	r->sp = r->bp + 16;
	r->bp = frame[0];
	r->ip = frame[1];
	return 1;
}

/* This process's mapping cache, (re)started when it belongs to another
 * mm (a new image after exec, or a reused pid); null when the map is
 * full of other CPUs' work (the lookups then go to the kernel). */
STP_INLINE struct stp_umaps *stp_umaps_of(void *umaps, __u64 mm)
{
	__u64 tgid = bpf_get_current_pid_tgid() >> 32;
	struct stp_umaps *c = bpf_map_lookup_elem(umaps, &tgid);
	if (!c) {
		static const struct stp_umaps zero;
		bpf_map_update_elem(umaps, &tgid, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(umaps, &tgid);
		if (!c)
			return 0;
	}
	if (c->mm != mm) {
		for (int i = 0; i < STP_UMAPS; i++)
			c->m[i].end = 0;
		c->mm = mm;
		c->next = 0;
	}
	return c;
}

/* The unwinder's work area: a scratch slot of STP_UNWIND_SLOT bytes,
 * the frames first (so stacks.c hashes them in place), then the
 * registers and the frame count.  In map memory, unknown to the
 * verifier, so the bpf_loop callback below is verified once whatever
 * MAXBACKTRACE is (an open-coded loop of 96 frames was too complex for
 * 6.18's verifier). */
struct stp_unwind_work {
	__u64 frames[STP_UNWIND_MAX_FRAMES];
	struct stp_uregs r;
	__u64 n, depth, exact;
};

/* bpf_loop's context, on the stack: pointers only. */
struct stp_unwind_ctx {
	struct stp_unwind_work *w;
	struct stp_umaps *c;
	void *rows, *files;
};

/* One frame: record the pc, then step to the caller; 1 ends the walk. */
static long stp_unwind_frame(__u32 index, void *ctx)
{
	struct stp_unwind_ctx *x = ctx;
	struct stp_unwind_work *w = x->w;
	__u64 i = w->n;
	if (!w->r.ip || i >= w->depth)
		return 1;
	w->frames[i & (STP_UNWIND_MAX_FRAMES - 1)] = w->r.ip;
	w->n = i + 1;
	/* A return address is just past its call: look up the call.  The
	 * first pc and one a signal interrupted are exact. */
	__u64 pc = w->exact ? w->r.ip : w->r.ip - 1;
	struct stp_umap m = {};
	long step = 0;
	if ((x->c && stp_umap_cached(x->c, pc, &m)) || stp_umap_lookup(x->c, pc, x->files, &m)) {
		__u64 row;
		if (m.count && stp_row_find(x->rows, m.first, m.count, pc + m.base, &row))
			step = stp_step_row(row, &w->r);
	}
	if (step == 0)
		step = stp_step_fp(&w->r);
	w->exact = step == 2;
	return step < 0;
}

/* The user stack of the current thread into w's frames (depth words,
 * zeros past the last frame); the number of frames, 0 for none (a
 * kernel thread). */
STP_INLINE long stp_ustack_unwind(struct stp_unwind_work *w, long depth, void *rows, void *files,
				  void *umaps)
{
	for (long i = 0; i < depth; i++)
		w->frames[i] = 0;
	struct task_struct___unwind *task = (void *)bpf_get_current_task();
	__u64 mm = (__u64)BPF_CORE_READ(task, mm);
	if (!mm)
		return 0;
	char *regs = (char *)bpf_task_pt_regs(bpf_get_current_task_btf());
	bpf_probe_read_kernel(&w->r.ip, 8, regs + STP_PT_IP);
	bpf_probe_read_kernel(&w->r.sp, 8, regs + STP_PT_SP);
	bpf_probe_read_kernel(&w->r.bp, 8, regs + STP_PT_BP);
	w->n = 0;
	w->depth = depth;
	w->exact = 1;
	struct stp_unwind_ctx x = {w, stp_umaps_of(umaps, mm), rows, files};
	bpf_loop(depth, stp_unwind_frame, &x, 0);
	return w->n;
}

/* Stack storage (stacks.c). */
long stp_stack_store(__u64 *buf, long depth, void *ids, void *frames, void *counts, long max_ids);

/* The id of this thread's user stack in the stack storage (as
 * stp_stack_id with BPF_F_USER_STACK), unwound with the loaded tables;
 * the kernel's frame-pointer walk when the loader loaded none.  buf is a
 * scratch slot of STP_UNWIND_SLOT bytes; depth at most
 * STP_UNWIND_MAX_FRAMES. */
STP_INLINE long stp_ustack_id(void *ctx, __u64 *buf, long depth, void *ids, void *frames,
			      void *counts, long max_ids, void *rows, void *files, void *umaps)
{
	__u32 header = 0;
	__u64 *loaded = bpf_map_lookup_elem(rows, &header);
	long n;
	if (loaded && stap_row_start(*loaded))
		n = stp_ustack_unwind((struct stp_unwind_work *)buf, depth, rows, files, umaps);
	else
		n = bpf_get_stack(ctx, buf, depth * 8, BPF_F_USER_STACK);
	if (n <= 0)
		return -1;
	return stp_stack_store(buf, depth, ids, frames, counts, max_ids);
}
