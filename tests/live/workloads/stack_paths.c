// Many distinct user stacks with known counts, for the stack storage test
// (tests/live/cases/profile_stacks_many.sh): for every depth d in
// 1..DEPTH and every pattern of d bits, a chain of d calls, level i to
// step_a or step_b as bit i says, ends in one getppid system call; each
// chain runs 1 + (pattern + d) % REPS times (the count varies with the
// chain, so stacks mixed up would show in the counts).  So 2^(DEPTH+1) - 2
// distinct user stacks enter getppid.  Built with frame pointers at -O1
// (tests/CMakeLists.txt), noinline, and with work after every call (no
// tail calls), so every level keeps its frame and its return address.
// Usage: stack_paths DEPTH REPS
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void step_a(int level, unsigned pattern);
__attribute__((noinline)) void step_b(int level, unsigned pattern);

// Calls libc's syscall(), which sets up no frame: the frame walk then
// starts at this function's return address, in the last step.
__attribute__((noinline)) void path_end(void) {
  syscall(SYS_getppid);
  sink++;
}

// Inlined, so a level is one frame: 10 levels and the frames around them
// fit in MAXBACKTRACE (20).
static inline __attribute__((always_inline)) void next(int level, unsigned pattern) {
  if (level == 0)
    path_end();
  else if (pattern & (1u << (level - 1)))
    step_b(level - 1, pattern);
  else
    step_a(level - 1, pattern);
}

__attribute__((noinline)) void step_a(int level, unsigned pattern) {
  next(level, pattern);
  sink += 1;
}

__attribute__((noinline)) void step_b(int level, unsigned pattern) {
  next(level, pattern);
  sink += 2;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: stack_paths DEPTH REPS\n");
    return 2;
  }
  int depth = atoi(argv[1]), reps = atoi(argv[2]);
  if (depth < 1 || depth > 16 || reps < 1) return 2;
  unsigned long chains = 0, calls = 0;
  for (int d = 1; d <= depth; ++d)
    for (unsigned p = 0; p < (1u << d); ++p) {
      int times = 1 + (int)((p + (unsigned)d) % (unsigned)reps);
      for (int r = 0; r < times; ++r) next(d, p);
      chains++;
      calls += (unsigned long)times;
    }
  printf("%lu chains %lu calls\n", chains, calls);
  fflush(stdout);
  // The runtime reads this process's mappings when its first stack
  // arrives; staying a moment lets it do so before the process is gone
  // (else the frames print as bare addresses).
  usleep(300 * 1000);
  return 0;
}
