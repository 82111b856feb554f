#!/usr/bin/env bash
# Attaching and detaching kernel.function probes on many functions, per
# mechanism, beside bpftrace: in the test guest (tests/guest/README.md;
# this host has no kprobes and refuses fentry), or on this machine with
# --here.  Prints one table.  Not a ctest: a program that prints figures.
#   tests/bench/bench_kfunc.sh BUILD_DIR [RUNS] [--here]
# STAP_GUEST_KERNEL=6.12 runs it in the guest with Debian 12's 6.12
# kernel, the one with kprobe.multi (run_in_guest.sh).
#
# Method, for each target (kernel.function("vfs_*"), and every function of
# ext4, loaded in the guest from its kernel's modules when missing; else
# the module with the most functions) and each mechanism the kernel offers
# (forced with STAP_KFUNC_MECHANISM; fentry takes one function only):
#   stap -vv -e 'global n; probe TARGET { n++ }' -c /bin/true
# - attach: the "attached with M (N functions) in X ms" line of -v;
# - detach: the "detached K links in X ms" line of -vv;
# - pass 5: "run completed in ...real ms" (load, attach, the run of
#   `true`, detach);
# - wall: exec to exit of the whole stap command (passes 1-4 too).
# bpftrace: `bpftrace -e 'kprobe:vfs_* { @n = count(); }' -c /bin/true`, wall
# time (it prints no phases; its "Attaching N probes" gives N), and the
# same with one function (kprobe:vfs_read) for the fixed costs.
# Each figure is the median of RUNS runs (default 3).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(realpath "${1:?usage: bench_kfunc.sh BUILD_DIR [RUNS] [--here]}")
runs=${2:-3}
if [ "${3:-}" != --here ] && [ -z "${STAP_BENCH_IN_GUEST:-}" ]; then
  cd "$root" && STAP_GUEST_TIMEOUT=${STAP_GUEST_TIMEOUT:-3000} exec "$root/tests/guest/run_in_guest.sh" \
    env STAP_BENCH_IN_GUEST=1 bash "$here/bench_kfunc.sh" "$build" "$runs"
fi
stap=$build/stap
mechs_tool=$build/tests/live/kfunc_mechanisms
for f in "$stap" "$mechs_tool"; do
  [ -x "$f" ] || { echo "bench_kfunc: $f is not built (ninja -C $build stap kfunc_mechanisms)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/stap-bench-kfunc.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SYSTEMTAP_DIR=$work/stapdir

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "-"}'; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# A module with many functions: ext4, loaded from the running kernel's
# package tree when the guest has it (run_in_guest.sh keeps it in its
# cache), else the loaded module with the most functions.
pick_module() {
  if ! grep -q '^ext4 ' /proc/modules; then
    local tree
    for tree in "${STAP_GUEST_CACHE:-$HOME/.cache/stap-bpf-guest}"/linux-image-*/root /; do
      [ -d "$tree/lib/modules/$(uname -r)" ] && modprobe -q -d "$tree" ext4 2>/dev/null && break
    done
  fi
  if grep -q '^ext4 ' /proc/modules; then echo ext4; return; fi
  grep -o '\[[a-z0-9_]*\]$' /proc/kallsyms | sort | uniq -c | sort -rn | head -1 | tr -d '[]' |
    awk '{print $2}'
}

# One stap run: prints "ATTACH DETACH PASS5 WALL FUNCTIONS MECHANISM" (ms).
stap_run() {
  local mech=$1 point=$2 t0 t1 err=$work/err
  t0=$(now_ms)
  STAP_KFUNC_MECHANISM=$mech "$stap" -vv -e "global n; probe $point { n++ }" -c /bin/true \
    >/dev/null 2>"$err"
  local status=$?
  t1=$(now_ms)
  if [ $status -ne 0 ]; then
    echo "stap failed ($mech, $point):" >&2; grep -E 'ERROR|error' "$err" | head -3 >&2
    return 1
  fi
  local attach detach pass5 n used
  attach=$(sed -n 's/.*attached with \([a-z.]*\) (\([0-9]*\) functions\?) in \([0-9.]*\) ms/\3/p' "$err" | head -1)
  n=$(sed -n 's/.*attached with \([a-z.]*\) (\([0-9]*\) functions\?) in.*/\2/p' "$err" | head -1)
  used=$(sed -n 's/.*attached with \([a-z.]*\) (.*/\1/p' "$err" | head -1)
  detach=$(sed -n 's/^Pass 5: detached [0-9]* links in \([0-9.]*\) ms/\1/p' "$err")
  pass5=$(sed -n 's|^Pass 5: run completed in .*/\([0-9]*\)real ms.*|\1|p' "$err")
  echo "${attach:--} ${detach:--} ${pass5:--} $((t1 - t0)) ${n:--} ${used:--}"
}

bpftrace_run() {
  local probe=$1 t0 t1 out=$work/bt
  t0=$(now_ms)
  BPFTRACE_MAX_PROBES=100000 bpftrace -e "$probe { @n = count(); }" -c /bin/true >"$out" 2>&1 || { echo "- -"; return; }
  t1=$(now_ms)
  echo "$((t1 - t0)) $(sed -n 's/^Attaching \([0-9]*\) probe.*/\1/p' "$out" | head -1)"
}

column_median() { awk -v c="$1" '{print $c}' "$2" | grep -v '^-$' | median; }

module=$(pick_module)
printf 'kernel %s, %s; module target: %s; median of %s runs; times in ms\n\n' "$(uname -r)" \
  "$(nproc) CPUs" "$module" "$runs"
printf '%-36s %-16s %6s %8s %8s %8s %8s\n' target mechanism funcs attach detach "pass 5" wall
for target in 'kernel.function("vfs_*")' "module(\"$module\").function(\"*\")" \
              'kernel.function("vfs_read")'; do
  for mech in kprobe.multi kprobe fentry; do
    if ! "$mechs_tool" "$mech" >/dev/null; then
      printf '%-36s %-16s %s\n' "$target" "$mech" "(not offered: $("$mechs_tool" "$mech"))"
      continue
    fi
    if [ $mech = fentry ] && [[ $target == *'*'* ]]; then continue; fi
    : >"$work/rows"
    for _ in $(seq "$runs"); do stap_run "$mech" "$target" >>"$work/rows" || break; done
    [ -s "$work/rows" ] || continue
    printf '%-36s %-16s %6s %8s %8s %8s %8s\n' "$target" "$(awk '{print $6}' "$work/rows" | head -1)" \
      "$(column_median 5 "$work/rows")" "$(column_median 1 "$work/rows")" \
      "$(column_median 2 "$work/rows")" "$(column_median 3 "$work/rows")" \
      "$(column_median 4 "$work/rows")"
  done
done
echo
if command -v bpftrace >/dev/null && bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
  for probe in 'kprobe:vfs_*' "kprobe:${module}_*" 'kprobe:vfs_read'; do
    : >"$work/rows"
    for _ in $(seq "$runs"); do bpftrace_run "$probe" >>"$work/rows"; done
    printf '%-36s %-16s %6s %8s %8s %8s %8s\n' "bpftrace $probe" "(its choice)" \
      "$(awk '{print $2}' "$work/rows" | head -1)" - - - "$(column_median 1 "$work/rows")"
  done
else
  echo "bpftrace does not run here"
fi
