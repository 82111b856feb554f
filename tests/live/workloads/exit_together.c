/* Workload for the process life-event cases: PROCESSES child processes,
 * one after another, each with THREADS threads (its main thread among
 * them) that wait at a barrier and then end together, each with its own
 * exit(2) (not exit_group), so the group's last threads leave at the same
 * moment on different CPUs.  That is the race process.end must survive:
 * two threads both reading signal->live == 0 at sched_process_exit.
 * Prints nothing; exits 0 when every child did.
 *   exit_together PROCESSES THREADS */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int threads, arrived;

static void* run(void* unused) {
  (void)unused;
  // A spinning barrier: the threads that run leave it in the same
  // instant (a blocking one wakes them one after another).
  __atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
  while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < threads) sched_yield();
  syscall(SYS_exit, 0);  // this thread only
  return NULL;
}

static void child(void) {
  pthread_t id;
  for (int t = 1; t < threads; t++)
    if (pthread_create(&id, NULL, run, NULL) != 0) _exit(3);
  run(NULL);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: exit_together PROCESSES THREADS\n");
    return 2;
  }
  int processes = atoi(argv[1]);
  threads = atoi(argv[2]);
  if (processes < 1 || threads < 1 || threads > 64) return 2;
  for (int p = 0; p < processes; p++) {
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) child();
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return 1;
  }
  return 0;
}
