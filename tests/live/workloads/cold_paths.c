/* Workload for user reads that fault at a system call's entry: opens
 * paths whose bytes sit on pages the process has never touched, so a BPF
 * program at sys_enter cannot read them (it cannot fault a page in) while
 * the call itself can.
 *   cold_paths DIR N [PATH]
 * writes DIR/cold_names, a file of N pages, page i holding PATH (default
 * /etc/hostname) then "#i" after a NUL; maps each page on its own (a
 * mapping per page: the kernel maps neighbours of a faulting page within
 * one mapping), then opens each page's path, without reading it first,
 * and closes the file.  Prints nothing; exit 1 when an open fails. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const char* path = argc > 3 ? argv[3] : "/etc/hostname";
  int n = atoi(argv[2]);
  long page = sysconf(_SC_PAGESIZE);
  char file[4096];
  snprintf(file, sizeof file, "%s/cold_names", argv[1]);
  int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 2;
  char* buf = calloc(1, (size_t)page);
  for (int i = 0; i < n; ++i) {
    memset(buf, 0, (size_t)page);
    size_t len = strlen(path);
    memcpy(buf, path, len);
    snprintf(buf + len + 1, 16, "#%d", i);
    if (write(fd, buf, (size_t)page) != page) return 2;
  }
  int failures = 0;
  for (int i = 0; i < n; ++i) {
    char* p = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, fd, (off_t)i * page);
    if (p == MAP_FAILED) return 2;
    long f = syscall(SYS_openat, AT_FDCWD, p, O_RDONLY);
    if (f < 0) ++failures;
    else close((int)f);
  }
  close(fd);
  return failures ? 1 : 0;
}
