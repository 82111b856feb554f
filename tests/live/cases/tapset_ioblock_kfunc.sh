#! needs: kfunc
#! needs: guest-scratch
#! timeout: 300
# ioblock.request and ioblock.end on kernel functions (the test guest):
# dd writes 4 blocks of 4 KiB with O_DIRECT to the guest's virtio disk
# (vda), at the raw sectors past its file system, then reads them back.
raw=$STAP_GUEST_SCRATCH_RAW
script='global w, r, wbytes, sectors, ends, ends_w
probe ioblock.request {
  if (execname() != "dd" || devname != "vda") next
  if (bio_rw_str(rw) == "W") { w++; wbytes += size; sectors[sector] = 1 }
  else if (rw == 0 && size > 0) r++
  if (bio == 0 || bdev == 0 || ino != -1 || (opf & 0xff) != rw) printf("odd: bio %x bdev %x ino %d\n", bio, bdev, ino)
}
probe ioblock.end { if (devname == "vda" && error == 0) { ends++; if (bio_rw_num(rw)) ends_w++ } }
probe end {
  printf("writes %d, %d bytes, from the first raw sector %d; reads %d; ends %d, writes among them %d\n",
         w > 0, wbytes, '$raw' in sectors, r > 0, ends >= 2, ends_w > 0)
}'
"$STAP" -e "$script" -c "sh -c 'dd if=/dev/zero of=/dev/vda bs=4k seek=$((raw / 8)) count=4 oflag=direct status=none && dd if=/dev/vda of=/dev/null bs=4k skip=$((raw / 8)) count=4 iflag=direct status=none'"
