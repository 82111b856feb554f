// A CPU burner with known frames for the profile tests: main calls
// burn_outer for about 2/3 of the time and burn_other for the rest, each
// spinning in a leaf of its own.  Built with frame pointers at -O1
// (tests/CMakeLists.txt), and noinline so every function keeps its frame.
// Usage: burn_cpu SECONDS
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

// GCC sets up no frame in a function that calls nothing, whatever the
// flags, and a sample there would skip its caller: the leaves call this.
__attribute__((noinline)) void burn_touch(void) { sink++; }

__attribute__((noinline)) void burn_leaf_a(void) {
  for (unsigned long i = 0; i < 200000; ++i) sink += i * i;
  burn_touch();
}

__attribute__((noinline)) void burn_leaf_b(void) {
  for (unsigned long i = 0; i < 200000; ++i) sink ^= i + (sink >> 3);
  burn_touch();
}

// The sink updates after the calls keep them from being tail calls, which
// would leave no frame of the caller on the stack.
__attribute__((noinline)) void burn_outer(void) {
  burn_leaf_a();
  burn_leaf_a();
  sink++;
}

__attribute__((noinline)) void burn_other(void) {
  burn_leaf_b();
  sink++;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  double end = now() + seconds;
  while (now() < end) {
    burn_outer();
    burn_other();
  }
  return 0;
}
