# The dentry tapset (tapsets/dentry.stp) against the kernel's own names.
#
# begin and end (the runtime's reads): the cwd of stap, started in a
# directory of the case, through fullpath_struct_path(task_cwd_path()),
# d_path() and fullpath_struct_nameidata() of a nameidata made around
# that struct path (a "/" added), d_name, reverse_path_walk (the path
# below the file system's mount point, no leading "/"), inode_path and
# inode_name of its inode; "<unknown>" for a vfsmount of 0.
#
# syscall.close (BPF): a workload opens files of every kind on fds
# 20..30 and closes them; the probe takes each struct file from the
# task's descriptor table (task->files->fdt->fd[fd]) and prints
# fullpath_struct_file(), compared here with readlink(/proc/self/fd/N)
# as the workload read it just before: a file, a pipe ("pipe:[INO]"), a
# socket ("socket:[INO]"), a namespace ("net:[INO]"), an eventfd (stap
# writes "ANON_INODE:[eventfd]" where the kernel says "anon_inode:"), a
# file through a bind mount, one on a tmpfs mounted over another tmpfs,
# /dev/null (devtmpfs), a file deleted while open (stap's walk has no
# " (deleted)"), a directory, and a file 100 names deep, whose path is
# cut at MAXSTRINGLEN keeping its start, as stap's.  For the file and the
# stacked tmpfs's file also d_name, reverse_path_walk, inode_path and
# inode_name (each in a probe of its own: the verifier's budget).  A
# chrooted run (the test guest's) sees stap's paths from the namespace's
# root, readlink's from the chroot's: the difference is the chroot's place.
#
# Errors: d_name(0) in begin and fullpath_struct_file(task, 0) in a
# syscall probe end the session with the read fault error, status 1; a
# file 300 names deep with the tapset's walk bound (256 steps).
#! timeout: 120
#! needs: command python3
cd "$CASE_TMP" || exit 1
top=$CASE_TMP/tree
mkdir -p "$top/cwd/a b/c" "$top/files" "$top/stack" "$top/c" "$top/bind" || exit 1
# 100 names below $top (a path longer than MAXSTRINGLEN), and 300.
deep=$top/deep; for i in $(seq 100); do deep=$deep/dd; done
vdeep=$top/vdeep; for i in $(seq 300); do vdeep=$vdeep/x; done
mkdir -p "$deep" "$vdeep" && echo d > "$deep/f" && echo v > "$vdeep/f" || exit 1
echo data > "$top/files/data.txt"
echo gone > "$top/files/gone.txt"
# A tmpfs mounted over another (two crossings at one place), and a bind
# mount of a directory of a third tmpfs (the mount's root is not its
# file system's).  Own file systems, so no other mount of theirs exists.
cleanup() {
  umount "$top/bind" 2>/dev/null; umount "$top/c" 2>/dev/null
  umount "$top/stack" 2>/dev/null; umount "$top/stack" 2>/dev/null
}
trap cleanup EXIT
mount -t tmpfs dentry_lower "$top/stack" && mount -t tmpfs dentry_upper "$top/stack" &&
  mkdir "$top/stack/d" && echo f > "$top/stack/d/f.txt" &&
  mount -t tmpfs dentry_c "$top/c" && mkdir "$top/c/sub" && echo g > "$top/c/sub/g.txt" &&
  mount --bind "$top/c/sub" "$top/bind" || { echo "cannot mount the case's tmpfs"; exit 1; }

# stap's walk goes on past the root of a chrooted task (its own test of
# task_dentry_path wants the namespace's path there), so where the suite
# runs chrooted (the test guest, at its 9p mount /newroot) every path
# starts with the root's place, which pid 1's mountinfo shows: the mount
# of our root's device whose root is its file system's.
pre=$(awk -v dev="$(stat -c '%Hd:%Ld' /)" '$3 == dev && $4 == "/" { print $5; exit }' /proc/1/mountinfo)
[ "$pre" = / ] && pre=

norm() {  # the case's directory as TOP, inode numbers and pids as N
  sed -e "s|$top|TOP|g" -e 's/:\[[0-9]*\]/:[N]/' -e 's|^/proc/[0-9]*/|/proc/PID/|'
}
# The path below the mount point of the file system holding $1.
below_mount() {
  local m; m=$(stat -c %m "$1")
  local r=${1#"$m"}; echo "${r#/}"
}

# --- begin and end: stap's own cwd
cwd="$top/cwd/a b/c"
(cd "$cwd" && "$STAP" -e '
function show(where) {
  p = task_cwd_path(task_current())
  d = @cast(p, "path", "kernel")->dentry
  i = @cast(d, "dentry", "kernel")->d_inode
  nd = p - @offsetof("nameidata", path)
  printf("%s cwd %s\n", where, fullpath_struct_path(p))
  printf("%s d_path %s\n", where, d_path(nd))
  printf("%s nameidata %s\n", where, fullpath_struct_nameidata(nd))
  printf("%s d_name %s\n", where, d_name(d))
  printf("%s rpw %s\n", where, reverse_path_walk(d))
  printf("%s inode_path %s\n", where, inode_path(i))
  printf("%s inode_name %s\n", where, inode_name(i))
  printf("%s nomount %s\n", where, task_dentry_path(task_current(), d, 0))
  printf("%s real_mount %d %d\n", where, real_mount(0), real_mount(16))
}
probe begin { show("begin") }
probe end { show("end") }
probe timer.ms(100) { exit() }' > "$CASE_TMP/begin.out" 2> "$CASE_TMP/begin.err") || { cat begin.err; exit 1; }
want_rpw=$(below_mount "$cwd")
while read -r where what rest; do
  case $what in
    cwd|inode_path) [ "$rest" = "$pre$cwd" ] && rest="= cwd" ;;
    d_path|nameidata) [ "$rest" = "$pre$cwd/" ] && rest="= cwd/" ;;
    rpw|inode_name) [ "$rest" = "$want_rpw" ] && rest="= cwd below its mount point" ;;
  esac
  echo "$where $what $rest"
done < begin.out | norm

# --- syscall.close on the workload's descriptors
cat > work.py <<'EOF'
import os, socket, sys
top = sys.argv[1]
fds = [os.open(top + "/files/data.txt", os.O_RDONLY)]
r, w = os.pipe()
fds.append(r)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
fds.append(s.fileno())
fds.append(os.open("/proc/self/ns/net", os.O_RDONLY))
fds.append(os.eventfd(0))
fds.append(os.open(top + "/bind/g.txt", os.O_RDONLY))
fds.append(os.open(top + "/stack/d/f.txt", os.O_RDONLY))
fds.append(os.open("/dev/null", os.O_RDONLY))
fds.append(os.open(top + "/files/gone.txt", os.O_RDONLY))
os.unlink(top + "/files/gone.txt")
fds.append(os.open(top + "/cwd", os.O_RDONLY | os.O_DIRECTORY))
fds.append(os.open(top + "/deep/" + "dd/" * 100 + "f", os.O_RDONLY))
with open(top + "/../want", "w") as out:
    for n, fd in enumerate(fds):
        os.dup2(fd, 20 + n)
        out.write("%d %s\n" % (20 + n, os.readlink("/proc/self/fd/%d" % (20 + n))))
for n in range(len(fds)):
    os.close(20 + n)
EOF
"$STAP" -o close.out -e '
function file_of(fd) {
  fdt = @cast(@cast(task_current(), "task_struct", "kernel")->files, "files_struct", "kernel")->fdt
  return @cast(fdt, "fdtable", "kernel")->fd[fd]
}
probe syscall.close {
  if (pid() != target() || fd < 20 || fd > 30) next
  printf("path %d %s\n", fd, fullpath_struct_file(task_current(), file_of(fd)))
}
probe syscall.close {
  if (pid() != target() || (fd != 20 && fd != 26)) next
  d = @cast(file_of(fd), "file", "kernel")->f_path->dentry
  printf("d_name %d %s\n", fd, d_name(d))
  printf("rpw %d %s\n", fd, reverse_path_walk(d))
}
function inode_of(fd) {
  return @cast(@cast(file_of(fd), "file", "kernel")->f_path->dentry, "dentry", "kernel")->d_inode
}
probe syscall.close {
  if (pid() == target() && (fd == 20 || fd == 26)) printf("inode_path %d %s\n", fd, inode_path(inode_of(fd)))
}
probe syscall.close {
  if (pid() == target() && (fd == 20 || fd == 26)) printf("inode_name %d %s\n", fd, inode_name(inode_of(fd)))
}' -c "python3 $CASE_TMP/work.py $top" 2> close.err || { cat close.err; exit 1; }
declare -A want
while read -r fd text; do want[$fd]=$text; done < want
kinds=(file pipe socket netns eventfd bind stacked devnull deleted directory deep)
data_below=$(below_mount "$top/files/data.txt")
# The probes' lines in a fixed order (two probes' lines may interleave).
for what in path d_name rpw inode_path inode_name; do grep "^$what " close.out | sort -n -k2; done |
while read -r what fd text; do
  kind=${kinds[fd - 20]}
  w=${want[$fd]}
  [[ $w == /* ]] && w=$pre$w
  case $kind in
    eventfd) w=${w/#anon_inode:/ANON_INODE:} ;;
    deleted) w=${w% (deleted)} ;;
    deep) w=${w:0:127} ;;  # cut at MAXSTRINGLEN (128) as stap cuts it
  esac
  case $what in
    path|inode_path)
      if [ "$text" = "$w" ]; then
        case $kind in
          eventfd) text="$text (= readlink, anon_inode: as ANON_INODE:)" ;;
          deleted) text="${text#"$pre"} (= readlink less \" (deleted)\")" ;;
          deep) text="${#text} bytes (= readlink's first 127)" ;;
          *) text="${text#"$pre"} (= readlink)" ;;
        esac
      fi ;;
    rpw|inode_name)
      if [ "$kind" = file ]; then [ "$text" = "$data_below" ] && text="= below its mount point"; fi ;;
  esac
  echo "$what $fd $kind $text"
done | norm

# --- bad pointers
fault() { grep -o 'ERROR: read fault .* at 0x[0-9a-f]*' "$1" | head -1 | sed 's/0x[0-9a-f]*$/0xADDR/'; }
"$STAP" -e 'probe begin { println(d_name(0)) }' > bad1.out 2> bad1.err
echo "d_name(0) in begin: status $? $(fault bad1.err)"
"$STAP" -e 'probe syscall.close { if (pid() == target()) println(fullpath_struct_file(task_current(), 0)) }' \
  -c /bin/true > bad2.out 2> bad2.err
echo "fullpath_struct_file(t, 0) in syscall.close: status $? $(fault bad2.err)"
# A walk of more than 256 steps (300 names) is an error, not a cut path.
cat > deep.py <<'EOF'
import os, sys
os.dup2(os.open(sys.argv[1], os.O_RDONLY), 20)
os.close(20)
EOF
"$STAP" -e 'probe syscall.close {
  if (pid() != target() || fd != 20) next
  fdt = @cast(@cast(task_current(), "task_struct", "kernel")->files, "files_struct", "kernel")->fdt
  println(fullpath_struct_file(task_current(), @cast(fdt, "fdtable", "kernel")->fd[fd]))
}' -c "python3 $CASE_TMP/deep.py $vdeep/f" > bad3.out 2> bad3.err
echo "300 names: status $? $(grep -o 'ERROR: dentry walk longer than 256 steps' bad3.err | head -1)"
cat bad1.out bad2.out bad3.out
