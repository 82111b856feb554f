// A known call chain through code without frame pointers, for the user
// stack unwinder's live cases (tests/live/cases/ustack_cfi*.sh): built
// -O2 -fomit-frame-pointer (tests/CMakeLists.txt), and the chain goes
// through libc (Debian's keeps no frame pointers either):
//   main -> chain_a -> chain_b -> chain_c -> qsort -> (libc) -> chain_cmp
//        -> chain_leaf
// noipa keeps every function whole and named (no inlining, cloning or
// tail calls into it); the sink updates after each call keep the calls
// from being tail calls, which would leave no frame of the caller.
// Usage: unwind_chain probe N     calls the chain N times (uprobe cases)
//                                  and lives 0.3 s more
//        unwind_chain burn SECONDS  spins in chain_leaf (profile cases)
//        unwind_chain clock SECONDS chain_leaf spins on clock_gettime (the vDSO)
//        unwind_chain signal N    as probe, chain_c raising SIGUSR1 instead:
//                                 ... -> chain_c -> raise -> (signal frame)
//                                 -> chain_signal -> chain_leaf
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;
static double deadline;
static int burning, clocking, signalling;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

// The probed (or sampled) leaf: spills registers and moves rsp, so its
// CFA rule differs from its caller's.
__attribute__((noipa)) int chain_leaf(int a, int b) {
  volatile int scratch[64];
  for (int i = 0; i < 64; ++i) scratch[i] = a * i + b;
  if (burning)
    for (unsigned long i = 0; i < 300000; ++i) sink += i * (unsigned long)scratch[i & 63];
  if (clocking)  // clock_gettime runs in the vDSO
    for (int i = 0; i < 20000; ++i) sink += (unsigned long)now();
  sink++;
  return a - b;
}

__attribute__((noipa)) int chain_cmp(const void* x, const void* y) {
  int r = chain_leaf(*(const int*)x, *(const int*)y);
  sink++;
  return r;
}

// The SIGUSR1 handler: the leaf is reached through the kernel's signal
// frame and glibc's __restore_rt.
__attribute__((noipa)) void chain_signal(int sig) {
  chain_leaf(sig, 1);
  sink++;
}

__attribute__((noipa)) void chain_c(int n) {
  int values[4] = {n, 3, 1, 2};
  if (signalling)
    raise(SIGUSR1);
  else
    qsort(values, 4, sizeof values[0], chain_cmp);
  sink += (unsigned long)values[0];
}

__attribute__((noipa)) void chain_b(int n) {
  chain_c(n + 1);
  sink++;
}

__attribute__((noipa)) void chain_a(int n) {
  chain_b(n * 2);
  sink++;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  if (strcmp(argv[1], "burn") == 0 || strcmp(argv[1], "clock") == 0) {
    burning = argv[1][0] == 'b';
    clocking = !burning;
    deadline = now() + atof(argv[2]);
    while (now() < deadline) chain_a(4);
  } else {
    signalling = strcmp(argv[1], "signal") == 0;
    signal(SIGUSR1, chain_signal);
    for (int i = atoi(argv[2]); i > 0; --i) chain_a(i);
    // Alive a little longer: the runtime reads a process's mappings when
    // its first stack arrives, to name the frames after it exits.
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, 0);
  }
  return (int)(sink & 0);
}
