/* Workload for live tests and benchmarks: THREADS threads each make CALLS
 * getpid system calls (through syscall(2), so no libc caching can skip
 * the kernel), then the process exits.  Prints nothing.
 *   getpid_loop CALLS [THREADS]
 * A first argument of "wait" sleeps until stdin closes before starting,
 * so a tracer can be attached first: getpid_loop wait CALLS [THREADS].
 * With GETPID_LOOP_STAMP=FILE in the environment, the CLOCK_REALTIME
 * nanosecond at which the calls start is written to FILE (benchmarks
 * time the tracer's delivery from there). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long calls;

static void* run(void* unused) {
  (void)unused;
  for (long i = 0; i < calls; i++) syscall(SYS_getpid);
  return NULL;
}

int main(int argc, char** argv) {
  int arg = 1;
  if (argc > 1 && strcmp(argv[1], "wait") == 0) {
    char buf[64];
    while (read(0, buf, sizeof buf) > 0) {
    }
    arg = 2;
  }
  if (argc <= arg) {
    fprintf(stderr, "usage: getpid_loop [wait] CALLS [THREADS]\n");
    return 2;
  }
  calls = atol(argv[arg]);
  int threads = argc > arg + 1 ? atoi(argv[arg + 1]) : 1;
  if (threads < 1 || threads > 256) threads = 1;
  const char* stamp = getenv("GETPID_LOOP_STAMP");
  if (stamp) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    FILE* f = fopen(stamp, "w");
    if (f) {
      fprintf(f, "%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
      fclose(f);
    }
  }
  pthread_t ids[256];
  for (int t = 1; t < threads; t++) pthread_create(&ids[t], NULL, run, NULL);
  run(NULL);
  for (int t = 1; t < threads; t++) pthread_join(ids[t], NULL);
  return 0;
}
