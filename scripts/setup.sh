#!/usr/bin/env bash
# One command from a fresh Debian 12 machine (as root): install what is
# missing, build, and run a stap script through the passes built so far.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo
echo "== build/stap -p2 examples/syscalls_by_proc.stp"
build/stap -p2 examples/syscalls_by_proc.stp
