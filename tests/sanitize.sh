#!/usr/bin/env bash
# The unit, golden, fuzz-corpus and live suites again, on a build with
# AddressSanitizer, LeakSanitizer and UBSan (issue 20): a separate build
# directory configured with -DSTAP_SANITIZE=ON, clang-19 (the compiler of
# the LLVM 19 libraries), built with `nice ninja`.  Too slow for CI's
# time budget: run it by hand (docs/testing.md has the figures).
#
#   tests/sanitize.sh [BUILD_DIR] [LIVE_CASE...]
#
# BUILD_DIR defaults to build-asan (relative to the current directory);
# it is never build/ nor a build without STAP_SANITIZE.  LIVE_CASE names
# (or STAP_SANITIZE_LIVE="case ...") pick live cases, default all.
# Environment:
#   STAP_SANITIZE_SUITES   suites to run (default "unit golden fuzz live")
#   STAP_LIVE_TIMEOUT_SCALE  live case timeouts times this (default 3)
#   STAP_FUZZ_BUDGET_MS    per-input budget of the corpus (default 20000)
#   STAP_SANITIZE_JOBS     ninja -j (default: ninja's own)
#   STAP_SANITIZE_CC, STAP_SANITIZE_CXX  the compilers (default clang-19,
#                          clang++-19; gcc/g++ need their own BUILD_DIR).
#                          The unit tests' debuginfo programs are gcc's
#                          whatever the compiler (their expected DWARF).
#
# Every process of ours writes its sanitizer reports to
# BUILD_DIR/sanitize-logs/SUITE/report.PID (log_path), not to its stderr,
# so the count cannot miss a report a suite swallows (the golden and
# corpus runners keep no stderr; exit status 1 is a normal result there,
# hence exitcode=86).  The summary counts, per suite, the ASan reports,
# UBSan "runtime error:" lines and LeakSanitizer reports, and prints the
# first reports.  Exit 0 only when every suite passes with no report.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-build-asan}")
[ $# -gt 0 ] && shift
live_cases=("$@")
[ ${#live_cases[@]} -eq 0 ] && [ -n "${STAP_SANITIZE_LIVE:-}" ] && read -ra live_cases <<<"$STAP_SANITIZE_LIVE"
suites=${STAP_SANITIZE_SUITES:-unit golden fuzz live}

if [ "$build" = "$src/build" ]; then
  echo "sanitize.sh: $build is the normal build; give another directory" >&2; exit 2
fi
if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^STAP_SANITIZE:BOOL=ON$' "$build/CMakeCache.txt"; then
  echo "sanitize.sh: $build is a build without STAP_SANITIZE; give another directory" >&2; exit 2
fi

ns() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) / 1e9 }'; }

# Configure and build.
t0=$(ns)
cmake -S "$src" -B "$build" -G Ninja -DSTAP_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="${STAP_SANITIZE_CC:-clang-19}" -DCMAKE_CXX_COMPILER="${STAP_SANITIZE_CXX:-clang++-19}" \
  -DSTAP_DEBUGINFO_TEST_CC=gcc -DSTAP_DEBUGINFO_TEST_CXX=g++ >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; echo "sanitize.sh: configure failed" >&2; exit 2; }
rm -f "$build.configure.log"
nice ninja -C "$build" ${STAP_SANITIZE_JOBS:+-j "$STAP_SANITIZE_JOBS"} ||
  { echo "sanitize.sh: build failed" >&2; exit 2; }
build_s=$(secs "$t0" "$(ns)")

logs=$build/sanitize-logs
rm -rf "$logs"; mkdir -p "$logs"

# halt_on_error: the first report ends the process (UBSan too, whose
# checks otherwise recover and go on).  LeakSanitizer checks at exit
# (detect_leaks=1); tests/sanitize.supp lists the leaks that are not ours.
sanitizer_env() {
  local dir=$logs/$1
  mkdir -p "$dir"
  export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:exitcode=86:log_path=$dir/report:strip_path_prefix=$src/"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  export LSAN_OPTIONS="print_suppressions=0"
  [ -f "$src/tests/sanitize.supp" ] && LSAN_OPTIONS+=":suppressions=$src/tests/sanitize.supp"
}

names=() results=() times=() asan=() ubsan=() lsan=()
failed_any=0

# "N passed, N failed" (or Catch2's summary) from the suite's output.
counts() {
  local log=$1 line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  if [ -n "$line" ]; then
    sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$line"; return
  fi
  line=$(grep -E '^All tests passed \(' "$log" | tail -1)
  if [ -n "$line" ]; then
    sed -E 's/.* in ([0-9]+) test cases?\).*/\1 0/' <<<"$line"; return
  fi
  line=$(grep -E '^test cases: ' "$log" | tail -1)
  if [ -n "$line" ]; then
    awk -F'|' '{ p = 0; f = 0
      for (i = 1; i <= NF; i++) { if ($i ~ /passed/) p = $i + 0; if ($i ~ /failed/) f = $i + 0 }
      if (p == 0 && $1 ~ /test cases:/) { split($1, a, ":"); p = a[2] - f }
      print p, f }' <<<"$line"; return
  fi
  echo "? ?"
}

run_suite() {
  local name=$1; shift
  local log=$logs/$name.log t rc n dir=$logs/$name
  echo "== $name: $*"
  sanitizer_env "$name"
  t=$(ns)
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  times+=("$(secs "$t" "$(ns)")")
  names+=("$name")
  read -r p f <<<"$(counts "$log")"
  local a u l
  a=$(cat "$dir"/report.* 2>/dev/null | grep -c 'ERROR: AddressSanitizer')
  u=$(cat "$dir"/report.* 2>/dev/null | grep -c 'runtime error:')
  l=$(cat "$dir"/report.* 2>/dev/null | grep -c 'ERROR: LeakSanitizer')
  asan+=("$a") ubsan+=("$u") lsan+=("$l")
  if [ "$rc" -eq 77 ]; then
    results+=("skipped (exit 77)")
  elif [ "$rc" -ne 0 ]; then
    results+=("$p passed, $f failed (exit $rc)"); failed_any=1
  else
    results+=("$p passed, $f failed")
  fi
  [ $((a + u + l)) -gt 0 ] && failed_any=1
}

for s in $suites; do
  case $s in
    unit) run_suite unit "$build/tests/unit_tests";;
    golden) run_suite golden "$src/tests/golden/run_golden.sh" "$build/stap";;
    fuzz) STAP_FUZZ_BUDGET_MS=${STAP_FUZZ_BUDGET_MS:-20000} \
            run_suite fuzz "$src/tests/fuzz/replay_corpus.sh" "$build/stap";;
    live) STAP_LIVE_TIMEOUT_SCALE=${STAP_LIVE_TIMEOUT_SCALE:-3} \
            run_suite live "$src/tests/live/run_live.sh" "$build/stap" "$build/tests/live" \
            ${live_cases[@]+"${live_cases[@]}"};;
    *) echo "sanitize.sh: unknown suite $s (unit golden fuzz live)" >&2; exit 2;;
  esac
done
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

# The first reports of each suite, in full (the processes' own words).
shown=0
for r in $(ls -tr "$logs"/*/report.* 2>/dev/null); do
  [ $shown -ge 5 ] && { echo "(more reports under $logs)"; break; }
  echo "== sanitizer report $r"; head -60 "$r"; shown=$((shown + 1))
done

echo "== sanitize.sh summary ($build, ${STAP_SANITIZE_CC:-clang-19}, ASan+LSan+UBSan)"
printf '%-8s %-34s %6s %6s %6s %8s\n' suite result asan ubsan lsan "wall s"
printf '%-8s %-34s %6s %6s %6s %8s\n' build "" "" "" "" "$build_s"
for i in "${!names[@]}"; do
  printf '%-8s %-34s %6s %6s %6s %8s\n' "${names[i]}" "${results[i]}" "${asan[i]}" "${ubsan[i]}" \
    "${lsan[i]}" "${times[i]}"
done
[ $failed_any -eq 0 ] && echo "no failure, no sanitizer report" ||
  echo "FAILED: a suite failed or a sanitizer reported (logs: $logs)"
exit $failed_any
