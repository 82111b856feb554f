// libdisample.so: a shared library with a function and a USDT mark without
// a semaphore.
#include <sys/sdt.h>

#include "sample_lib.h"

__attribute__((noinline)) long sample_lib_twice(long value) {
  long doubled = value * 2;
  STAP_PROBE2(samplelib, twice, value, doubled);
  return doubled;
}
