/* Workload for the syscall tapset's live cases: a fixed sequence of
 * system calls, each made directly (syscall(2)) so libc cannot change
 * which call the kernel sees.  Prints nothing.
 *   syscall_calls FILE
 * The sequence starts with a marker, openat of a missing file (ENOENT),
 * so a script can ignore what the dynamic loader did before:
 *   openat(AT_FDCWD, "/nonexistent/stap-syscall-marker", O_RDONLY) = ENOENT
 *   openat(AT_FDCWD, FILE, O_RDONLY) = 3; read(3, buf, 64); close(3)
 *   openat(AT_FDCWD, "/dev/null", O_WRONLY|O_APPEND) = 3;
 *   write(3, "hello, world\n", 13); close(3)
 *   futex(&word, FUTEX_WAKE_PRIVATE, 1) = 0
 *   futex(&word, FUTEX_WAIT, 1, {0, 1000}) = EAGAIN (word is 0)
 *   clock_nanosleep(CLOCK_MONOTONIC, 0, {0, 1000000}, NULL) = 0
 *   close(-42) = EBADF */
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char buf[64];
  static uint32_t word;
  struct timespec wait = {0, 1000}, nap = {0, 1000000};
  syscall(SYS_openat, AT_FDCWD, "/nonexistent/stap-syscall-marker", O_RDONLY);
  long fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY);
  if (fd < 0) return 1;
  syscall(SYS_read, fd, buf, sizeof buf);
  syscall(SYS_close, fd);
  fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY | O_APPEND);
  syscall(SYS_write, fd, "hello, world\n", 13);
  syscall(SYS_close, fd);
  syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  syscall(SYS_futex, &word, FUTEX_WAIT, 1, &wait, NULL, 0);
  syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &nap, NULL);
  syscall(SYS_close, -42);
  return 0;
}
