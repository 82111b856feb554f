#!/usr/bin/env bash
# The tracer's own cost for a stack-keyed profile at the same rate:
#   stap -e 'probe timer.profile.freq.hz(99) { s[backtrace()] <<< 1 }'
#   bpftrace -e 'profile:hz:99 { @[kstack] = count(); }'
# for SECONDS each while a busy loop runs on every CPU.  Prints the
# tracer process's CPU time (user+sys, from /proc/PID/stat, start-up and
# compilation included) and the busy loop's throughput against a run
# without a tracer (the kernel-side cost of the samples lands there),
# and the kernel's own timing of the tracer's BPF programs (ns per sample,
# kernel.bpf_stats_enabled), which shows differences the busy loop's noise
# hides.  RATE (default 99) sets the sampling frequency of both.
# Usage: bench_profile.sh STAP [SECONDS]   (root)
set -uo pipefail
stap=${1:?usage: bench_profile.sh STAP [SECONDS]}
secs=${2:-10}
rate=${RATE:-99}
ncpu=$(nproc)
tmp=$(mktemp -d)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats; rm -rf "$tmp"' EXIT
# A fresh cache: the stap run compiles its script as bpftrace does.
export SYSTEMTAP_DIR=$tmp/stapdir
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

source "$(dirname "${BASH_SOURCE[0]}")/bpf_prog_stats.sh"

# Runs a tracer command in the background during a spin; prints
# "tracer_cpu_s iterations bpf_ns_per_sample samples".
with_tracer() {
  "$@" > "$tmp/tracer.out" 2>&1 &
  local pid=$! cpu t0 c0 t1 c1
  sleep 3  # compiled and attached
  read -r t0 c0 < <(prog_stats "$pid")
  local it; it=$(spin_all)
  read -r t1 c1 < <(prog_stats "$pid")
  if ! cpu=$(cpu_of "$pid" 2>/dev/null); then
    echo "bench_profile: the tracer ended early: $*" >&2; cat "$tmp/tracer.out" >&2; cpu=-
  fi
  kill -INT "$pid"; wait "$pid" 2>/dev/null
  echo "$cpu $it $(awk -v t=$((t1 - t0)) -v c=$((c1 - c0)) 'BEGIN { printf "%.0f %d", c ? t / c : 0, c }')"
}

base=$(spin_all)
read -r stap_cpu stap_it stap_ns stap_n < <(with_tracer "$stap" -e 'global s; probe timer.profile.freq.hz('"$rate"') { s[backtrace()] <<< 1 } probe end { foreach (k in s- limit 1) printf("%d\n", @count(s[k])) }')
if command -v bpftrace >/dev/null; then
  read -r bt_cpu bt_it bt_ns bt_n < <(with_tracer bpftrace -e 'profile:hz:'"$rate"' { @[kstack] = count(); } END { clear(@); }')
else
  bt_cpu=- bt_it=0 bt_ns=- bt_n=-
fi
pct() { [ "$1" -gt 0 ] && awk -v a="$1" -v b="$base" 'BEGIN {printf "%.1f%%", (b - a) * 100 / b}' || echo -; }
row() { printf "%-34s %12s %16s %9s %9s %10s\n" "$@"; }
row "profile at $rate Hz, ${secs}s, $ncpu CPUs" "tracer CPU s" "busy iterations" slowdown samples "BPF ns/run"
row "no tracer" - "$base" - - -
row "stap timer.profile s[backtrace()]" "$stap_cpu" "$stap_it" "$(pct "$stap_it")" "$stap_n" "$stap_ns"
row "bpftrace @[kstack] = count()" "$bt_cpu" "$bt_it" "$(pct "$bt_it")" "$bt_n" "$bt_ns"
