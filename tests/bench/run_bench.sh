#!/usr/bin/env bash
# Passes 1-2 of this engine beside real SystemTap's on the same generated
# script, in one run.  Usage: tests/bench/run_bench.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
script=$(mktemp --suffix=.stp)
trap 'rm -f "$script"' EXIT
"$build/tests/bench_frontend" --write "$script" --runs 20
# The fuzz corpus's slowest inputs and the three that once took 14-20 s
# (issue 15: an error in a recursive macro said at every level), through
# the whole stap process, -p2 -u as the corpus test runs them.
corpus=$(dirname "$0")/../fuzz/corpus
time_ms() {
  local start; start=$(date +%s%N)
  "$build/stap" -p2 -u "$1" a1 a2 >/dev/null 2>&1 || true
  echo $(( ($(date +%s%N) - start) / 1000000 ))
}
slowest=$(for f in "$corpus"/*; do echo "$(time_ms "$f") $f"; done | sort -nr | awk "NR <= 3" | cut -d' ' -f2)
for f in $slowest "$corpus"/2ae23c5358669b6f21219ee60c8d77fc8f36260a \
         "$corpus"/9ce47e223ee718eec3bfaa762db948ac06906202 \
         "$corpus"/70e2fc59d519ebd56a8f1ad30f9e56f805bcf4f5; do
  ms=$(time_ms "$f")
  bytes=$(stat -c %s "$f")
  awk -v ms="$ms" -v b="$bytes" -v f="$(basename "$f")" \
    'BEGIN { printf "corpus input %.12s (%d bytes): %d ms, %.1f ms per KB (whole process)\n", f, b, ms, ms / (b / 1024) }'
done
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
