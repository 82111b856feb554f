/* Workload for process_running: a process with THREADS threads (its main
 * thread among them) that all sleep SECONDS, printing "ready" once every
 * thread runs, for a script started after it.
 *   threads_sleep THREADS SECONDS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned seconds;

static void* run(void* unused) {
  (void)unused;
  sleep(seconds);
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 30;
  pthread_t t[64];
  if (threads > 64) threads = 64;
  for (int i = 1; i < threads; i++) pthread_create(&t[i], NULL, run, NULL);
  printf("ready\n");
  fflush(stdout);
  sleep(seconds);
  return 0;
}
