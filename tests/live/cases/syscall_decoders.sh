# Decoded arguments as stap 4.8 shows them (tests/live/workloads/
# syscall_more.c): pipe2/dup3 open flags, fcntl commands, rt_sigaction's
# struct sigaction, rt_sigprocmask's signal set, wait4 options, socket
# family/type/protocol, sendto's flags and AF_INET address, shutdown,
# execve's argument and environment lists.  Addresses vary: replaced.
$STAP -e '
global on
probe syscall.openat {
  if (pid() == target() && filename == "\"/nonexistent/stap-syscall-marker\"") on = 1
}
probe syscall.pipe2, syscall.dup3, syscall.fcntl, syscall.rt_sigaction,
      syscall.rt_sigprocmask, syscall.wait4, syscall.socket, syscall.sendto,
      syscall.shutdown, syscall.execve {
  if (pid() == target() && on) printf("%s(%s)\n", name, argstr)
}
probe syscall.pipe2.return, syscall.dup3.return, syscall.fcntl.return,
      syscall.wait4.return, syscall.sendto.return, syscall.execve.return {
  if (pid() == target() && on) printf("%s = %s\n", name, retstr)
}' -c "$LIVE/syscall_more" > $CASE_TMP/out 2>&1
echo "status $?"
sed -e 's/0x[0-9a-f]\{6,\}/ADDR/g' $CASE_TMP/out
