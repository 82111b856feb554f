/* Workload for process_callee, built with -O2 -g (GCC records call sites
 * in the DWARF of optimized code only): main calls mid 5 times (mid calls
 * leaf twice), other once (other calls leaf once) and leaf once itself;
 * twice is inlined into main and calls leaf there once.  Prints a sum.
 *   callee_chain */
#include <stdio.h>

static volatile int seed = 1;

__attribute__((noinline)) int leaf(int x) { return x * 3 + seed; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) int other(int x) { return leaf(x) - seed; }
static inline __attribute__((always_inline)) int twice(int x) { return 2 * leaf(x); }

int main(void) {
  int s = 0;
  for (int i = 0; i < 5; i++) s += mid(i + seed);
  s += other(seed);
  s += leaf(seed + 7);
  s += twice(seed + 9);
  printf("sum %d\n", s);
  return 0;
}
