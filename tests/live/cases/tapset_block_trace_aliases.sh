# ioblock_trace.* and ioscheduler(_trace).* elaborate and compile on this
# kernel (block tracepoints typed by BTF), each with its variables; the
# legacy elevator points, optional, match nothing, and named without `?`
# they are "no match", as in stap.  (The guest's *_disk cases run them.)
script='probe ioblock_trace.request, ioblock_trace.end, ioblock_trace.bounce ? {
  printf("%s %s %d %d %d %d %d %d %d\n", name, devname, sector, size, bytes_done, rw, opf, ino, q)
}
probe ioscheduler.elv_add_request, ioscheduler_trace.elv_issue_request,
      ioscheduler_trace.elv_requeue_request, ioscheduler_trace.elv_completed_request,
      ioscheduler_trace.elv_abort_request ? {
  printf("%s %s %d %d %d %d %d\n", name, elevator_name, q, rq, rq_flags, disk_major, disk_minor)
}
probe ioscheduler_trace.plug, ioscheduler_trace.unplug_io ?, ioscheduler_trace.unplug_timer ? {
  printf("%s %d\n", name, rq_queue)
}
probe ioscheduler.elv_next_request ?, ioscheduler.elv_completed_request ?,
      ioscheduler.elv_add_request.kp ? { printf("%s %s\n", name, elevator_name) }
probe ioscheduler.elv_next_request.return ? { printf("%s %d\n", name, rq) }'
"$STAP" -p4 -e "$script" >/dev/null && echo "all compiled"
for p in ioscheduler.elv_next_request ioscheduler.elv_completed_request ioscheduler_trace.unplug_io; do
  "$STAP" -p2 -e "probe $p { }" >/dev/null 2>"$CASE_TMP/err"
  printf '%s: status %d, %s\n' "$p" $? "$(grep -c 'no match' "$CASE_TMP/err") no match"
done
