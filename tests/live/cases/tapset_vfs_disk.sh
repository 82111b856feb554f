#! needs: guest-scratch
#! timeout: 120
# vfs.write, vfs.read and vfs.read.return on ext4 on the test guest's
# virtio disk (devname vda): dd writes 3 blocks of 1000 bytes into a file
# on the scratch file system, then reads the file back with 4 KiB reads
# (3000 bytes, then 0 at its end).  On kernel functions where the kernel
# can probe them (the guest); vfs.* has no trace-event form.  (pos is
# vfs_read's loff_t pointer, as in stap: not printed.)
f=$STAP_GUEST_SCRATCH/vfs_disk.$$
: >"$f" || exit 1
trap 'rm -f "$f"; sync' EXIT
ino=$(stat -c %i "$f")
major=$(stat -c %t /dev/vda); major=$((0x$major))
script='probe vfs.write {
  if (execname() != "dd" || ino != '$ino') next
  printf("%s %s ino ok, dev %d, bytes_to_write %d, argstr %d\n", name, devname,
         MAJOR(dev) == '$major' && MINOR(dev) == 0, bytes_to_write,
         argstr == sprintf("%d, %d, %p", bytes_to_write, pos, buf))
}
probe vfs.read {
  if (execname() == "dd" && ino == '$ino')
    printf("%s %s ino ok, bytes_to_read %d\n", name, devname, bytes_to_read)
}
probe vfs.read.return {
  if (execname() == "dd" && ino == '$ino')
    printf("%s.return %s bytes_read %d, error %d, retstr %s\n", name, devname, bytes_read, error, retstr)
}'
"$STAP" -e "$script" -c "sh -c 'dd if=/dev/zero of=$f bs=1000 count=3 conv=notrunc status=none &&
  dd if=$f of=/dev/null bs=4096 status=none'"
