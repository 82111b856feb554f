#! needs: guest-scratch
#! timeout: 120
# ioblock_trace.request and ioblock_trace.end (block tracepoints, typed
# by BTF) on the test guest's virtio disk: dd writes 4 blocks of 4 KiB
# with O_DIRECT to the raw sectors past its file system, then reads 2
# back.  block_bio_complete fires only for bio-based drivers, so
# ioblock_trace.end sees nothing on vda (blk-mq), and does on a RAM disk
# (brd), where dd writes 2 more blocks.
raw=$STAP_GUEST_SCRATCH_RAW
modprobe brd rd_nr=1 rd_size=8192 || { echo "no RAM disk"; exit 1; }
trap 'rmmod brd' EXIT
script='global ends
probe ioblock_trace.request {
  if (execname() != "dd" || (devname != "vda" && devname != "ram0")) next
  printf("%s %s %s sector %s%d size %d bytes_done %d vcnt %d idx %d ino %d q %d bdev %d contains %d start %d op %d\n",
         name, devname, bio_rw_str(rw), devname == "vda" ? "raw+" : "", sector - (devname == "vda" ? '$raw' : 0),
         size, bytes_done, vcnt, idx, ino, q != 0, bdev != 0, bdev_contains, p_start_sect, (opf & 0xff) == rw)
}
probe ioblock_trace.end { ends[devname, bio_rw_str(rw)] += bytes_done }
probe end {
  printf("ends on vda %d\n", ends["vda", "W"] + ends["vda", "R"])
  printf("ends on ram0: W %d bytes\n", ends["ram0", "W"])
}'
dd="dd if=/dev/zero of=/dev/vda bs=4096 seek=$((raw / 8)) count=4 oflag=direct status=none &&
  dd if=/dev/vda of=/dev/null bs=4096 skip=$((raw / 8)) count=2 iflag=direct status=none &&
  dd if=/dev/zero of=/dev/ram0 bs=4096 count=2 oflag=direct status=none"
"$STAP" -e "$script" -c "sh -c '$dd'"
