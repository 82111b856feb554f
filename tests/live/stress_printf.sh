#!/usr/bin/env bash
# Stress: a printf on each of 1M getpid calls.  Every record is delivered
# or counted as lost (stap's "There were N transport failures" warning at
# exit); delivered + lost must be exactly the number of calls, and every
# delivered line must be whole.
#   tests/live/stress_printf.sh STAP [TOOLS_DIR] [CALLS]
set -uo pipefail
stap=$(realpath "${1:?usage: stress_printf.sh STAP [TOOLS_DIR] [CALLS]}")
tools=$(realpath "${2:-$(dirname "$stap")/tests/live}")
calls=${3:-1000000}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root"; exit 77; fi
if ! "$tools/bpf_leftovers" available >/dev/null; then echo "SKIP: no BPF here"; exit 77; fi
work=$(mktemp -d /tmp/stap-stress.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SYSTEMTAP_DIR=$work/stapdir
snapshot=$("$tools/bpf_leftovers" snapshot)

# The execname test keeps the count to the workload itself, whatever runs
# the -c command before it execs.
script='probe kernel.trace("syscalls:sys_enter_getpid") {
  if (pid() == target() && execname() == "getpid_loop") printf("%d %s\n", pid(), execname())
}'
start=$(date +%s%N)
timeout 120 "$stap" -e "$script" -c "$tools/getpid_loop $calls" >"$work/out" 2>"$work/err"
status=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))

fail=0
delivered=$(wc -l <"$work/out")
whole=$(grep -cE '^[0-9]+ getpid_loop$' "$work/out")
lost=$(sed -n 's/^WARNING: There were \([0-9]*\) transport failures.*/\1/p' "$work/err" | tail -1)
lost=${lost:-0}
echo "stress_printf: $calls calls in ${ms} ms: delivered $delivered, lost $lost (status $status)"
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status"; fail=1; }
[ "$whole" -eq "$delivered" ] || { echo "FAIL: $((delivered - whole)) malformed lines"; fail=1; }
[ $((delivered + lost)) -eq "$calls" ] ||
  { echo "FAIL: delivered + lost = $((delivered + lost)), expected $calls"; fail=1; }
if grep -vE '^WARNING: There were [0-9]+ transport failures' "$work/err" | grep -qE '^(ERROR|WARNING)'; then
  echo "FAIL: diagnostics:"; head -5 "$work/err"; fail=1
fi
for i in $(seq 20); do
  left=$("$tools/bpf_leftovers" check $snapshot) && break
  sleep 0.1
done
[ -z "$left" ] || { echo "FAIL: left behind in the kernel:"; echo "$left"; fail=1; }
[ $fail -eq 0 ] && echo "PASS stress_printf"
exit $fail
