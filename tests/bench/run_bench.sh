#!/usr/bin/env bash
# Passes 1-2 of this engine beside real SystemTap's on the same generated
# script, in one run.  Usage: tests/bench/run_bench.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
script=$(mktemp --suffix=.stp)
trap 'rm -f "$script"' EXIT
"$build/tests/bench_frontend" --write "$script" --runs 20
start=$(date +%s%N)
"$build/stap" -p2 "$script" >/dev/null
end=$(date +%s%N)
echo "this stap -p2 on the same script: $(( (end - start) / 1000000 )) ms (one run, whole process)"
if command -v stap >/dev/null && [ "$(command -v stap)" != "$(realpath "$build/stap")" ] &&
   stap -V 2>&1 | grep -q 'Red Hat'; then
  # Real stap needs a kernel build tree even for -p2; a stand-in is enough.
  kb=$(mktemp -d)
  mkdir -p "$kb/include/config" "$kb/include/generated"
  uname -r > "$kb/include/config/kernel.release"
  zcat /proc/config.gz > "$kb/.config" 2>/dev/null || true
  touch "$kb/Module.symvers"
  start=$(date +%s%N)
  stap -r "$kb" -p2 "$script" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo "SystemTap $(stap -V 2>&1 | head -1 | sed 's/.*(version \([^/]*\)\/.*/\1/') -p2 on the same script: $(( (end - start) / 1000000 )) ms (one run, whole process)"
  rm -rf "$kb"
else
  echo "SystemTap is not installed: no side-by-side figure"
fi
