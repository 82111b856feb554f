# The block and page functions on the block layer's tracepoints, over a
# loop device of the case's own (16 MiB; partition 1 added at sector 2048
# with addpart, as no partition parser is needed), an 8 MiB ext4 on the
# partition: dd writes the partition past the file system and the whole
# disk before the partition with O_DIRECT, then writes
# pages 0-1 and 5 of a file on the ext4 and fsyncs (the writeback bios
# are submitted by dd itself).  block_bio_queue: __bio_start_sect of each
# of dd's bios (private since stap 3.0: --compatible=2.9) by device name,
# against sysfs; __page_ino/__page_dev/__page_bdev/__page_index of the
# file's bios' first pages against stat and the pages written, and
# __address_inode/__page_ino of the page's mapping (an address_space, as
# some of stap's aliases pass) the same as of the page.
# block_rq_issue: disk_major/minor_from_request of each request and of
# its queue (stap's argument), against lsblk's disks.
#! timeout: 90
#! needs: command losetup addpart mkfs.ext4
modprobe loop 2>/dev/null  # a module in the test guest
loop=$(losetup -P -f --show "$(truncate -s 16M "$CASE_TMP/img" && echo "$CASE_TMP/img")") || exit 1
mnt=$CASE_TMP/mnt
cleanup() { umount "$mnt" 2>/dev/null; losetup -d "$loop"; }
trap cleanup EXIT
ln=${loop#/dev/}
addpart "$loop" 1 2048 28672 || exit 1
for _ in $(seq 50); do [ -b "${loop}p1" ] && break; sleep 0.1; done
mkfs.ext4 -q "${loop}p1" 8M && mkdir -p "$mnt" && mount "${loop}p1" "$mnt" || exit 1
f=$mnt/f
: > "$f"
ino=$(stat -c %i "$f")
script='global starts, idx, pdev, pbdev, rqd, qd, mapping_form
probe kernel.tracepoint("block_bio_queue") {
  if (execname() != "dd") next
  b = @choose_defined($bio, $arg1)
  n = __bio_devname(b)
  if (substr(n, 0, '${#ln}') == "'$ln'")
    starts[n, __bio_start_sect(b)] = 1
  if (@cast(b, "bio", "kernel")->bi_vcnt == 0) next
  pg = @cast(b, "bio", "kernel")->bi_io_vec->bv_page
  if (__page_ino(pg) != '$ino') next
  idx[__page_index(pg)] = 1
  pdev[MAJOR(__page_dev(pg)), MINOR(__page_dev(pg))] = 1
  pbdev[bdevname(__page_bdev(pg))] = 1
  m = @cast(pg, "page", "kernel")->mapping
  mapping_form[__address_inode(m) == __address_inode(pg) && __page_ino(m) == __page_ino(pg)] = 1
}
probe kernel.tracepoint("block_rq_issue") {
  rq = @choose_defined($rq, $arg1)
  rqd[disk_major_from_request(rq), disk_minor_from_request(rq)] = 1
  q = @cast(rq, "request", "kernel")->q
  qd[disk_major_from_request(q), disk_minor_from_request(q)] = 1
}
probe end {
  foreach ([n, s] in starts) printf("start %s %d\n", n, s)
  foreach (i in idx) printf("index %d\n", i)
  foreach ([ma, mi] in pdev) printf("dev %d:%d\n", ma, mi)
  foreach (n in pbdev) printf("bdev %s\n", n)
  foreach (v in mapping_form) printf("mapping %d\n", v)
  foreach ([ma, mi] in rqd) printf("rq %d:%d\n", ma, mi)
  foreach ([ma, mi] in qd) printf("q %d:%d\n", ma, mi)
}'
dd="dd if=/dev/zero of=${loop}p1 bs=4k count=2 seek=3000 oflag=direct status=none &&
  dd if=/dev/zero of=$loop bs=4k count=1 oflag=direct seek=8 status=none &&
  dd if=/dev/urandom of=$f bs=4k count=2 conv=notrunc,fsync status=none &&
  dd if=/dev/urandom of=$f bs=4k count=1 seek=5 conv=notrunc,fsync status=none"
"$STAP" --compatible=2.9 -e "$script" -o "$CASE_TMP/got" -c "sh -c '$dd'" || exit 1
# The loop device's name varies: LOOP.
sed -n 's/^start //p' "$CASE_TMP/got" | sed "s/^$ln/LOOP/" | sort | sed 's/^/bio start_sect: /'
echo "sysfs start of LOOPp1: $(cat "/sys/class/block/${ln}p1/start")"
echo "page indexes: $(sed -n 's/^index //p' "$CASE_TMP/got" | sort -n | xargs)"
want_dev=$(stat -c '%Hd:%Ld' "$f")
got_dev=$(sed -n 's/^dev //p' "$CASE_TMP/got")
echo "page dev is stat's: $([ "$got_dev" = "$want_dev" ] && echo yes || echo "no ($got_dev, $want_dev)")"
echo "page bdev: $(sed -n 's/^bdev //p' "$CASE_TMP/got" | sed "s/^$ln/LOOP/")"
echo "the page's mapping gives the same inode: $(sed -n 's/^mapping //p' "$CASE_TMP/got" | xargs)"
disks=$(lsblk -d -n -o MAJ:MIN | tr -d ' ' | sort)
rq=$(sed -n 's/^rq //p' "$CASE_TMP/got" | sort)
q=$(sed -n 's/^q //p' "$CASE_TMP/got" | sort)
echo "request and queue forms agree: $([ "$rq" = "$q" ] && echo yes || echo "no ($rq / $q)")"
bad=$(comm -23 <(echo "$q") <(echo "$disks"))
echo "every request's disk is in lsblk: $([ -z "$bad" ] && echo yes || echo "no ($bad)")"
echo "LOOP's requests seen: $(grep -qx "$(lsblk -d -n -o MAJ:MIN "$loop" | tr -d ' ')" <<<"$q" && echo yes || echo no)"
