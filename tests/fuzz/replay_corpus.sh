#!/usr/bin/env bash
# Replays the fuzz corpus through the normal build: every input must end
# with exit 0 or 1 (a result or diagnostics), never a signal or a hang,
# and within a time budget.  The budget sits far above what any input
# takes (the slowest, about 0.8 s here, reads libc's DWARF and asks dpkg
# twice), so a slow machine passes and a super-linear regression fails
# with its time named, not at a kill limit.  The slowest inputs are always
# printed.  The sanitizer run itself is the fuzzer's (README: "Fuzzing
# passes 1-2").
set -uo pipefail
stap=$1
budget_ms=${STAP_FUZZ_BUDGET_MS:-5000}
corpus=$(cd "$(dirname "$0")/corpus" && pwd)
results=$(find "$corpus" -type f -print0 |
  xargs -0 -P "$(nproc)" -I{} sh -c '
    start=$(date +%s%N)
    timeout 60 "$0" -p2 -u "$1" a1 a2 >/dev/null 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ $rc -gt 1 ]; then echo "bad $ms exit $rc: $1"
    elif [ $ms -gt "$2" ]; then echo "bad $ms over the budget of $2 ms: $1"
    else echo "ok $ms $1"; fi' "$stap" {} "$budget_ms")
passed=$(grep -c '^ok' <<< "$results")
failed=$(grep -c '^bad' <<< "$results")
grep '^bad' <<< "$results" | head -20 | sed 's/^bad \([0-9]*\) /FAIL (\1 ms, /; s/: /): /'
echo "slowest inputs:"
sort -k2,2nr <<< "$results" | head -3 | awk '{printf "  %5d ms  %s\n", $2, $NF}'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
