#!/usr/bin/env bash
# Replays the fuzz corpus through the normal build: every input must end
# with exit 0 or 1 (a result or diagnostics), never a signal or a hang.
# The sanitizer run itself is the fuzzer's (README: "Fuzzing passes 1-2").
set -uo pipefail
stap=$1
corpus=$(cd "$(dirname "$0")/corpus" && pwd)
results=$(find "$corpus" -type f -print0 |
  xargs -0 -P "$(nproc)" -I{} sh -c '
    timeout 10 "$0" -p2 -u "$1" a1 a2 >/dev/null 2>&1
    rc=$?
    if [ $rc -le 1 ]; then echo ok; else echo "bad $rc $1"; fi' "$stap" {})
passed=$(grep -c '^ok' <<< "$results")
failed=$(grep -c '^bad' <<< "$results")
grep '^bad' <<< "$results" | head -20 | sed 's/^bad \([0-9]*\) /FAIL (exit \1): /'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
