// system(cmd): the command a probe asked for, run as staprun runs it:
// `sh -c cmd` in the background, detached (a middle child forks it and
// exits at once, so it is never waited for and leaves no zombie), with
// stap's standard streams and no other descriptor of the session.
#pragma once

#include <string>

namespace stap {

// Starts the command and returns once it is on its way; false with
// `error` set when it could not be forked.
bool run_system_command(const std::string& command, std::string& error);

}  // namespace stap
