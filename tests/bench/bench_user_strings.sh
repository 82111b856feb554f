#!/usr/bin/env bash
# Issue 20's figures: how often the field's most common one-liners get the
# user strings they ask for.  Each run is a fresh process whose first
# opens name paths on pages not yet touched (the dynamic loader's, libc's
# locale archive), which a BPF program at sys_enter cannot read.  Counts
# the runs that printed every expected path and exited 0.  bpftrace, when
# installed, runs the same one-liners beside it (its str() gives "" where
# the read fails).  A program that prints figures, not a test.
#   tests/bench/bench_user_strings.sh BUILD_DIR [RUNS] [STRACE_RUNS]
set -uo pipefail
build=$(realpath "${1:-build}")
runs=${2:-200}
strace_runs=${3:-$runs}
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "bench_user_strings: needs root" >&2; exit 1; }
work=$(mktemp -d /tmp/stap-bench-ustr.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SYSTEMTAP_DIR=$work/cache  # compiled once, then cached, as a CI job would run it
stap=$build/stap

# figure NAME RUNS COMMAND...: COMMAND prints "ok" for a good run.
figure() {
  local name=$1 n=$2 good=0 i; shift 2
  for ((i = 0; i < n; i++)); do [ "$("$@" 2>/dev/null)" = ok ] && good=$((good + 1)); done
  printf '%-58s %4d of %d runs\n' "$name" "$good" "$n"
}

one_liner() {
  local out; out=$("$stap" -e 'probe kernel.trace("syscalls:sys_enter_openat") {
      if (pid() == target()) printf("%s\n", user_string($filename)) }' -c 'cat /etc/hostname' 2>"$work/err") || return
  grep -qx /etc/hostname <<<"$out" && grep -qx /etc/ld.so.cache <<<"$out" && ! grep -q ERROR "$work/err" && echo ok
}
syscall_openat() {
  local out; out=$("$stap" -e 'probe syscall.openat { if (pid() == target()) println(filename) }' \
      -c 'cat /etc/hostname' 2>"$work/err") || return
  grep -qx '"/etc/hostname"' <<<"$out" && grep -qx '"/etc/ld.so.cache"' <<<"$out" && echo ok
}
strace_ls() {
  local out; out=$("$stap" "$src/examples/strace.stp" -c 'ls /usr' 2>"$work/err") || return
  # every path argument read: openat's is quoted text, not an address
  grep -q '^openat(AT_FDCWD, "/usr"' <<<"$out" && ! grep -q '^openat(AT_FDCWD, 0x' <<<"$out" && echo ok
}
# Paths on pages the process never touched (tests/live/workloads/cold_paths):
# every one of 20 must be read.
cold() {
  local out; out=$("$stap" -e 'probe kernel.trace("syscalls:sys_enter_openat") {
      if (pid() == target()) printf("%s\n", user_string($filename)) }' -c "$build/tests/live/cold_paths $work 20" 2>/dev/null) || return
  [ "$(grep -cx /etc/hostname <<<"$out")" = 20 ] && echo ok
}
bpftrace_cold() {
  local out; out=$(bpftrace -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("%s\n", str(args->filename)) }' \
      -c "$build/tests/live/cold_paths $work 20" 2>/dev/null) || return
  [ "$(grep -cx /etc/hostname <<<"$out")" = 20 ] && echo ok
}
bpftrace_one_liner() {
  local out; out=$(bpftrace -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("%s\n", str(args->filename)) }' \
      -c '/usr/bin/cat /etc/hostname' 2>/dev/null) || return
  grep -qx /etc/hostname <<<"$out" && grep -qx /etc/ld.so.cache <<<"$out" && echo ok
}

echo "user strings read at a system call's entry (each run a fresh process):"
figure "stap: kernel.trace openat one-liner, cat /etc/hostname" "$runs" one_liner
figure "stap: syscall.openat { println(filename) }" "$runs" syscall_openat
figure "stap: examples/strace.stp -c 'ls /usr', every path read" "$strace_runs" strace_ls
figure "stap: the one-liner over 20 paths on untouched pages" "$runs" cold
if command -v bpftrace >/dev/null; then
  figure "bpftrace: the one-liner with str(), cat /etc/hostname" "$runs" bpftrace_one_liner
  figure "bpftrace: the one-liner over 20 paths on untouched pages" "$runs" bpftrace_cold
fi
