#! needs: guest-scratch
#! timeout: 120
# A disk-statistics script in the manner of SystemTap's examples/io
# (iostat-scsi, disktop): block requests and bytes per device and
# direction from ioblock.request, with a vfs.write/vfs.read view of the
# same process beside it.  The target shell runs dd on the test guest's
# virtio disk: 8 writes of 4 KiB with O_DIRECT to the raw sectors past
# its file system, 4 reads of 8 KiB back, then 5 buffered writes of 2 KiB
# into a file on its ext4 (written back later, by the kernel's flusher:
# only vfs sees them; dd's own reads and writes of /dev/* are on devtmpfs,
# devname N/A).
raw=$STAP_GUEST_SCRATCH_RAW
f=$STAP_GUEST_SCRATCH/disk_stats.$$
trap 'rm -f "$f"; sync' EXIT
script='global reqs, vfs
probe ioblock.request {
  if (pid() != target() && ppid() != target()) next
  reqs[devname, bio_rw_str(rw)] <<< size
}
probe vfs.write {
  if ((pid() == target() || ppid() == target()) && devname != "N/A")
    vfs[devname, name] <<< bytes_to_write
}
probe vfs.read {
  if ((pid() == target() || ppid() == target()) && devname != "N/A")
    vfs[devname, name] <<< bytes_to_read
}
probe end {
  printf("%-8s %2s %8s %10s %8s\n", "DEVICE", "RW", "REQUESTS", "BYTES", "AVG")
  foreach ([dev, rw+] in reqs)
    if (dev == "vda")
      printf("%-8s %2s %8d %10d %8d\n", dev, rw, @count(reqs[dev, rw]),
             @sum(reqs[dev, rw]), @avg(reqs[dev, rw]))
  foreach ([dev, op+] in vfs)
    printf("%-8s %-9s %4d calls %8d bytes\n", dev, op, @count(vfs[dev, op]), @sum(vfs[dev, op]))
}'
dd="dd if=/dev/zero of=/dev/vda bs=4096 seek=$((raw / 8)) count=8 oflag=direct status=none &&
  dd if=/dev/vda of=/dev/null bs=8192 skip=$((raw / 16)) count=4 iflag=direct status=none &&
  dd if=/dev/zero of=$f bs=2048 count=5 status=none"
"$STAP" -e "$script" -c "sh -c '$dd'"
