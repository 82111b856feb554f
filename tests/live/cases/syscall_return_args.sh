# In syscall.NAME.return the entry's arguments stay readable ($fd, $buf,
# $count of read), with $return and the alias's retval/retstr; the same
# through nd_syscall.*; syscall_any[.return] name the call by number.
printf 'hello\n' > $CASE_TMP/data
$STAP -e '
probe syscall.read.return {
  if (pid() == target() && $count == 64)
    printf("read: fd %d count %d buf %s return %d retval %d retstr %s\n",
           $fd, $count, $buf != 0 ? "set" : "null", $return, retval, retstr)
}
probe nd_syscall.close {
  if (pid() == target() && fd < 0) printf("nd_syscall.close: %s(%s) fd %d\n", name, argstr, fd)
}
probe nd_syscall.close.return {
  # $fd keeps its C type, unsigned int, as in stap.
  if (pid() == target() && retval == -9)
    printf("nd_syscall.close.return: %s = %s $fd %u\n", name, retstr, $fd)
}
probe syscall_any {
  if (pid() == target() && name == "clock_nanosleep")
    printf("syscall_any: %s nr %d\n", name, syscall_nr)
}
probe syscall_any.return {
  if (pid() == target() && name == "clock_nanosleep")
    printf("syscall_any.return: %s nr %d retval %d\n", name, syscall_nr, retval)
}' -c "$LIVE/syscall_calls $CASE_TMP/data"
echo "status $?"
