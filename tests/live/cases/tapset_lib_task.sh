# task.stp's limits, pid lookup and namespace ids, pstrace.stp and
# task_ancestry.stp, against what the workload set and /proc says: the
# target lowers its soft limits (ulimit -S) then execs getpid_loop; at its
# getpid the script reads them back, finds the task by pid, and walks its
# parents, which must be stap, this shell and this shell's ancestors.
#! timeout: 60
cd "$CASE_TMP"
cat > task.stp <<'STP'
// One probe per group: all in one program is more than the verifier
// takes (each pid2task and namespace id is a walk of its own).
function mine() { return pid() == target() && execname() == "getpid_loop" }
probe syscall.getpid {
  if (!mine()) next
  t = task_current()
  printf("nofile %d %d stack %d core %d cpu %d\n", task_rlimit_nofile(t),
         task_rlimit(t, "RLIMIT_NOFILE"), task_rlimit_stack(t), task_rlimit_core(t),
         task_rlimit_cpu(t))
  printf("codes %d %d %d\n", rlimit_from_str("RLIMIT_NOFILE"), rlimit_from_str("RLIMIT_RTTIME"),
         rlimit_from_str("nofile"))
}
probe syscall.getpid {
  if (!mine()) next
  t = task_current()
  printf("pid2task %d %d %s [%s]\n", pid2task(pid()) == t, pid2task(tid()) == t,
         pid2execname(pid()), pid2execname(-1))
}
probe syscall.getpid {
  if (!mine()) next
  printf("ns %d %d %d\n", ns_pid() == pid(), ns_tid() == tid(), ns_ppid() == ppid())
}
probe syscall.getpid {
  if (!mine()) next
  printf("ns %d %d %d\n", ns_uid() == uid(), ns_gid() == gid(), task_ns_euid(task_current()) == euid())
}
probe syscall.getpid {
  if (!mine()) next
  t = task_current()
  printf("files %d %d %d\n", task_fd_lookup(t, 1) != 0, task_cwd_path(t) != 0,
         current_exe_file() == task_exe_file(t))
  printf("target %d stap %d\n", pid(), stp_pid())
}
probe syscall.getpid {
  if (!mine()) next
  printf("pstrace%s\n", pstrace(task_current()))
  printf("ancestry %s\n", task_ancestry(task_current(), 0))
  exit()
}
STP
# The pid's chain " name(pid)" from a live pid up to init, and with =>.
chain() { local p=$1 s=""; while [ "$p" -gt 1 ]; do s="$s $(cat /proc/$p/comm)($p)"; p=$(awk '{print $4}' /proc/$p/stat); done; echo "$s"; }
ancestry() { local p=$1 s=""; while [ "$p" -gt 0 ]; do s="$(cat /proc/$p/comm)=>$s"; p=$(awk '{print $4}' /proc/$p/stat); done; echo "${s%=>}"; }
$STAP -g task.stp -c "bash -c 'ulimit -S -n 777; ulimit -S -s 4096; ulimit -S -t 100; ulimit -S -c 0; exec $LIVE/getpid_loop 1'" > out 2> err &
stap=$!
wait $stap; echo "status $?"
grep -v -e '^target' -e '^pstrace' -e '^ancestry' out
read -r _ tpid _ spid < <(grep '^target' out)
[ "$spid" = "$stap" ] && echo "stp_pid is stap's pid" || echo "stp_pid $spid, stap $stap"
want=" getpid_loop($tpid) stap($stap)$(chain $$)"
got=$(grep '^pstrace' out); got=${got#pstrace}
[ "$got" = "$want" ] && echo "pstrace matches /proc" || echo "pstrace [$got] want [$want]"
# Init's name is that of the thread that forked (task_parent is
# real_parent, a thread): any of init's threads' names.
want="swapper/0=>$(ancestry $$)=>stap=>getpid_loop"
init=$(cat /proc/1/comm)
got=$(grep '^ancestry' out); got=${got#ancestry }
for c in $(cat /proc/1/task/*/comm); do
  [ "$got" = "${want/=>$init=>/=>$c=>}" ] && { echo "ancestry matches /proc"; got=; break; }
done
[ -n "$got" ] && echo "ancestry [$got] want [$want]"
grep -E 'ERROR|WARNING|error' err || true
# In a pid namespace of its own the workload is pid 1 there; stap's
# namespace (the initial one) still sees its real pid.
cat > ns.stp <<'STP'
probe syscall.getpid {
  if (ppid() != target() || execname() != "getpid_loop") next
  p = @cast(task_current(), "task_struct", "kernel")->thread_pid
  own = @cast(p, "pid", "kernel")->numbers[@cast(p, "pid", "kernel")->level]->nr
  printf("own pid %d, ns_pid is pid %d, ns_tid is tid %d\n", own, ns_pid() == pid(), ns_tid() == tid())
  exit()
}
STP
$STAP ns.stp -c "unshare --pid --fork $LIVE/getpid_loop 1" 2>&1
