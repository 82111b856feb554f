#!/usr/bin/env bash
# The tracer's own cost for a stack-keyed profile at the same rate:
#   stap -e 'probe timer.profile.freq.hz(99) { s[backtrace()] <<< 1 }'
#   bpftrace -e 'profile:hz:99 { @[kstack] = count(); }'
# for SECONDS each while a busy loop runs on every CPU.  Prints the
# tracer process's CPU time (user+sys, from /proc/PID/stat, start-up and
# compilation included) and the busy loop's throughput against a run
# without a tracer (the kernel-side cost of the samples lands there).
# Usage: bench_profile.sh STAP [SECONDS]
set -uo pipefail
stap=${1:?usage: bench_profile.sh STAP [SECONDS]}
secs=${2:-10}
ncpu=$(nproc)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/spin.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char** argv) {
  double secs = atof(argv[1]); struct timespec a, b; unsigned long n = 0;
  volatile unsigned long x = 0;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do { for (int i = 0; i < 100000; ++i) x += i; ++n; clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
  printf("%lu\n", n);
  return 0;
}
C
cc -O1 -o "$tmp/spin" "$tmp/spin.c" || exit 1

# Sum of the spinners' iterations over SECONDS.
spin_all() {
  local pids=() total=0
  for _ in $(seq "$ncpu"); do "$tmp/spin" "$secs" > "$tmp/spin.$_.out" & pids+=($!); done
  wait "${pids[@]}"
  for f in "$tmp"/spin.*.out; do total=$((total + $(cat "$f"))); done
  echo "$total"
}

# CPU seconds (user+sys) of a process and its reaped children so far.
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14+$15+$16+$17)/hz}' "/proc/$1/stat"; }

# Runs a tracer command in the background during a spin; prints
# "tracer_cpu_s iterations".
with_tracer() {
  "$@" > "$tmp/tracer.out" 2>&1 &
  local pid=$! cpu
  sleep 3  # compiled and attached
  local it; it=$(spin_all)
  cpu=$(cpu_of "$pid")
  kill -INT "$pid"; wait "$pid" 2>/dev/null
  echo "$cpu $it"
}

base=$(spin_all)
read -r stap_cpu stap_it < <(with_tracer "$stap" -e 'global s; probe timer.profile.freq.hz(99) { s[backtrace()] <<< 1 } probe end { foreach (k in s- limit 1) printf("%d\n", @count(s[k])) }')
if command -v bpftrace >/dev/null; then
  read -r bt_cpu bt_it < <(with_tracer bpftrace -e 'profile:hz:99 { @[kstack] = count(); } END { clear(@); }')
else
  bt_cpu=- bt_it=0
fi
pct() { [ "$1" -gt 0 ] && awk -v a="$1" -v b="$base" 'BEGIN {printf "%.1f%%", (b - a) * 100 / b}' || echo -; }
printf "%-34s %14s %16s %12s\n" "profile at 99 Hz, ${secs}s, $ncpu CPUs" "tracer CPU s" "busy iterations" "slowdown"
printf "%-34s %14s %16s %12s\n" "no tracer" "-" "$base" "-"
printf "%-34s %14s %16s %12s\n" "stap timer.profile s[backtrace()]" "$stap_cpu" "$stap_it" "$(pct "$stap_it")"
printf "%-34s %14s %16s %12s\n" "bpftrace @[kstack] = count()" "$bt_cpu" "$bt_it" "$(pct "$bt_it")"
