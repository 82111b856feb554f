#!/usr/bin/env bash
# Issue 20's soak run: one session for SECONDS (default 600) under a busy
# workload, with a counting script over syscall.*, a kernel-stack profile
# and a printf stream on getpid.  The runtime's resident memory is sampled
# every 10 s; it must stay within 10% of the first sample taken after the
# warm-up (20 s).  What the session counted and every warning it closed
# with (records lost to a full ring buffer, full maps, skipped probes) are
# printed.  A program that prints figures, not a timed test; exit 1 when
# the memory grew more than 10% or the session failed.
#   tests/bench/soak.sh BUILD_DIR [SECONDS]
set -uo pipefail
build=$(realpath "${1:-build}")
seconds=${2:-600}
[ "$(id -u)" -eq 0 ] || { echo "soak: needs root" >&2; exit 1; }
work=$(mktemp -d /tmp/stap-soak.XXXXXX)
workload_pids=()
cleanup() {
  for p in "${workload_pids[@]}"; do kill -- "-$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
export SYSTEMTAP_DIR=$work/cache

cat >"$work/soak.stp" <<'STP'
global calls, stacks%, printed, reports
probe syscall.* { calls[execname(), name] <<< 1 }
# stacks% wraps (the oldest entries go); the busiest are also reported and
# cleared every 10 s, as a long-running profile script does.
probe timer.profile { stacks[execname(), backtrace()]++ }
probe timer.s(10) {
  foreach ([e, b] in stacks- limit 1) reports++
  delete stacks
}
probe syscall.getpid { if (execname() == "getpid_loop") { printed++; printf("getpid %d %s\n", tid(), execname()) } }
probe end {
  n = 0; pairs = 0
  foreach ([e, s] in calls) { n += @count(calls[e, s]); pairs++ }
  samples = 0; kinds = 0
  foreach ([e, b] in stacks) { samples += stacks[e, b]; kinds++ }
  printf("counted %d system calls in %d (execname, call) pairs; %d profile samples in %d stacks since the last of %d reports; %d getpid lines\n",
         n, pairs, samples, kinds, reports, printed)
}
STP
echo "soak: compiling (cached afterwards)"
"$build/stap" -p4 "$work/soak.stp" >/dev/null || { echo "soak: pass 4 failed"; exit 1; }

# The busy workload: processes starting (new execnames and stacks), file
# walks, and getpid calls in two threads, each in its own process group.
busy() { setsid nice -n 10 bash -c "$1" >/dev/null 2>&1 & workload_pids+=($!); }
busy "while :; do find /usr /etc -xdev >/dev/null 2>&1; done"
busy "while :; do for i in \$(seq 50); do /bin/true; sh -c 'echo \$\$' >/dev/null; done; done"
busy "while :; do '$build/tests/live/getpid_loop' 200000 2; sleep 0.2; done"

# The getpid lines go to a pipe that keeps only the end probe's summary.
"$build/stap" "$work/soak.stp" 2>"$work/err" > >(grep -v '^getpid ' >"$work/out.txt") &
stap_pid=$!
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
samples=() anons=() t=0
while [ "$t" -lt "$seconds" ]; do
  sleep 10; t=$((t + 10))
  kill -0 "$stap_pid" 2>/dev/null || { echo "soak: the session ended after ${t} s"; break; }
  read -r rss anon file < <(awk '/^VmRSS:/ {r = $2} /^RssAnon:/ {a = $2} /^RssFile:/ {f = $2}
                                END {print r, a, f}' "/proc/$stap_pid/status")
  samples+=("$rss") anons+=("$anon")
  printf 'soak: %4d s  rss %6.1f MiB (anonymous %6.1f, file %6.1f)\n' "$t" "$(mib "$rss")" \
    "$(mib "$anon")" "$(mib "$file")"
done
kill -INT "$stap_pid" 2>/dev/null
wait "$stap_pid"; status=$?
for p in "${workload_pids[@]}"; do kill -- "-$p" 2>/dev/null; done
workload_pids=()

sleep 1  # the pipe's reader finishes
echo "soak: the session's summary: $(tail -1 "$work/out.txt")"
echo "soak: stap's closing diagnostics:"; sed 's/^/  /' "$work/err"
[ "$status" -eq 0 ] || { echo "soak: stap exited $status"; exit 1; }
[ "${#samples[@]}" -ge 3 ] || { echo "soak: too few samples"; exit 1; }
base=${samples[1]} max=0   # samples[0] is at 10 s, inside the warm-up
for s in "${samples[@]:1}"; do [ "$s" -gt "$max" ] && max=$s; done
last=${samples[-1]}
growth=$(awk -v a="$base" -v b="$max" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
echo "soak: rss after warm-up $(mib "$base") MiB, largest $(mib "$max") MiB, last $(mib "$last") MiB: growth $growth%"
echo "soak: anonymous memory (the heap) after warm-up $(mib "${anons[1]}") MiB, last $(mib "${anons[-1]}") MiB"
if [ $(( (max - base) * 10 > base )) -eq 1 ]; then echo "soak: NOT stable within 10%"; exit 1; fi
echo "soak: stable within 10%"
