/* The contract between the BPF side and the runtime: map names, the
 * header of the globals map, statistic values and ring-buffer records.
 * Included by the C files of bpf_runtime/ (BPF), compiler/codegen (which emits the maps)
 * and loader/ (which reads them).  Plain C, fixed-width types only.
 */
#ifndef STAP_LAYOUT_H
#define STAP_LAYOUT_H

#include <linux/types.h>

/* Maps every object has (ELF symbol names; libbpf finds them by these). */
#define STAP_GLOBALS_MAP "stap_globals" /* ARRAY, 1 entry, BPF_F_MMAPABLE:
                                           header + long/string scalars */
#define STAP_EVENTS_MAP "stap_events"   /* RINGBUF: records below */
#define STAP_TIMING_MAP "stap_timing"   /* PERCPU_ARRAY, one struct stap_stat per
                                        * probe (index): the run times in ns of
                                        * its hits, kept only under stap -t */
#define STAP_SCRATCH_MAP "stap_scratch" /* PERCPU_ARRAY, 1 entry: string
                                           temporaries and key buffers */
/* Arrays and statistics are maps of their own: "stap_g<N>" for global N
 * (HASH, LRU_HASH for a wrapping array, PERCPU_HASH for statistic arrays,
 * PERCPU_ARRAY of one entry for a scalar statistic). */
#define STAP_GLOBAL_MAP_PREFIX "stap_g"

/* A __u32 in .rodata: how many CPUs the BPF side merges per-CPU
 * statistics over (the loops stop early at the first CPU without a slot).
 * The compiler writes the compiling machine's possible-CPU count; a loader
 * may set it to libbpf_num_possible_cpus() before load.  Being read-only
 * data, the verifier sees it as a constant. */
#define STAP_NR_CPUS_VAR "stap_nr_cpus"

/* A kernel.function probe's program variants (compiler/codegen/emit_kfunc.cpp):
 * Probe::program_name is the kprobe one; these suffixes name the
 * fentry/fexit one (one function) and the kprobe.multi one (many). */
#define STAP_KFUNC_FENTRY_SUFFIX "_fentry"
#define STAP_KFUNC_MULTI_SUFFIX "_multi"

/* Session states, in stap_globals_header.state.  Kernel-context probes run
 * their bodies only while RUNNING (stap runs begin probes before any other
 * probe fires, and none after end probes start). */
#define STAP_STATE_STARTING 0
#define STAP_STATE_RUNNING 1
#define STAP_STATE_STOPPING 2

#define STAP_TZ_NAME_LEN 64
struct stap_globals_header {
  __u64 state;
  __u64 lost_records;      /* ring-buffer reservations that failed */
  __u64 errors;            /* runtime errors raised in kernel context */
  __u64 skipped;           /* probe bodies not run (e.g. nested on a CPU) */
  __s64 target_pid;        /* target(): -c child or -x PID, else 0 */
  __s64 realtime_offset_ns;/* CLOCK_REALTIME - bpf_ktime_get_ns() at start */
  __u64 exit_requested;    /* exit() called in kernel context */
  __u64 last_wakeup_ns;    /* when a printf record last woke the runtime */
  __s64 runtime_pid;       /* stp_pid(): the runtime's own process */
  __u64 deferred_runs;     /* entry bodies run again at the call's exit
                              (a user read faulted: STAP_DEFERRED_MAP) */
  __u64 deferred_failed;   /* user reads that faulted where no such run
                              could be kept (the fallback was taken) */
  /* tz_gmtoff(), tz_name(): the local time zone when the session
   * started, as staprun passes it (seconds west of UTC, and its name) */
  __s64 tz_gmtoff;
  char tz_name[STAP_TZ_NAME_LEN];
  __u64 reserved[4];       /* header is 192 bytes; scalars follow */
};

/* A statistic's value: per CPU in the kernel, merged by the runtime.
 * Histogram buckets (HistShape::buckets() of them) follow. */
struct stap_stat {
  __s64 count;
  __s64 sum;
  __s64 min;
  __s64 max;
  __s64 sum_squares;       /* for @variance */
  __s64 buckets[];
};

/* Ring-buffer records: a header, then the payload of the kind. */
enum stap_record_kind {
  /* id = format index; payload = the values the format consumes, in
   * order: a long is 8 bytes, a string is maxstringlen bytes, NUL
   * terminated.  The runtime formats them with loader/printf_output. */
  STAP_REC_PRINTF = 1,
  /* exit() was called; no payload. */
  STAP_REC_EXIT = 2,
  /* a runtime error: id = location index; payload = the message,
   * maxstringlen bytes, NUL terminated. */
  STAP_REC_ERROR = 3,
  /* print(@hist_*(g[keys])): id = global index; payload = the packed key
   * (the global's key_size bytes). */
  STAP_REC_PRINT_HIST = 4,
  /* warn(msg): payload = the message, maxstringlen bytes, NUL terminated;
   * the runtime reports "WARNING: msg" as for a warning of its own. */
  STAP_REC_WARN = 5,
  /* log(msg): payload as STAP_REC_WARN; the runtime writes msg and a
   * newline to the output. */
  STAP_REC_LOG = 6,
  /* abort(): no payload; the session ends without running end probes. */
  STAP_REC_ABORT = 7,
  /* print_backtrace(), print_ubacktrace(), print_stack(s), print_ustack(s)
   * in kernel context (compiler/codegen/emit_stack.cpp): id = STAP_STACK_*
   * flags; payload = a stack code (compiler/ir/key_codes.h) or, with
   * STAP_STACK_TEXT, the process id (8 bytes) then a string of addresses
   * (maxstringlen bytes).  The runtime prints the symbolized frames. */
  STAP_REC_STACK = 8,
  /* system(cmd): payload as STAP_REC_WARN; the runtime starts `sh -c cmd`
   * in the background (loader/session/system_command.h). */
  STAP_REC_SYSTEM = 9,
};
#define STAP_STACK_USER 1u /* user addresses (of the record's process) */
#define STAP_STACK_TEXT 2u /* a string of addresses, not a code */
#define STAP_STACK_PROCESS 4u /* payload = a process (8 bytes) and the id of
                                 a user stack new to it (8 bytes; ids are
                                 below 2^24, STAP_STACK_NO_ID when the stack
                                 was not stored): read its mappings now if
                                 they do not cover that stack's frames */
#define STAP_STACK_NO_ID 0xffffffffu

/* The stacks kernel context captured (bpf_runtime/stacks.c): an ARRAY
 * indexed by the stack id a stack code holds, value MAXBACKTRACE x 8
 * bytes (the frames, innermost first, zeros after the last); a HASH from
 * the frames' 64-bit hash (stack_hash.h) to the id; and a 2-entry ARRAY
 * of __u64: [0] captures lost (no id left, or a different stack with the
 * same hash), [1] the next id to hand out. */
#define STAP_STACKS_MAP "stap_stacks"
#define STAP_STACK_IDS_MAP "stap_stack_ids"
#define STAP_STACKS_LOST_MAP "stap_stacks_lost"
/* HASH of the processes (tgid, 8 bytes) whose user stacks were captured. */
#define STAP_UPIDS_MAP "stap_upids"

/* The kernel code between a traced event and our programs ("glue": the
 * programs themselves, trampolines, bpf_trace_run<N>, __bpf_trace_<event>,
 * perf_trace_<event>, kprobe dispatchers; loader/stack_glue.cpp picks
 * them from /proc/kallsyms by stack_symbols.h's rule).  A kernel stack
 * captured in a program starts in them; stap's, taken in the traced
 * context, does not, so kernel-context stack text (bpf_runtime/ksym_text.c)
 * skips the leading frames found here.  An ARRAY of stap_glue_range:
 * entry 0's start is the number of ranges, entries 1..count are the
 * ranges sorted by start, merged where adjacent; the loader sizes it
 * before load and fills it after attach, before the probes run (a
 * trampoline's symbol appears at attach). */
#define STAP_STACK_GLUE_MAP "stap_stack_glue"
struct stap_glue_range {
  __u64 start; /* first address */
  __u64 end;   /* one past the last */
};

/* A printf argument that is a stack or symbol the runtime names (a stack
 * code, compiler/ir/key_codes.h: probefunc(), usymname(uaddr()),
 * sprint_ubacktrace() ... in kernel context): its string slot holds these
 * 8 bytes, then the code (8 bytes, host order).  Only a script's string
 * equal to these 7 control and letter characters could be mistaken for
 * one. */
#define STAP_CODED_STRING_MARK "\x1e\x1fSTKC\x1f"  /* 7 bytes and the NUL */
#define STAP_CODED_STRING_MARK_SIZE 8
/* usymname(a) or usymdata(a) of any address as a printf argument: this
 * mark (8 bytes), then the function (STAP_CODED_USYMNAME/USYMDATA), the
 * process and the address (8 bytes each); the runtime names the address
 * in that process's mappings. */
#define STAP_CODED_SYMBOL_MARK "\x1e\x1fUSYM\x1f"
#define STAP_CODED_USYMNAME 0
#define STAP_CODED_USYMDATA 1
/* sprint_ustack(s): of a user stack code (ubacktrace(), ucallers(n)),
 * this mark and the code; of any other string, the second mark, the
 * process (8 bytes) and the string in the rest of the slot. */
#define STAP_CODED_USTACK_MARK "\x1e\x1fUSTK\x1f"
#define STAP_CODED_USTACK_TEXT_MARK "\x1e\x1fUSTT\x1f"

struct stap_record {
  __u32 kind;
  __u32 id;
};

/* Entry bodies of system calls that wait for the call's exit
 * (compiler/codegen/emit_deferral.cpp).  A program that cannot sleep
 * cannot fault a page in: a user string the task has not touched yet (a
 * path in a binary's read-only data) fails to read at sys_enter.  The
 * call itself copies it, so at sys_exit it is there.  A body whose user
 * read faults before the body has done anything visible keeps its
 * arguments here and ends; the STAP_DEFERRED_PROG programs, first on the
 * raw sys_exit tracepoint, run it again then, with those arguments.  A
 * TASK_STORAGE map: a task's runs die with it. */
#define STAP_DEFERRED_MAP "stap_deferred"
#define STAP_DEFERRED_PROG "stap_deferred_runs" /* then _1, _2 ... */
#define STAP_DEFERRED_SLOTS 4
#define STAP_DEFERRED_DATA 64
/* A probe has a slot of its own (its rank among the probes that may wait
 * on the same call): the exit's program finds each body's run at a fixed
 * place. */
struct stap_deferred_run {
  __u32 probe; /* 1 + the probe's index; 0 (empty) or STAP_DEFERRED_DONE once run */
  __u32 nr;    /* the system call's number */
  /* SyscallSpec: the number, then the six argument registers; a
   * syscalls:sys_enter_* tracepoint: the first bytes of its record. */
  __u8 data[STAP_DEFERRED_DATA];
};
#define STAP_DEFERRED_DONE 0xffffffffu
struct stap_deferred {
  __u32 count; /* runs kept since the last exit */
  __u32 pad;
  struct stap_deferred_run runs[STAP_DEFERRED_SLOTS];
};

#endif
