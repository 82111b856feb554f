#! needs: kfunc
#! timeout: 300
# ioblock.request and ioblock.end on kernel functions (the test guest):
# dd writes 4 blocks of 4 KiB with O_DIRECT to a RAM disk (brd), then
# reads them back.
modprobe brd rd_nr=1 rd_size=8192 || { echo "no RAM disk"; exit 1; }
trap 'rmmod brd' EXIT
script='global w, r, wbytes, sectors, ends, ends_w
probe ioblock.request {
  if (execname() != "dd" || devname != "ram0") next
  if (bio_rw_str(rw) == "W") { w++; wbytes += size; sectors[sector] = 1 }
  else if (rw == 0 && size > 0) r++
  if (bio == 0 || bdev == 0 || ino != -1 || (opf & 0xff) != rw) printf("odd: bio %x bdev %x ino %d\n", bio, bdev, ino)
}
probe ioblock.end { if (devname == "ram0" && error == 0) { ends++; if (bio_rw_num(rw)) ends_w++ } }
probe end {
  printf("writes %d, %d bytes, from sector 0 %d; reads %d; ends %d, writes among them %d\n",
         w > 0, wbytes, 0 in sectors, r > 0, ends >= 2, ends_w > 0)
}'
"$STAP" -e "$script" -c "sh -c 'dd if=/dev/zero of=/dev/ram0 bs=4k count=4 oflag=direct status=none && dd if=/dev/ram0 of=/dev/null bs=4k count=4 iflag=direct status=none'"
