#include "loader/session/target_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace stap {

namespace {

// In the child: split the command as stap does (wordexp, no command
// substitution) and exec it directly, so that target() is the command's
// own pid; a command with shell syntax (| ; & < > ...) goes through
// sh -c instead.  Then wait for the parent's go byte; EOF (the parent gave
// up or died) means never exec.
[[noreturn]] void run_child(int gate, const std::string& command) {
  // The parent blocks its stop signals to read them from a signalfd; the
  // command must get them as usual.
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  wordexp_t words{};
  int rc = wordexp(command.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF);
  bool use_shell = rc == WRDE_BADCHAR;
  if (rc == WRDE_SYNTAX) {
    std::fprintf(stderr, "ERROR: wordexp: syntax error (unmatched quotes?) in -c COMMAND\n");
    _exit(1);
  }
  if (rc != 0 && !use_shell) {
    std::fprintf(stderr, "ERROR: wordexp: parsing error (%d)\n", rc);
    _exit(1);
  }
  if (!use_shell && words.we_wordc < 1) {
    std::fprintf(stderr, "ERROR: empty -c COMMAND\n");
    _exit(1);
  }
  char go = 0;
  ssize_t n;
  do n = read(gate, &go, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1) _exit(127);
  closefrom(3);
  if (use_shell) execlp("sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
  else execvp(words.we_wordv[0], words.we_wordv);
  std::fprintf(stderr, "%s: %s\n", command.c_str(), std::strerror(errno));
  _exit(1);
}

}  // namespace

// A released command that still runs is left to run, as stap leaves it
// when the script ends for another reason; one never released is killed.
TargetCommand::~TargetCommand() {
  if (gate_ >= 0 || !released_) {
    abort();
    return;
  }
  reap();
  if (pidfd_ >= 0) close(pidfd_);
}

bool TargetCommand::start(const std::string& command, bool null_stdin, std::string& error) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot fork: ") + std::strerror(errno);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return false;
  }
  if (pid == 0) {
    close(pipe_fds[1]);
    if (null_stdin) {
      int null_fd = open("/dev/null", O_RDONLY);
      if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    }
    run_child(pipe_fds[0], command);
  }
  close(pipe_fds[0]);
  pid_ = pid;
  gate_ = pipe_fds[1];
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd_ < 0) {
    error = std::string("cannot watch the command (pidfd_open): ") + std::strerror(errno);
    abort();
    return false;
  }
  return true;
}

void TargetCommand::release() {
  if (gate_ < 0) return;
  char go = 1;
  ssize_t n;
  do n = write(gate_, &go, 1);
  while (n < 0 && errno == EINTR);
  close(gate_);
  gate_ = -1;
  released_ = true;
}

void TargetCommand::abort() {
  if (gate_ >= 0) {
    close(gate_);  // the child sees EOF and exits without running anything
    gate_ = -1;
  }
  if (pid_ > 0 && !reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    reaped_ = true;
  }
  if (pidfd_ >= 0) {
    close(pidfd_);
    pidfd_ = -1;
  }
}

bool TargetCommand::reap() {
  if (pid_ <= 0 || reaped_) return reaped_;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) reaped_ = true;
  return reaped_;
}

}  // namespace stap
