#!/usr/bin/env bash
# The whole test suite, as CI runs it: dependencies, build, then every test
# (Catch2 unit tests and the golden tests of passes 1-2) through ctest,
# which ends with its summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure
