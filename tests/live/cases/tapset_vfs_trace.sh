#! timeout: 60
# vfs.* on the system-call fallback (STAP_KFUNC_MECHANISM=none: any kernel
# takes it): the files come from the task's descriptor table.  A python3
# target opens a file beside the case (on the case directory's file system)
# and one on /dev/shm (tmpfs: no block device, devname N/A), reads them with
# read, pread and readv, writes with write, pwrite and writev; every
# variable is checked against what the target did and against stat(1).
export STAP_KFUNC_MECHANISM=none
disk=$CASE_TMP/on_disk shm=/dev/shm/stap_vfs_trace.$$
trap 'rm -f "$shm"' EXIT
head -c 3000 /dev/zero > "$disk"; head -c 700 /dev/zero > "$shm"
ino_disk=$(stat -c %i "$disk") ino_shm=$(stat -c %i "$shm")
read -r maj min < <(stat -c '%Hd %Ld' "$disk")
read -r shm_maj shm_min < <(stat -c '%Hd %Ld' "$shm")
# The block device the disk file lives on, "N/A" for none (overlayfs,
# 9p ...), as the tapset names it.
devname=N/A
if [ -e "/sys/dev/block/$maj:$min/uevent" ]; then
  devname=$(sed -n 's/^DEVNAME=//p' "/sys/dev/block/$maj:$min/uevent")
fi
workload="import os
a = os.open('$disk', os.O_RDWR); b = os.open('$shm', os.O_RDONLY)
os.read(a, 1000); os.pread(a, 500, 2000); os.readv(a, [bytearray(100), bytearray(50)])
os.read(b, 4096)
os.lseek(a, 0, 0); os.write(a, b'x' * 10); os.pwrite(a, b'y' * 20, 100)
os.writev(a, [b'a' * 3, b'b' * 4])
os.close(a); os.close(b)"
script='
# A file is known by device and inode: an inode number alone recurs
# across file systems (python3 opens its library while starting).
function which:string (dev:long, ino:long) {
  if (ino == '$ino_disk' && MAJOR(dev) == '$maj' && MINOR(dev) == '$min') return "disk"
  if (ino == '$ino_shm' && MAJOR(dev) == '$shm_maj' && MINOR(dev) == '$shm_min') return "shm"
  return ""
}
function which_file:string (file:long) { return which(__file_dev(file), __file_ino(file)) }
probe vfs.open { if (pid() == target() && which_file(file_of(path)) != "")
  printf("%s %s pathname ok %d cred %d argstr %d\n", name, which_file(file_of(path)),
         pathname == "on_disk" || pathname == "'${shm##*/}'",
         cred != 0, argstr == sprintf("%s, %p", pathname, cred)) }
function file_of:long (path:long) { return path - @offsetof("file", f_path) }
probe vfs.open.return { if (pid() == target() && which_file(file_of(path)) != "")
  printf("%s.return %s ret %d retstr %s error %d\n", name, which_file(file_of(path)),
         ret, retstr, error) }
function show_read(name:string, w:string, devname:string, dev:long, asked:long, pos:long,
                   argstr_ok:long) {
  printf("%s %s devname ok %d dev ok %d asked %d pos %s argstr %d\n", name, w,
         devname == (w == "shm" ? "N/A" : "'$devname'"),
         w == "shm" || (MAJOR(dev) == '$maj' && MINOR(dev) == '$min'),
         asked, pos ? sprintf("f_pos %d", kernel_long(pos)) : "0", argstr_ok)
}
probe vfs.read { w = which(dev, ino); if (pid() == target() && w != "")
  show_read(name, w, devname, dev, bytes_to_read, pos,
            argstr == sprintf("%d, %d, %p", bytes_to_read, pos, buf)) }
probe vfs.readv { w = which(dev, ino); if (pid() == target() && w != "")
  show_read(name, w, devname, dev, bytes_to_read, pos,
            argstr == sprintf("%d, %d, %p", bytes_to_read, pos, vec)) }
probe vfs.read.return, vfs.readv.return {
  w = which(dev, ino); if (pid() != target() || w == "") next
  printf("%s.return %s read %d ret %d error %d\n", name, w, bytes_read, ret, error)
}
probe vfs.write, vfs.writev {
  if (pid() != target() || which(dev, ino) != "disk") next
  printf("%s asked %d pos %s\n", name, bytes_to_write,
         pos ? sprintf("f_pos %d", kernel_long(pos)) : "0")
}
probe vfs.write.return, vfs.writev.return {
  if (pid() == target() && which(dev, ino) == "disk")
    printf("%s.return wrote %d\n", name, bytes_written)
}'
"$STAP" -e "$script" -c "python3 -c \"$workload\""
