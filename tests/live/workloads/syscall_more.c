/* Workload for the syscall tapset's decoder cases: calls whose arguments
 * need decoding (flags, signal sets, socket addresses, argv lists), each
 * made directly (syscall(2)) with fixed arguments.  Prints nothing.
 * Starts with the marker openat of a missing file, as syscall_calls.c,
 * and ends by executing /bin/true with a fixed argv and environment. */
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The kernel's struct sigaction on x86_64 (not glibc's). */
struct kernel_sigaction {
  unsigned long handler, flags, restorer, mask;
};

int main(void) {
  int fds[2] = {-1, -1};
  syscall(SYS_openat, AT_FDCWD, "/nonexistent/stap-syscall-marker", O_RDONLY);
  syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK);
  syscall(SYS_dup3, fds[0], 10, O_CLOEXEC);
  syscall(SYS_fcntl, 10, F_GETFL, 0);
  syscall(SYS_fcntl, 10, F_DUPFD_CLOEXEC, 20);
  struct kernel_sigaction act = {(unsigned long)SIG_IGN, 0, 0, 0};
  syscall(SYS_rt_sigaction, SIGUSR1, &act, NULL, 8);
  unsigned long set = (1UL << (SIGUSR1 - 1)) | (1UL << (SIGTERM - 1));
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8);
  syscall(SYS_wait4, -1, NULL, WNOHANG | __WALL, NULL);
  long s = syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
  struct sockaddr_in to;
  memset(&to, 0, sizeof to);
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  syscall(SYS_sendto, s, "hi", 2, MSG_DONTWAIT, &to, sizeof to);
  syscall(SYS_shutdown, s, SHUT_RDWR);
  char* argv[] = {"true", "x", NULL};
  char* envp[] = {"A=1", NULL};
  syscall(SYS_execve, "/bin/true", argv, envp);
  return 1;
}
