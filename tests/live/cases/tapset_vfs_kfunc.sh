#! needs: kfunc
#! timeout: 300
# vfs.read/.return and vfs.write on kernel functions (the test guest): cat
# reads a file on ext4 on a RAM disk (brd: devname ram0) and one on tmpfs
# (no block device: devname N/A); a second cat writes them to a file on
# the RAM disk.
modprobe brd rd_nr=1 rd_size=8192 && modprobe ext4 &&
  mkfs.ext4 -q -F /dev/ram0 && mkdir -p "$CASE_TMP/m" && mount /dev/ram0 "$CASE_TMP/m" ||
  { echo "no RAM disk with ext4"; exit 1; }
trap 'umount "$CASE_TMP/m"; rmmod brd' EXIT
printf 'on the ram disk\n' > "$CASE_TMP/m/a"
printf 'on tmpfs\n' > "$CASE_TMP/b"
major=$(stat -c %t /dev/ram0); major=$((0x$major))
ia=$(stat -c %i "$CASE_TMP/m/a"); ib=$(stat -c %i "$CASE_TMP/b")
script='probe vfs.read.return {
  # An inode number alone recurs across file systems: the name and the
  # device tell the two files from the libraries cat opens.
  if (execname() != "cat" || bytes_read <= 0) next
  if (!(ino == '$ia' && devname == "ram0") && !(ino == '$ib' && __file_filename(file) == "b")) next
  printf("%s %s %s read %d, asked %d, error %d, ret %s\n", name, devname,
         __file_filename(file), bytes_read, bytes_to_read > 0, error, retstr)
}
probe vfs.read {
  if (execname() == "cat" && ino == '$ia' && devname == "ram0")
    printf("%s: dev is ram0 %d, argstr %d\n", name, MAJOR(dev) == '$major' && MINOR(dev) == 0,
           argstr == sprintf("%d, %d, %p", bytes_to_read, pos, buf))
}
global written
probe vfs.write {
  if (execname() == "cat" && devname == "ram0" && name == "vfs.write" && __file_filename(file) == "out")
    written += bytes_to_write
}
probe end { printf("vfs.write ram0 out %d bytes\n", written) }'
# Through a pipe: cat copies file to file on one file system with
# copy_file_range, without vfs_read.
"$STAP" -e "$script" -c "sh -c 'cat $CASE_TMP/m/a $CASE_TMP/b | cat > $CASE_TMP/m/out'"
