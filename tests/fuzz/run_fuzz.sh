#!/usr/bin/env bash
# Fuzzes passes 1-2 for SECONDS (default 3600) with libFuzzer under ASan and
# UBSan, from a copy of tests/fuzz/corpus, and prints the counts: inputs
# run, crashes, timeouts, out-of-memory.  Each crash, timeout or OOM input
# is kept under the work directory printed (libFuzzer's fork mode goes on
# after one, so an hour's run counts them all).  Exit 1 on any crash.
#   tests/fuzz/run_fuzz.sh [BUILD_DIR (default build-fuzz)] [SECONDS]
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-fuzz}
seconds=${2:-3600}
if [ ! -x "$build/tests/fuzz_frontend" ]; then
  cmake -S "$src" -B "$build" -G Ninja -DSTAP_FUZZ=ON -DCMAKE_C_COMPILER=clang-19 \
    -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null && ninja -C "$build" fuzz_frontend || exit 1
fi
work=$(mktemp -d /tmp/stap-fuzz.XXXXXX)
mkdir "$work/corpus" "$work/found"
cp "$src"/tests/fuzz/corpus/* "$work/corpus/"
echo "fuzz: $seconds s from $(ls "$work/corpus" | wc -l) inputs; work directory $work"
"$build/tests/fuzz_frontend" "$work/corpus" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
  -ignore_ooms=1 -timeout=10 -max_total_time="$seconds" -artifact_prefix="$work/found/" \
  >"$work/log" 2>&1
last=$(grep -a 'oom/timeout/crash:' "$work/log" | tail -1)
echo "fuzz: last status: ${last:-none (no job finished)}"
[[ $last =~ ^#([0-9]+):.*oom/timeout/crash:\ ([0-9]+)/([0-9]+)/([0-9]+) ]] ||
  { echo "fuzz: no status line: see $work/log"; exit 1; }
echo "fuzz: ${BASH_REMATCH[1]} inputs run; crashes ${BASH_REMATCH[4]}, timeouts ${BASH_REMATCH[3]}, out of memory ${BASH_REMATCH[2]}"
ls "$work/found" | sed 's/^/fuzz: kept /'
[ "${BASH_REMATCH[4]}" -eq 0 ]
