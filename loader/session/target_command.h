// The -c CMD child: forked early so that target() is its pid from the
// first begin probe on, held at a gate until every probe is attached, then
// exec'd as stap execs it (directly when it is plain words, through sh -c
// when it uses shell syntax).  Its exit ends the session.
#pragma once

#include <sys/types.h>

#include <string>

namespace stap {

class TargetCommand {
 public:
  TargetCommand() = default;
  ~TargetCommand();  // kills a child never released; a released one runs on
  TargetCommand(const TargetCommand&) = delete;
  TargetCommand& operator=(const TargetCommand&) = delete;

  // Forks the child, which waits at the gate.  False with `error` set.
  // null_stdin: the script reads standard input (input.char), so the
  // command reads /dev/null, as staprun gives it.
  bool start(const std::string& command, bool null_stdin, std::string& error);
  // Lets the child exec the command.
  void release();
  // Kills the child (released or not) and reaps it: startup failed.
  void abort();

  pid_t pid() const { return pid_; }
  // Readable when the child has exited (pidfd_open); -1 before start().
  int exit_fd() const { return pidfd_; }
  // Reaps an exited child; true once it has been reaped.
  bool reap();

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int gate_ = -1;  // write end of the gate pipe
  bool reaped_ = false;
  bool released_ = false;
};

}  // namespace stap
