#! timeout: 120
# argstr and retstr of the generated syscall tapset, as stap 4.8 formats
# them, for a fixed sequence of calls (tests/live/workloads/
# syscall_calls.c): openat (a failing one: -2 (ENOENT)), read, write,
# close, futex with and without a timeout, clock_nanosleep.  Addresses and
# the scratch path vary, so they are replaced.
# In the test guest (TCG) it takes 17-29 s on a 2-core host at load 8-11,
# more than the default 30 s deadline at load 17.
printf 'hello\n' > $CASE_TMP/data
$STAP -e '
global on
probe syscall.openat {
  if (pid() == target() && filename == "\"/nonexistent/stap-syscall-marker\"") on = 1
}
probe syscall.openat, syscall.read, syscall.write, syscall.close, syscall.futex,
      syscall.clock_nanosleep {
  if (pid() == target() && on) printf("%s(%s)\n", name, argstr)
}
probe syscall.openat.return, syscall.read.return, syscall.write.return,
      syscall.close.return, syscall.futex.return, syscall.clock_nanosleep.return {
  if (pid() == target() && on) printf("%s = %s\n", name, retstr)
}' -c "$LIVE/syscall_calls $CASE_TMP/data" > $CASE_TMP/out 2>&1
echo "status $?"
sed -e "s|$CASE_TMP|TMP|g" -e 's/0x[0-9a-f]\{6,\}/ADDR/g' $CASE_TMP/out
