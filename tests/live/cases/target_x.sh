# -x PID: target() is PID and filters on it; the process runs on its own.
fifo=$CASE_TMP/fifo; mkfifo $fifo
$LIVE/getpid_loop wait 500 < $fifo &
pid=$!
exec 3> $fifo
# stap must not inherit the FIFO's write end (fd 3), or the workload never
# sees end-of-file.
timeout 20 $STAP -x $pid 3>&- -e 'global n
probe begin { printf("target ok %d\n", target() == '$pid') }
probe kernel.trace("syscalls:sys_enter_getpid") { if (pid() == target() && ++n == 500) exit() }
probe end { printf("n=%d\n", n) }' > $CASE_TMP/out 2> $CASE_TMP/err &
stap_pid=$!
# Let the workload start its calls once the probes are surely attached.
sleep 2
exec 3>&-
wait $stap_pid; echo "status $?"
wait $pid
cat $CASE_TMP/out; cat $CASE_TMP/err >&2
