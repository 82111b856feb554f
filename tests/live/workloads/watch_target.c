/* Workload for the watchpoint cases, built without PIE so that its
 * variables sit at the same address in every run (the -c child is
 * watched before its exec, when only a fixed address can be named):
 *   watch_target addr             prints the address of `counter`
 *   watch_target WRITES READS     stores to `counter` WRITES times, loads
 *                                 it READS times, stores to bytes[0] 100
 *                                 times, to bytes[1] 10 times and to
 *                                 bytes[3] 5 times, then
 *                                 prints "done" (one store or load per
 *                                 iteration: the variables are volatile)
 *   watch_target selftest         counts its own 10 stores to `counter`
 *                                 with a perf breakpoint: exit 0 when the
 *                                 machine's debug registers fire (some
 *                                 hypervisors accept them and never trap) */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Initialised, so in .data: a .bss variable sharing a page with .data is
 * zeroed by the kernel during the exec, which is 8 more stores. */
volatile long counter = 1;
volatile unsigned char bytes[8] __attribute__((aligned(8))) = {1};

static int selftest(void) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.size = sizeof attr;
  attr.bp_type = HW_BREAKPOINT_W;
  attr.bp_addr = (uintptr_t)&counter;
  attr.bp_len = HW_BREAKPOINT_LEN_8;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    perror("a perf breakpoint on this process");
    return 1;
  }
  for (int i = 0; i < 10; i++) counter = i;
  long long hits = 0;
  if (read(fd, &hits, sizeof hits) != sizeof hits) hits = -1;
  close(fd);
  printf("a perf breakpoint counted %lld of 10 stores\n", hits);
  return hits == 10 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "selftest") == 0) return selftest();
  if (argc > 1 && strcmp(argv[1], "addr") == 0) {
    printf("%p %p\n", (void*)&counter, (void*)bytes);
    return 0;
  }
  long writes = argc > 1 ? atol(argv[1]) : 1000;
  long reads = argc > 2 ? atol(argv[2]) : 0;
  long sum = 0;
  for (long i = 0; i < writes; i++) counter = i;
  for (long i = 0; i < reads; i++) sum += counter;
  for (int i = 0; i < 100; i++) bytes[0] = (unsigned char)i;
  for (int i = 0; i < 10; i++) bytes[1] = (unsigned char)i;
  for (int i = 0; i < 5; i++) bytes[3] = (unsigned char)i;
  printf("done %ld\n", sum > 0 ? 1L : 0L);
  return 0;
}
