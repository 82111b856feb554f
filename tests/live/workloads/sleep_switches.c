/* Workload for perf_process's context-switch check, light enough for the
 * test guest (python3 took seconds to start there): sleeps COUNT times
 * for MS milliseconds, each sleep a voluntary switch, then prints
 * "proc WINDOW TOTAL": the switches the kernel counted for it in
 * /proc/self/status (voluntary and involuntary) between a read before the
 * sleeps and one after, and all of them since its fork.  Both reads come
 * after its exec, so every switch of the WINDOW happened while a per-task
 * event opened before the exec was counting; TOTAL also has those before
 * (the wait for stap to be ready, preemptions on the way, the exec and
 * the dynamic loader: many on a loaded machine), which the event may or
 * may not have seen.
 *   sleep_switches COUNT MS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long switches_so_far(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) {
    perror("/proc/self/status");
    exit(1);
  }
  char line[256];
  long total = 0;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "ctxt_switches:")) total += atol(strchr(line, ':') + 1);
  fclose(f);
  return total;
}

int main(int argc, char** argv) {
  long count = argc > 1 ? atol(argv[1]) : 100;
  long ms = argc > 2 ? atol(argv[2]) : 2;
  struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
  long before = switches_so_far();
  for (long i = 0; i < count; i++) nanosleep(&pause, NULL);
  long total = switches_so_far();
  printf("proc %ld %ld\n", total - before, total);
  return 0;
}
