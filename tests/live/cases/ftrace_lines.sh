# ftrace(msg) writes a line into the kernel's ftrace ring buffer, as
# stap's trace_printk: from kernel context with bpf_trace_printk, from a
# begin probe through tracefs's trace_marker.  Read back from the buffer
# by a marker unique to this run (the buffer is the system's: not cleared).
root=/sys/kernel/tracing
[ -w $root/trace_marker ] || root=/sys/kernel/debug/tracing
mark="stap-ftrace-$$-$RANDOM"
"$STAP" -e 'probe begin { ftrace("begin " . @1) }
  probe syscall.getpid { if (pid() == target()) { ftrace("kernel " . @1); exit() } }' \
  "$mark" -c "$LIVE/getpid_loop 1" 2>&1
echo "status $?"
grep -o "\(begin\|kernel\) $mark\$" $root/trace | sed "s/$mark/MARK/"
