#include "loader/session/system_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stap {

bool run_system_command(const std::string& command, std::string& error) {
  const char* cmd = command.c_str();  // before fork: the child only execs
  pid_t middle = fork();
  if (middle < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (middle == 0) {
    // The session blocks its stop signals to read them from a signalfd;
    // the command takes them as any process does.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    closefrom(3);  // the ring buffer, maps, links, -o file stay the session's
    pid_t command_pid = fork();
    if (command_pid != 0) _exit(command_pid < 0 ? 1 : 0);
    execl("/bin/sh", "sh", "-c", cmd, static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error = "fork failed for the command";
    return false;
  }
  return true;
}

}  // namespace stap
