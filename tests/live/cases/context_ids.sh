# pid/tid/ppid/target against the real ids, a thread's tid, and the clock
# against date(1).
script='global seen
probe kernel.trace("syscalls:sys_enter_getpid") {
  if (pid() != target() || tid() in seen) next
  seen[tid()] = 1
  printf("%d %d %d %d %d\n", pid(), tid(), ppid(), target(), gettimeofday_s())
}'
$STAP -e "$script" -c "$LIVE/getpid_loop 2 2" > $CASE_TMP/out &
stap_pid=$!
wait $stap_pid
now=$(date +%s)
read pid1 tid1 ppid1 target1 t1 < <(sed -n 1p $CASE_TMP/out)
read pid2 tid2 ppid2 target2 t2 < <(sed -n 2p $CASE_TMP/out)
[ "$(wc -l < $CASE_TMP/out)" = 2 ] && echo "two threads seen"
[ "$pid1" = "$target1" ] && [ "$pid2" = "$target2" ] && echo "pid is target"
[ "$pid1" = "$pid2" ] && [ "$tid1" != "$tid2" ] && { [ "$tid1" = "$pid1" ] || [ "$tid2" = "$pid2" ]; } && echo "tids differ, one is the pid"
[ "$ppid1" = "$stap_pid" ] && echo "ppid is stap"
[ $(( now - t1 )) -le 2 ] && [ $(( now - t1 )) -ge 0 ] && echo "clock agrees with date"
exit 0
