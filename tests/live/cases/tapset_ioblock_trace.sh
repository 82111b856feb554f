# ioblock.request and ioblock.end on block:block_bio_queue and
# block:block_rq_complete (the host cannot probe kernel functions): dd
# writes 4 blocks of 64 KiB with O_DIRECT to a file in the case's scratch
# directory, then reads them back.  Needs the scratch directory on a block
# device (the device's name is checked against lsblk's).
# Forced, so that a kernel that can probe functions runs the events too.
export STAP_KFUNC_MECHANISM=none
dev=$(findmnt -n -o SOURCE -T "$CASE_TMP")
case $dev in /dev/*) ;; *) echo "$CASE_TMP is on $dev, not a block device"; exit 1;; esac
name=${dev#/dev/}
script='global w, r, wsize, ends, names
probe ioblock.request {
  if (execname() != "dd") next
  names[devname] = 1
  if (bio_rw_str(rw) == "W" && rw == 1) { w++; wsize += size }
  if (bio_rw_str(rw) == "R" && rw == 0 && size > 0) r++
}
probe ioblock.end { if (devname == "'$name'" && error == 0 && bytes_done > 0) ends = 1 }
probe end {
  foreach (n in names) printf("devname %s\n", n == "'$name'" ? "matches lsblk" : n)
  printf("writes %d bytes %d, reads %d, completions %d\n", w > 0, wsize >= 262144, r > 0, ends)
}'
"$STAP" -e "$script" -c "sh -c 'dd if=/dev/zero of=$CASE_TMP/f bs=64k count=4 oflag=direct,sync status=none && dd if=$CASE_TMP/f of=/dev/null bs=64k iflag=direct status=none'"
