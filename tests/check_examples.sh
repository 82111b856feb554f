#!/usr/bin/env bash
# Every script in examples/ gets through passes 1-2 without errors or
# warnings: the examples stay real stap scripts as the engine grows.
set -uo pipefail
stap=$1
examples=$(cd "$(dirname "$0")/../examples" && pwd)
passed=0 failed=0
for f in "$examples"/*.stp; do
  if err=$("$stap" -p2 "$f" 2>&1 >/dev/null) && [ -z "$err" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $f"
    echo "$err"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
