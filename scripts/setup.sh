#!/usr/bin/env bash
# One command from a fresh Debian 12 machine (as root): install what is
# missing, build, and trace this machine for a few seconds with a stap
# script (the system calls of the next 3 seconds, by process), so the last
# lines are real counts from the live kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: built; tracing needs root: sudo build/stap examples/top_syscalls.stp 3" >&2
  exit 0
fi
echo "== build/stap examples/top_syscalls.stp 3    (traces this machine for 3 seconds)"
build/stap examples/top_syscalls.stp 3
