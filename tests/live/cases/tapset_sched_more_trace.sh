# scheduler.wait_task, scheduler.kthread_stop[.return] on their
# tracepoints.  strace (as nice 5: priority 125) attaches to the sleep it
# starts: ptrace waits for the tracee to leave its CPU (wait_task).  An
# ext4 image with multiple-mount protection, mounted on a loop device,
# runs a kmmpd-* kernel thread that umount stops with kthread_stop; the
# thread returns 0.
#! needs: command strace mkfs.ext4 losetup
img=$CASE_TMP/mmp.img mnt=$CASE_TMP/mnt
truncate -s 16M "$img" && mkfs.ext4 -q -F -O mmp -E mmp_update_interval=1 "$img" && mkdir -p "$mnt" || exit
cat >"$CASE_TMP/work.sh" <<SH
nice -n 5 strace -o /dev/null sleep 0.1
mount -o loop "$img" "$mnt" || exit 1
ps -e -o pid=,comm= | awk '/kmmpd-loop/ { print \$1 }' >"$CASE_TMP/kmmpd"
umount "$mnt"
SH
script='global child, waits, prio, stops, stop_prio, rets, last
probe kernel.trace("sched:sched_process_exec") { if (execname() == "sleep") child = pid() }
probe scheduler.wait_task { if (child && task_pid == child) { waits++; prio = task_priority } }
probe scheduler.kthread_stop {
  if (execname() != "umount") next
  stops[thread_pid] = name
  stop_prio[thread_pid] = thread_priority
  last = thread_pid
}
probe scheduler.kthread_stop.return { if (execname() == "umount") rets[last] = sprintf("%s %d", name, return_value) }
probe end {
  printf("wait_task on the traced sleep: %d, its priority %d\n", waits > 0, prio)
  foreach (p in stops) printf("stop %d %s %d, returned %s\n", p, stops[p], stop_prio[p], rets[p])
}'
"$STAP" -e "$script" -c "sh $CASE_TMP/work.sh" >"$CASE_TMP/out" || { cat "$CASE_TMP/out"; exit 1; }
mountpoint -q "$mnt" && umount "$mnt"
sed -n 1p "$CASE_TMP/out"
kmmpd=$(cat "$CASE_TMP/kmmpd")
echo "kmmpd found: $([ -n "$kmmpd" ] && echo 1 || echo 0)"
grep "^stop $kmmpd " "$CASE_TMP/out" | sed "s/^stop $kmmpd /stop of kmmpd: /"
