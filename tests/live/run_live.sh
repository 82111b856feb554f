#!/usr/bin/env bash
# Live tests: real scripts on this machine's kernel, as root, with real
# output (tests/live/README.md).
#   tests/live/run_live.sh STAP [TOOLS_DIR] [CASE...]
# TOOLS_DIR holds bpf_leftovers and the workloads (default: the build's
# tests/live next to STAP); CASE names (no extension) pick cases.
# Exit 0 when all ran cases pass, 1 on a failure, 77 when nothing can run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stap=$(realpath "${1:?usage: run_live.sh STAP [TOOLS_DIR] [CASE...]}")
tools=$(realpath "${2:-$(dirname "$stap")/tests/live}")
# A probe that fires on a CPU while one of ours runs there (an interrupt's
# tracepoint, the ring buffer's wake-up) is skipped, as stap skips nested
# probes, and the run ends with this warning.  When it happens depends on
# the machine, so a case without a .err file does not fail on it alone.
nested_skips='^WARNING: Number of errors: 0, skipped probes: [0-9]+$'
shift $(( $# >= 2 ? 2 : 1 ))
cases_dir=$here/cases
stapbpf=$(dirname "$stap")/stapbpf
default_timeout=30

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: live tests need root"
  exit 77
fi
if ! why=$("$tools/bpf_leftovers" available 2>&1); then
  echo "SKIP: no BPF here: $why"
  exit 77
fi

work=$(mktemp -d /tmp/stap-live.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0
failures=()

# Directive NAME of a case: the text after "#! NAME:" in its leading
# comment lines (a .sh case's directives may follow its description).
directive() {
  sed -n "/^#/!q; s/^#! *$1: *//p" "$2" | head -1
}

# @LIVE@ (tools dir), @CASES@ (case dir) and @TMP@ (this case's scratch
# dir) in arguments and expected files.
expand() {
  sed -e "s|@LIVE@|$tools|g" -e "s|@CASES@|$cases_dir|g" -e "s|@TMP@|$case_tmp|g"
}

tracepoint_exists() {
  local sys=${1%%:*} name=${1#*:} root
  for root in /sys/kernel/tracing /sys/kernel/debug/tracing; do
    [ -d "$root/events" ] || continue
    [ -d "$root/events/$sys/$name" ]
    return
  done
  return 0  # tracefs not mounted: the engine mounts it, let it try
}

# Why the case cannot run here, or nothing.
# Where a case can make a memory cgroup: v1's memory hierarchy, or a v2
# mount whose root offers the memory controller to its children.
memcg_root() {
  local v2
  if [ -w /sys/fs/cgroup/memory/cgroup.procs ]; then echo /sys/fs/cgroup/memory; return; fi
  v2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
  [ -n "$v2" ] || return 1
  # Offered to children if the kernel has it (systemd does so at boot;
  # the test guest's bare mount does not).
  grep -qw memory "$v2/cgroup.subtree_control" 2>/dev/null ||
    { grep -qw memory "$v2/cgroup.controllers" && echo +memory >"$v2/cgroup.subtree_control"; } 2>/dev/null
  grep -qw memory "$v2/cgroup.subtree_control" 2>/dev/null && { echo "$v2"; return; }
  return 1
}
export -f memcg_root

# Every "#! needs:" line of the case is checked; the first unmet one says why.
skip_reason() {
  local need reason
  while IFS= read -r need; do
    reason=$(need_reason "$need")
    [ -z "$reason" ] || { echo "$reason"; return; }
  done < <(sed -n "/^#/!q; s/^#! *needs: *//p" "$1")
}

need_reason() {
  local need=$1
  case $need in
    tracepoint\ *)
      tracepoint_exists "${need#tracepoint }" || echo "no tracepoint ${need#tracepoint }";;
    stapbpf)
      [ -x "$stapbpf" ] || echo "no stapbpf binary next to stap";;
    kfunc|kfunc\ *)  # kernel.function probes: any mechanism, or the one named
      "$tools/kfunc_mechanisms" ${need#kfunc} >/dev/null ||
        echo "$("$tools/kfunc_mechanisms" ${need#kfunc} | tail -1)";;
    bpf-lsm)  # kernel.lsm probes run only where "bpf" is an active LSM
      [ -r /sys/kernel/security/lsm ] ||
        mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
      if ! grep -qw bpf /sys/kernel/security/lsm 2>/dev/null; then
        echo "the BPF LSM is not active (/sys/kernel/security/lsm: $(cat /sys/kernel/security/lsm 2>/dev/null))"
      elif ! "$tools/kfunc_mechanisms" fentry >/dev/null; then  # LSM programs use trampolines too
        echo "$("$tools/kfunc_mechanisms" fentry | tail -1)"
      fi;;
    netfilter|no-netfilter)  # BPF netfilter programs: struct bpf_nf_ctx in the kernel's BTF
      if grep -qa bpf_nf_ctx /sys/kernel/btf/vmlinux 2>/dev/null; then
        [ "$need" = netfilter ] || echo "the kernel has BPF netfilter programs"
      else
        [ "$need" = no-netfilter ] || echo "the kernel has no BPF netfilter programs (Linux 6.4+)"
      fi;;
    command\ *)  # programs the case runs besides ours (a Prometheus server, pprof)
      for tool in ${need#command }; do
        command -v "$tool" >/dev/null || { echo "no $tool installed (scripts/install-deps.sh installs it)"; break; }
      done;;
    memcg)  # a memory cgroup to run stap in (v1's memory hierarchy or v2's controller)
      memcg_root >/dev/null || echo "no memory cgroup (v1 memory hierarchy, or v2 with the memory controller)";;
    lockdown\ *)  # the kernel's lockdown mode (tests/guest/lockdown_in_guest.sh boots one)
      [ -r /sys/kernel/security/lockdown ] ||
        mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
      grep -q "\[${need#lockdown }\]" /sys/kernel/security/lockdown 2>/dev/null ||
        echo "the kernel is not locked down in ${need#lockdown } mode";;
    guest-scratch)  # the test guest's scratch disk (tests/guest/README.md)
      [ -n "${STAP_GUEST_SCRATCH:-}" ] && [ -b "/dev/${STAP_GUEST_SCRATCH_DEV:-}" ] &&
        grep -qs " $STAP_GUEST_SCRATCH ext4 " /proc/mounts ||
        echo "no scratch disk (the test guest's: STAP_GUEST_SCRATCH)";;
    hw-breakpoints)  # process.data/kernel.data: debug registers that trap
      "$tools/watch_target" selftest >/dev/null 2>&1 ||
        echo "this machine's hardware breakpoints do not fire ($("$tools/watch_target" selftest 2>&1 | tail -1))";;
    kallsyms-data)  # kernel.data("SYMBOL"): variables in kallsyms (CONFIG_KALLSYMS_ALL)
      grep -qw pid_max /proc/kallsyms ||
        echo "/proc/kallsyms lists no variables (CONFIG_KALLSYMS_ALL is off)";;
    *) echo "unknown need '$need'";;
  esac
}

# Runs the case's command in its own session with a deadline, and a signal
# after a delay when the case asks (#! signal: INT after 1).  Sets status.
run_case_command() {
  local file=$1 timeout signal sig_name sig_after args
  timeout=$(directive timeout "$file"); timeout=${timeout:-$default_timeout}
  timeout=$(( timeout * ${STAP_LIVE_TIMEOUT_SCALE:-1} ))
  signal=$(directive signal "$file")
  sig_name=${signal%% *}; sig_after=${signal##* }
  args=$(directive args "$file" | expand)
  if [[ $file == *.sh ]]; then
    STAP=$stap STAPBPF=$stapbpf LIVE=$tools CASE_TMP=$case_tmp \
      setsid bash "$file" >"$case_tmp/stdout" 2>"$case_tmp/stderr" </dev/null &
  else
    eval "set -- $args"
    setsid "$stap" "$@" "$file" >"$case_tmp/stdout" 2>"$case_tmp/stderr" </dev/null &
  fi
  local pid=$! start now sent=0 timed_out=0
  start=$(date +%s%N)
  while kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid")" != Z ]; do
    now=$(( ($(date +%s%N) - start) / 1000000 ))
    if [ -n "$signal" ] && [ $sent -eq 0 ] && [ "$now" -ge $(( sig_after * 1000 )) ]; then
      kill -s "$sig_name" "$pid"; sent=1
    fi
    if [ "$now" -ge $(( timeout * 1000 )) ]; then
      timed_out=1
      # Where it was stuck, for the report: the case's processes and
      # their kernel stacks.
      { echo "timed out after ${timeout}s; its processes:"
        ps -o pid,stat,wchan:32,args -s "$pid" 2>/dev/null
        for p in $(ps -o pid= -s "$pid" 2>/dev/null); do
          echo "kernel stack of $p:"; cat /proc/"$p"/stack 2>/dev/null | head -12
        done; } >>"$case_tmp/why"
      kill -KILL -- -"$pid" 2>/dev/null; break
    fi
    sleep 0.05
  done
  # A process stuck in the kernel ignores SIGKILL: never wait for it
  # forever (the suite would hang instead of reporting the case).
  local waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid")" != Z ] && [ $waited -lt 100 ]; do
    sleep 0.1; waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid")" != Z ]; then
    echo "still running 10 s after SIGKILL (stuck in the kernel); left behind" >>"$case_tmp/why"
    status=137
  else
    wait "$pid"; status=$?
  fi
  kill -KILL -- -"$pid" 2>/dev/null  # anything the case left running
}

# Every regex line of $1 (after expansion) matches some line of $2; lines
# starting with '!' must match none.
check_regexes() {
  local re ok=0 list=$case_tmp/regexes
  # Through a file, not process substitution: a shell without /dev/fd
  # would otherwise check nothing and pass.
  expand <"$1" >"$list" || { echo "cannot read $1"; return 1; }
  while IFS= read -r re; do
    [ -z "$re" ] && continue
    if [[ $re == !* ]]; then
      if grep -qE -- "${re#!}" "$2"; then echo "a line matches /${re#!}/"; ok=1; fi
    elif ! grep -qE -- "$re" "$2"; then
      echo "no line matches /$re/"; ok=1
    fi
  done <"$list"
  return $ok
}

check_outputs() {
  local base=$1 expect_status
  expect_status=$(directive status "$2"); expect_status=${expect_status:-0}
  [ "$status" -eq "$expect_status" ] || echo "exit status $status, expected $expect_status"
  if [ -f "$base.out" ]; then
    expand <"$base.out" >"$case_tmp/expected"
    diff -u "$case_tmp/expected" "$case_tmp/stdout" >"$case_tmp/diff" ||
      { echo "stdout differs:"; head -40 "$case_tmp/diff"; }
  fi
  [ -f "$base.re" ] && check_regexes "$base.re" "$case_tmp/stdout"
  if [ -f "$base.err" ]; then
    check_regexes "$base.err" "$case_tmp/stderr"
  elif grep -vE "$nested_skips" "$case_tmp/stderr" |
       grep -qE '^(ERROR|WARNING|semantic error|parse error)'; then
    echo "unexpected diagnostics on stderr"
  fi
}

# Objects of ours the case left behind; freeing after exit can lag a
# little, so look again for up to two seconds before calling it a leak.
check_leftovers() {
  local left i
  for i in $(seq 20); do
    left=$("$tools/bpf_leftovers" check $1) && return
    sleep 0.1
  done
  echo "left behind in the kernel:"; echo "$left"
}

run_one() {
  local file=$1 name base reason snapshot
  base=${file%.*}; name=$(basename "$base")
  reason=$(skip_reason "$file")
  if [ -n "$reason" ]; then
    echo "SKIP $name: $reason"; skipped=$((skipped + 1)); return
  fi
  case_tmp=$work/$name; mkdir -p "$case_tmp"; : >"$case_tmp/why"
  # Each case compiles afresh (its own cache); cache.sh tests the cache.
  export SYSTEMTAP_DIR=$case_tmp/stapdir
  snapshot=$("$tools/bpf_leftovers" snapshot)
  local t0=$(date +%s%N)
  run_case_command "$file"
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  { check_outputs "$base" "$file"; check_leftovers "$snapshot"; } >>"$case_tmp/why"
  if [ -s "$case_tmp/why" ]; then
    echo "FAIL $name (${ms} ms)"; sed 's/^/    /' "$case_tmp/why"
    echo "    --- stderr:"; head -15 "$case_tmp/stderr" | sed 's/^/    /'
    failed=$((failed + 1)); failures+=("$name")
  else
    echo "PASS $name (${ms} ms)"; passed=$((passed + 1))
  fi
}

selected=()
if [ $# -gt 0 ]; then
  for n in "$@"; do
    for f in "$cases_dir/$n.stp" "$cases_dir/$n.sh"; do [ -f "$f" ] && selected+=("$f"); done
  done
else
  for f in "$cases_dir"/*.stp "$cases_dir"/*.sh; do [ -f "$f" ] && selected+=("$f"); done
fi
for f in "${selected[@]}"; do run_one "$f"; done

echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ $failed -eq 0 ] || { echo "failed: ${failures[*]}"; exit 1; }
exit 0
