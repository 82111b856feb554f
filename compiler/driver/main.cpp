// The stap command.
#include <iostream>

#include "driver/options.h"
#include "driver/session.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  stap::ParsedCommandLine cmd = stap::parse_command_line(argc, argv);
  switch (cmd.outcome) {
    case stap::ParseOutcome::exit_ok: return 0;
    case stap::ParseOutcome::exit_error: return 1;
    case stap::ParseOutcome::run: break;
  }
  int rc = stap::run_session(cmd.options, std::cout, std::cerr);
  std::cout.flush();
  return rc;
}
