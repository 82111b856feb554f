#!/usr/bin/env bash
# The runtime (pass 5) beside bpftrace, on this machine's kernel, as root.
# Prints one side-by-side table.  Not a ctest: a program that prints
# figures.  Installs Debian's bpftrace when it is missing.
#   tests/bench/bench_runtime.sh BUILD_DIR [RUNS]
#
# Method:
# - "attached": from just before exec to the moment the tracer's first
#   output line arrives on our pipe, the line printed by the probe itself
#   (the begin probe, or the first raw_syscalls:sys_enter event, which
#   fires within microseconds once attached on a live system).  So it is
#   launch + compile or cache load + load + attach + first event delivered.
#   A line that arrives only at the end (output held until exit) gives "-".
# - "total wall": exec to exit.  begin { exit() } as it is; the counter
#   runs with -c /bin/true (the session ends when the command does).
# - cold: an empty stap cache ($SYSTEMTAP_DIR); cached: the same script
#   again.  bpftrace has no compile cache: its "cached" row is a second
#   run (only the OS caches are warm).
# - Per-event cost: kernel.bpf_stats_enabled=1, then run_time_ns and
#   run_cnt of the tracer's programs, read from /proc/PID/fdinfo of its
#   BPF program fds, before and after 2M getpid calls of a workload; cost =
#   delta run_time_ns / delta run_cnt (every CPU's syscalls count).
# - printf throughput: a printf on each of 1M getpid calls of the
#   workload, -c; records per second = delivered / (tracer exit - the
#   moment the workload starts its calls, which it stamps itself).  Lost
#   records are what the tracer reports (stap: "There were N transport
#   failures"; bpftrace: "Lost N events"); "silent" is calls - delivered -
#   reported lost, which must be 0.
# - The empty program: stap elides a probe with an empty body (as
#   SystemTap does), so ours is `{ next }`; bpftrace's is `{ }`.
# Each figure is the median of RUNS runs (default 5; printf: 3).
set -uo pipefail
build=$(realpath "${1:-build}")
runs=${2:-5}
stap=$build/stap
tools=$build/tests/live
loop=$tools/getpid_loop
[ "$(id -u)" -eq 0 ] || { echo "bench_runtime: needs root" >&2; exit 1; }
for f in "$stap" "$loop"; do
  [ -x "$f" ] || { echo "bench_runtime: $f is not built (ninja -C $build stap getpid_loop)" >&2; exit 1; }
done
if ! command -v bpftrace >/dev/null; then
  echo "bench_runtime: installing bpftrace (the peer)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bpftrace >/dev/null ||
    { echo "bench_runtime: cannot install bpftrace" >&2; exit 1; }
fi
work=$(mktemp -d /tmp/stap-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "-"}'; }

# attach_and_wall CMD...: runs CMD with stdout on a pipe; prints
# "ATTACH_MS WALL_MS" (attach: first line seen, "-" if none came before
# the end; wall: exit).  A tracer still running after 3 s gets SIGINT.
attach_and_wall() {
  local fifo=$work/fifo t0 t1= t2 line pid killer
  rm -f "$fifo"; mkfifo "$fifo"
  t0=$(now_us)
  "$@" >"$fifo" 2>>"$work/stderr" &
  pid=$!
  # bash starts background commands with SIGINT ignored; a tracer that
  # never installs its own handler is ended by TERM, then KILL.
  ( sleep 3; kill -INT $pid; sleep 3; kill -TERM $pid; sleep 3; kill -KILL $pid ) 2>/dev/null &
  killer=$!
  exec 3<"$fifo"
  # bpftrace prints "Attaching N probes..." before attaching: wait for the
  # probe's own line.
  while IFS= read -r -t 20 line <&3; do
    [ "$line" = attached ] && { t1=$(now_us); break; }
  done
  cat <&3 >/dev/null
  wait $pid 2>/dev/null
  t2=$(now_us)
  kill $killer 2>/dev/null; wait $killer 2>/dev/null
  exec 3<&-
  # A first line that came only after the SIGINT (output held until the
  # end) gives no attach time.
  if [ -n "$t1" ] && [ $(( (t1 - t0) / 1000 )) -lt 2900 ]; then
    echo "$(( (t1 - t0) / 1000 )) $(( (t2 - t0) / 1000 ))"
  else
    echo "- $(( (t2 - t0) / 1000 ))"
  fi
}

# wall CMD...: exec to exit in ms.
wall() {
  local t0 t1
  t0=$(now_us); "$@" >/dev/null 2>>"$work/stderr"; t1=$(now_us)
  echo $(( (t1 - t0) / 1000 ))
}

begin_stap='probe begin { println("attached"); exit() }'
begin_bt='BEGIN { printf("attached\n"); exit(); }'
counter_stap='global c
probe kernel.trace("raw_syscalls:sys_enter") { if (c++ == 0) println("attached") }
probe end { printf("%d\n", c > 0) }'
counter_bt='tracepoint:raw_syscalls:sys_enter { if (@c == 0) { printf("attached\n"); } @c++; }
END { clear(@c); }'

# launch_figures NAME STAP_SCRIPT BT_SCRIPT: sets rows[NAME ...].
declare -A fig
launch_figures() {
  local name=$1 s=$2 b=$3 i a w cold_a=() cold_w=() hot_a=() hot_w=() bt_a=() bt_w=() bt2_a=() bt2_w=()
  for i in $(seq "$runs"); do
    export SYSTEMTAP_DIR=$work/cache.$name.$i
    read -r a w < <(attach_and_wall "$stap" -e "$s"); cold_a+=("$a")
    read -r a w < <(attach_and_wall "$stap" -e "$s"); hot_a+=("$a")
    read -r a w < <(attach_and_wall bpftrace -e "$b"); bt_a+=("$a")
    read -r a w < <(attach_and_wall bpftrace -e "$b"); bt2_a+=("$a")
    if [ "$name" = begin ]; then
      export SYSTEMTAP_DIR=$work/cachew.$name.$i
      cold_w+=("$(wall "$stap" -e "$s")"); hot_w+=("$(wall "$stap" -e "$s")")
      bt_w+=("$(wall bpftrace -e "$b")"); bt2_w+=("$(wall bpftrace -e "$b")")
    else
      export SYSTEMTAP_DIR=$work/cachew.$name.$i
      cold_w+=("$(wall "$stap" -e "$s" -c /bin/true)"); hot_w+=("$(wall "$stap" -e "$s" -c /bin/true)")
      bt_w+=("$(wall bpftrace -e "$b" -c /bin/true)"); bt2_w+=("$(wall bpftrace -e "$b" -c /bin/true)")
    fi
  done
  fig[$name.attach.cold]=$(printf '%s\n' "${cold_a[@]}" | median)
  fig[$name.attach.hot]=$(printf '%s\n' "${hot_a[@]}" | median)
  fig[$name.wall.cold]=$(printf '%s\n' "${cold_w[@]}" | median)
  fig[$name.wall.hot]=$(printf '%s\n' "${hot_w[@]}" | median)
  fig[$name.bt.attach.cold]=$(printf '%s\n' "${bt_a[@]}" | median)
  fig[$name.bt.attach.hot]=$(printf '%s\n' "${bt2_a[@]}" | median)
  fig[$name.bt.wall.cold]=$(printf '%s\n' "${bt_w[@]}" | median)
  fig[$name.bt.wall.hot]=$(printf '%s\n' "${bt2_w[@]}" | median)
}

# prog_stats PID: "RUN_TIME_NS RUN_CNT" summed over the distinct BPF
# programs PID holds open.
prog_stats() {
  local f id t c seen=" " T=0 C=0 M=0
  for f in /proc/"$1"/fdinfo/*; do
    [ -r "$f" ] || continue
    id=; t=; c=
    while IFS=$': \t' read -r key value _; do
      case $key in prog_id) id=$value;; run_time_ns) t=$value;; run_cnt) c=$value;; esac
    done 2>/dev/null <"$f"
    # Links name their program too; only a program's own fd has run_cnt.
    [ -n "$id" ] && [ -n "$c" ] && [[ $seen != *" $id "* ]] || continue
    seen+="$id "; T=$((T + t)); C=$((C + c))
    [ "$c" -gt "$M" ] && M=$c
  done
  echo "$T $C $M"
}

# event_cost CMD...: ns per event of the tracer's programs over 2M getpid
# calls; the tracer gets SIGINT afterwards.  With PER_SYSCALL=1 the time of
# all its programs is divided by the runs of the busiest one, i.e. per
# syscall even when several programs run for each (syscall.* dispatchers).
event_cost() {
  local pid before after i
  "$@" >/dev/null 2>>"$work/stderr" &
  pid=$!
  # Attached once it holds a program that has run.
  for i in $(seq 300); do
    kill -0 $pid 2>/dev/null || { wait $pid; echo "-"; return; }
    read -r -a before < <(prog_stats $pid)
    [ "${before[1]:-0}" -gt 0 ] && break
    sleep 0.05
  done
  read -r -a before < <(prog_stats $pid)
  "$loop" 2000000
  read -r -a after < <(prog_stats $pid)
  kill -INT $pid; wait $pid 2>/dev/null
  local dt=$(( ${after[0]:-0} - ${before[0]:-0} )) dc=$(( ${after[1]:-0} - ${before[1]:-0} ))
  [ "${PER_SYSCALL:-0}" = 1 ] && dc=$(( ${after[2]:-0} - ${before[2]:-0} ))
  if [ "$dc" -gt 0 ]; then awk -v t=$dt -v c=$dc 'BEGIN { printf "%.0f\n", t / c }'; else echo "-"; fi
}

cost_figures() {
  local old i a=() b=() c=() d=()
  old=$(sysctl -n kernel.bpf_stats_enabled)
  sysctl -qw kernel.bpf_stats_enabled=1
  export SYSTEMTAP_DIR=$work/cache.cost
  for i in $(seq "$runs"); do
    a+=("$(event_cost "$stap" -e 'global c
probe kernel.trace("raw_syscalls:sys_enter") { c[execname()]++ }
probe end { foreach (k in c) n++ }')")
    b+=("$(event_cost bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); } END { clear(@); }')")
    c+=("$(event_cost "$stap" -e 'probe kernel.trace("raw_syscalls:sys_enter") { next }')")
    d+=("$(event_cost bpftrace -e 'tracepoint:raw_syscalls:sys_enter { }')")
  done
  sysctl -qw kernel.bpf_stats_enabled="$old"
  fig[cost.count]=$(printf '%s\n' "${a[@]}" | median)
  fig[cost.bt.count]=$(printf '%s\n' "${b[@]}" | median)
  fig[cost.empty]=$(printf '%s\n' "${c[@]}" | median)
  fig[cost.bt.empty]=$(printf '%s\n' "${d[@]}" | median)
}

# Syscall probes by name (syscall.*: one tapset alias per call, dispatched
# on the number in kernel context) and by number, per syscall.
syscall_figures() {
  local old i a=() b=() c=() d=() r=() w=() bw=()
  old=$(sysctl -n kernel.bpf_stats_enabled)
  sysctl -qw kernel.bpf_stats_enabled=1
  export SYSTEMTAP_DIR=$work/cache.syscall PER_SYSCALL=1
  for i in $(seq "$runs"); do
    a+=("$(event_cost "$stap" -e 'global c
probe syscall.* { c[name]++ }
probe end { foreach (k in c) n++ }')")
    b+=("$(event_cost bpftrace -e 'tracepoint:syscalls:sys_enter_* { @[probe] = count(); } END { clear(@); }')")
    c+=("$(event_cost "$stap" -e 'global c
probe syscall.* { c[$__syscall_nr]++ }
probe end { foreach (k in c) n++ }')")
    r+=("$(event_cost "$stap" -e 'global c
probe kernel.trace("raw_syscalls:sys_enter") { c[$id]++ }
probe end { foreach (k in c) n++ }')")
    d+=("$(event_cost bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @[args->id] = count(); } END { clear(@); }')")
    w+=("$(wall "$stap" -e 'global c
probe syscall.* { c[name]++ }
probe end { foreach (k in c) n++ }' -c /bin/true)")
    bw+=("$(wall bpftrace -e 'tracepoint:syscalls:sys_enter_* { @[probe] = count(); } END { clear(@); }' -c /bin/true)")
  done
  unset PER_SYSCALL
  sysctl -qw kernel.bpf_stats_enabled="$old"
  fig[sys.name]=$(printf '%s\n' "${a[@]}" | median)
  fig[sys.bt.name]=$(printf '%s\n' "${b[@]}" | median)
  fig[sys.nr]=$(printf '%s\n' "${c[@]}" | median)
  fig[sys.bt.nr]=$(printf '%s\n' "${d[@]}" | median)
  fig[sys.raw]=$(printf '%s\n' "${r[@]}" | median)
  fig[sys.wall]=$(printf '%s\n' "${w[@]}" | median)
  fig[sys.bt.wall]=$(printf '%s\n' "${bw[@]}" | median)
}

# printf_run KIND: "DELIVERED LOST RATE_PER_S" for a printf on each of 1M
# getpid calls of the workload.  KIND: stap, bpftrace, or stap-json and
# bpftrace-json (--format=json / -f json: a JSON record per printf).
calls=1000000
printf_run() {
  local kind=$1 out=$work/printf.out err=$work/printf.err stamp=$work/stamp t_end start
  local format=() line_re='^[0-9]+ getpid_loop$'
  case $kind in
    stap-json) format=(--format=json); line_re='^\{"type":"printf","data":"[0-9]+ getpid_loop\\n"\}$';;
    bpftrace-json) format=(-f json); line_re='^\{"type": "printf", "data": "[0-9]+ getpid_loop\\n"\}$';;
  esac
  rm -f "$stamp"
  export GETPID_LOOP_STAMP=$stamp
  if [[ $kind == stap* ]]; then
    "$stap" "${format[@]}" -e 'probe kernel.trace("syscalls:sys_enter_getpid") { if (pid() == target()) printf("%d %s\n", pid(), execname()) }' \
      -c "$loop $calls" >"$out" 2>"$err"
  else
    bpftrace "${format[@]}" -e 'tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { printf("%d %s\n", pid, comm); }' \
      -c "$loop $calls" >"$out" 2>"$err"
  fi
  t_end=$(now_us)
  unset GETPID_LOOP_STAMP
  local delivered lost
  delivered=$(grep -cE "$line_re" "$out")
  case $kind in
    stap) lost=$(sed -n 's/^WARNING: There were \([0-9]*\) transport failures.*/\1/p' "$err" | tail -1);;
    stap-json) lost=$(sed -n 's/^{"type":"lost","records":\([0-9]*\)}$/\1/p' "$out" | tail -1);;
    *) lost=$(cat "$out" "$err" | sed -n 's/.*Lost \([0-9]*\) events.*/\1/p; s/.*"type": "lost_events", "data": {"events": \([0-9]*\)}.*/\1/p' |
         awk '{s+=$1} END {print s+0}');;
  esac
  lost=${lost:-0}
  start=$(cat "$stamp" 2>/dev/null || echo 0)
  local us=$(( t_end - start / 1000 ))
  [ "$start" -gt 0 ] && [ $us -gt 0 ] || { echo "$delivered $lost -"; return; }
  echo "$delivered $lost $(( delivered * 1000000 / us )) $(( lost * 1000000 / us ))"
}

printf_figures() {
  local i r d=() l=() rd=() rl=() bd=() bl=() brd=() brl=() n=$(( runs < 3 ? runs : 3 ))
  export SYSTEMTAP_DIR=$work/cache.printf
  for i in $(seq "$n"); do
    read -r -a r < <(printf_run stap); d+=("${r[0]}"); l+=("${r[1]}"); rd+=("${r[2]}"); rl+=("${r[3]:--}")
    read -r -a r < <(printf_run bpftrace); bd+=("${r[0]}"); bl+=("${r[1]}"); brd+=("${r[2]}"); brl+=("${r[3]:--}")
  done
  fig[printf.delivered]=$(printf '%s\n' "${d[@]}" | median)
  fig[printf.lost]=$(printf '%s\n' "${l[@]}" | median)
  fig[printf.rate]=$(printf '%s\n' "${rd[@]}" | median)
  fig[printf.lrate]=$(printf '%s\n' "${rl[@]}" | median)
  fig[printf.bt.delivered]=$(printf '%s\n' "${bd[@]}" | median)
  fig[printf.bt.lost]=$(printf '%s\n' "${bl[@]}" | median)
  fig[printf.bt.rate]=$(printf '%s\n' "${brd[@]}" | median)
  fig[printf.bt.lrate]=$(printf '%s\n' "${brl[@]}" | median)
  local jd=() jr=() bjd=() bjr=()
  for i in $(seq "$n"); do
    read -r -a r < <(printf_run stap-json); jd+=("$(( r[0] + r[1] ))"); jr+=("${r[2]}")
    read -r -a r < <(printf_run bpftrace-json); bjd+=("$(( r[0] + r[1] ))"); bjr+=("${r[2]}")
  done
  fig[json.accounted]=$(printf '%s\n' "${jd[@]}" | median)
  fig[json.rate]=$(printf '%s\n' "${jr[@]}" | median)
  fig[json.bt.accounted]=$(printf '%s\n' "${bjd[@]}" | median)
  fig[json.bt.rate]=$(printf '%s\n' "${bjr[@]}" | median)
}

# verdict OURS LIMIT: "yes"/"NO"/"?" for OURS <= LIMIT.
at_most() { [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || { echo "?"; return; }; [ "$1" -le "$2" ] && echo yes || echo NO; }

echo "bench_runtime: $runs runs per figure (medians); kernel $(uname -r), $(nproc) CPUs" >&2
launch_figures begin "$begin_stap" "$begin_bt"
launch_figures counter "$counter_stap" "$counter_bt"
cost_figures
syscall_figures
printf_figures

bt_version=$(bpftrace --version 2>/dev/null | awk '{print $2}')
row() { printf '%-44s %14s %14s   %s\n' "$@"; }
echo
row "" "this stap" "bpftrace $bt_version" "target (met?)"
for name in begin counter; do
  label=$([ $name = begin ] && echo 'begin { exit() }' || echo 'tracepoint counter')
  row "$label: attached, cold (ms)" "${fig[$name.attach.cold]}" "${fig[$name.bt.attach.cold]}" \
    "<= 40 ($(at_most "${fig[$name.attach.cold]}" 40))"
  row "$label: attached, cached (ms)" "${fig[$name.attach.hot]}" "${fig[$name.bt.attach.hot]}" \
    "<= 15 ($(at_most "${fig[$name.attach.hot]}" 15))"
  row "$label: total wall, cold (ms)" "${fig[$name.wall.cold]}" "${fig[$name.bt.wall.cold]}" ""
  row "$label: total wall, cached (ms)" "${fig[$name.wall.hot]}" "${fig[$name.bt.wall.hot]}" ""
done
row "per event, c[execname()]++ / @[comm]=count() (ns)" "${fig[cost.count]}" "${fig[cost.bt.count]}" \
  "<= bpftrace ($(at_most "${fig[cost.count]}" "${fig[cost.bt.count]}"))"
row "per event, empty program (ns)" "${fig[cost.empty]}" "${fig[cost.bt.empty]}" ""
row "per syscall, syscall.* c[name]++ / sys_enter_* @[probe] (ns)" "${fig[sys.name]}" "${fig[sys.bt.name]}" \
  "<= by number + 10% ($(at_most "${fig[sys.name]}" "$(( ${fig[sys.nr]:-0} * 11 / 10 ))"))"
row "per syscall, syscall.* c[\$__syscall_nr]++ (ns)" "${fig[sys.nr]}" "" ""
row "per syscall, raw_syscalls c[\$id]++ / @[args->id] (ns)" "${fig[sys.raw]}" "${fig[sys.bt.nr]}" ""
row "syscall.* count, cached, -c /bin/true: wall (ms)" "${fig[sys.wall]}" "${fig[sys.bt.wall]}" ""
row "printf on 1M getpid: delivered" "${fig[printf.delivered]}" "${fig[printf.bt.delivered]}" ""
row "printf on 1M getpid: reported lost" "${fig[printf.lost]}" "${fig[printf.bt.lost]}" ""
silent=$(( calls - ${fig[printf.delivered]:-0} - ${fig[printf.lost]:-0} ))
bt_silent=$(( calls - ${fig[printf.bt.delivered]:-0} - ${fig[printf.bt.lost]:-0} ))
row "printf on 1M getpid: lost silently" "$silent" "$bt_silent" "0 ($([ "$silent" -eq 0 ] && echo yes || echo NO))"
ten_x=$(( ${fig[printf.bt.rate]:-0} * 10 ))
row "printf: records delivered per second" "${fig[printf.rate]}" "${fig[printf.bt.rate]}" \
  ">= 10x bpftrace ($(at_most "$ten_x" "${fig[printf.rate]}"))"
row "printf: records lost per second" "${fig[printf.lrate]}" "${fig[printf.bt.lrate]}" ""
row "printf, JSON lines: delivered + reported lost" "${fig[json.accounted]}" "${fig[json.bt.accounted]}" "$calls"
row "printf, JSON lines: records delivered per second" "${fig[json.rate]}" "${fig[json.bt.rate]}" \
  "text: ${fig[printf.rate]}"
