#!/usr/bin/env bash
# BPF-side cost of one stack capture, from the kernel's own program
# statistics (kernel.bpf_stats_enabled: run_time_ns / run_cnt per program):
# a probe on every system call keyed by pid() (the baseline), by
# backtrace() and by ubacktrace(), while getpid_loop makes a million
# calls.  ns per run minus the baseline's is what the capture costs
# (bpf_get_stack and the stack storage's lookup; bpf_runtime/stacks.c).
# ubacktrace() twice: through the CFI unwinder (bpf_runtime/unwind.c,
# tables for getpid_loop and libc from -d) and the kernel's frame-pointer
# walk (STAP_UNWIND=fp, no tables).
# With a second stap (another build), its numbers are printed beside.
# Usage: bench_stack_capture.sh STAP [OTHER_STAP]  (root)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stap=$(realpath "${1:?usage: bench_stack_capture.sh STAP [OTHER_STAP]}")
other=${2:+$(realpath "$2")}
loop=$(dirname "$stap")/tests/live/getpid_loop
calls=${CALLS:-1000000}
unwind=  # STAP_UNWIND for the next measure
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats; rm -rf "$tmp"' EXIT

source "$(dirname "${BASH_SOURCE[0]}")/bpf_prog_stats.sh"

# "ns_per_run ns_per_call": STAP with KEY as the aggregate's key, over
# the loop's calls (the probe keys only the loop's events); more stap
# options after KEY.
measure() {
  local bin=$1 key=$2 pid t0 c0 t1 c1
  shift 2
  STAP_UNWIND=$unwind "$bin" "$@" -e "global s; probe begin { printf(\"ready\\n\") }
             probe kernel.trace(\"raw_syscalls:sys_enter\") {
               if (execname() == \"getpid_loop\") s[$key] <<< 1 }" > "$tmp/out" 2>&1 &
  pid=$!
  for _ in $(seq 200); do grep -q ready "$tmp/out" && break; sleep 0.1; done
  read -r t0 c0 < <(prog_stats "$pid")
  "$loop" "$calls"
  read -r t1 c1 < <(prog_stats "$pid")
  kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  grep -E "^(ERROR|WARNING)" "$tmp/out" | head -3 >&2
  awk -v t=$((t1 - t0)) -v c=$((c1 - c0)) -v n="$calls" \
    'BEGIN { printf "%.0f %.0f", c ? t / c : 0, t / n }'
}

# One column per stap: ns per program run, and ns per loop call beyond
# the pid() baseline's (the capture's own cost).
column() {
  local base run call
  read -r run base < <(measure "$1" 'pid()')
  printf "%s\n" "$run -"
  for key in 'backtrace()' 'ubacktrace()'; do
    read -r run call < <(measure "$1" "$key" -d "$loop")
    printf "%s\n" "$run $((call - base))"
  done
  unwind=fp
  read -r run call < <(measure "$1" 'ubacktrace()')
  unwind=
  printf "%s\n" "$run $((call - base))"
}

column "$stap" > "$tmp/a"
if [ -n "$other" ]; then column "$other" > "$tmp/b"; else printf -- "- -\n- -\n- -\n- -\n" > "$tmp/b"; fi
printf "%-14s %8s %10s   %8s %10s\n" key "ns/run" "capture" "ns/run" "capture"
printf "%-14s %19s   %19s\n" "" "(STAP)" "(OTHER_STAP)"
paste -d' ' <(printf "pid()\nbacktrace()\nubacktrace()\nubacktrace()fp\n") "$tmp/a" "$tmp/b" |
  while read -r k a b c d; do printf "%-14s %8s %10s   %8s %10s\n" "$k" "$a" "$b" "$c" "$d"; done
