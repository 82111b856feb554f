#! needs: kfunc
#! needs: command modprobe dd
#! timeout: 300
# The scsi.* aliases on a scsi_debug disk (the test guest: Debian's 6.1
# has SCSI as modules): scsi_mod and sd_mod are loaded first (their
# functions and types must be there when stap resolves the probes), then
# under stap the workload loads scsi_debug (8 MiB: one host, one LUN),
# waits for its sd disk, writes and reads 16 KiB at 1 MiB (sector 2048)
# with O_DIRECT, and unloads it.  Printed for the disk (its H:C:T:L as sysfs names it,
# shown as HCTL): each device-state change (set_state: the scan's
# CREATED -> RUNNING, the removal's RUNNING -> CANCEL -> DEL); the commands
# the scan issues and waits for (ioexecute: INQUIRY and the rest read
# from the device, TEST UNIT READY and the like move no data); and dd's
# two commands (the requests at sector 2048; kblockd dispatches them)
# from dispatch (iodispatching:
# scsi:scsi_dispatch_cmd_start, scsi_dispatch_cmd being inlined on 6.1)
# to done (iodone: scsi:scsi_dispatch_cmd_done) to completion
# (iocompleted), matched by their request (req_addr), with their
# direction, length, device state (also get_devstate_from_req of the
# request's queue), scsi_timer_pending (the queue's timeout timer is
# armed while a command is out) and goodbytes.  scsi.ioentry's functions
# are inlined on 6.1 (scsi_prepare_cmd) or gone: it matches nothing.
modprobe sd_mod || exit 1
cat > "$CASE_TMP/w.sh" <<SH
modprobe scsi_debug dev_size_mb=8 || exit 1
for i in \$(seq 300); do
  set -- /sys/bus/scsi/drivers/sd/*:*/block/*
  [ -e "\$1" ] && [ -b "/dev/\${1##*/}" ] && break
  sleep 0.1
done
[ -e "\$1" ] || { echo "no sd disk" >&2; exit 1; }
basename "\$(dirname "\$(dirname "\$1")")" > "$CASE_TMP/hctl"
dd if=/dev/zero of="/dev/\${1##*/}" bs=16k seek=64 count=1 oflag=direct status=none &&
dd if="/dev/\${1##*/}" of=/dev/null bs=16k skip=64 count=1 iflag=direct status=none &&
modprobe -r scsi_debug
SH
script='global marks, lines, n
function line(s:string) { lines[++n] = s }
@define hctl %( sprintf("%d:%d:%d:%d", host_no, channel, dev_id, lun) %)
probe scsi.set_state {
  line(sprintf("%s state %s -> %s", @hctl, old_state_str, state_str))
}
probe scsi.ioexecute {
  line(sprintf("%s ioexecute %s, %s, bufflen>0 %d", @hctl, data_direction_str, device_state_str, request_bufflen > 0))
}
probe scsi.iodispatching {
  if (@cast(req_addr, "request", "kernel")->__sector != 2048) next
  marks[req_addr] = 1
  line(sprintf("%s dispatch %s %d bytes, %s, buffer %d", @hctl, data_direction_str,
               request_bufflen, device_state_str, request_buffer != 0))
}
probe scsi.iodone {
  if (!(req_addr in marks)) next
  q = @cast(req_addr, "request", "kernel")->q
  line(sprintf("%s done %s, %s, queue %s, timer_pending %d", @hctl, data_direction_str,
               device_state_str, describe_device_state(get_devstate_from_req(q)), scsi_timer_pending))
}
probe scsi.iocompleted {
  if (!(req_addr in marks)) next
  delete marks[req_addr]
  line(sprintf("%s completed %s, goodbytes %d", @hctl, data_direction_str, goodbytes))
}
probe scsi.ioentry ? { line("ioentry") }
probe end { for (i = 1; i <= n; i++) println(lines[i]) }'
"$STAP" -e "$script" -o "$CASE_TMP/got" -c "sh $CASE_TMP/w.sh" || exit 1
h=$(cat "$CASE_TMP/hctl")
# ioexecute lines: one each of the distinct forms
grep "^$h " "$CASE_TMP/got" | sed "s/^$h /HCTL /" | awk '!/ioexecute/ || !seen[$0]++'
