#! needs: guest-scratch
#! timeout: 120
# ioscheduler.elv_add_request and ioscheduler_trace.elv_issue_request /
# .elv_completed_request (block tracepoints, typed by BTF) on the test
# guest's virtio disk, whose scheduler is mq-deadline: dd writes 2 blocks
# of 4 KiB with O_DIRECT to the raw sectors past its file system, then
# reads 1 back; each request is inserted, issued and completed in turn.
# disk_major/disk_minor are -1 since Linux 5.19 (no rq_disk), as in stap.
# The legacy elevator aliases (elv_next_request ...) match nothing on
# these kernels: optional, they leave the script running.
raw=$STAP_GUEST_SCRATCH_RAW
script='global plugs
probe ioscheduler.elv_add_request, ioscheduler_trace.elv_issue_request,
      ioscheduler_trace.elv_completed_request, ioscheduler_trace.elv_requeue_request {
  s = @cast(rq, "request", "kernel")->__sector - '$raw'
  if (kernel_string(@cast(rq, "request", "kernel")->q->disk->disk_name) != "vda" || s < 0 || s >= 64) next
  printf("%s %s sector raw+%d %s disk %d:%d q %d\n", name, elevator_name, s,
         rq_flags & 0xff ? "W" : "R", disk_major, disk_minor, q != 0)
}
probe ioscheduler_trace.plug { if (execname() == "dd" && rq_queue) plugs++ }
probe ioscheduler.elv_next_request ?, ioscheduler.elv_next_request.return ?,
      ioscheduler.elv_completed_request ?, ioscheduler.elv_add_request.kp ?,
      ioscheduler_trace.elv_abort_request ?, ioscheduler_trace.unplug_io ?,
      ioscheduler_trace.unplug_timer ? { printf("legacy %s\n", name) }
probe end { printf("dd plugged the queue: %d\n", plugs > 0) }'
dd="dd if=/dev/zero of=/dev/vda bs=4096 seek=$((raw / 8)) count=2 oflag=direct status=none &&
  dd if=/dev/vda of=/dev/null bs=4096 skip=$((raw / 8)) count=1 iflag=direct status=none"
"$STAP" -e "$script" -c "sh -c '$dd'"
