#! timeout: 60
# system(cmd) from a begin probe (the interpreter) and from kernel context
# (a record the runtime reads): each command runs in the background under
# sh -c with stap's standard streams and none of the session's other
# descriptors, after the output the script printed before it.  The
# commands outlive stap, so the case waits for both to finish.
out=$CASE_TMP/out
"$STAP" -e '
probe begin {
  printf("begin printed\n")
  system("echo begin command; [ -e /proc/$$/fd/3 ] && echo fd 3 leaked || echo fd 3 closed")
}
global once
probe syscall.getpid {
  if (pid() != target() || once++) next
  printf("getpid printed\n")
  system(sprintf("echo kernel command %s %d", execname(), pid() == target()))
  exit()
}' -c "$LIVE/getpid_loop 3" > "$out"
echo "stap exit $?"
for _ in $(seq 100); do
  # The last line each command prints.
  grep -q '^fd 3' "$out" && grep -q '^kernel command' "$out" && break
  sleep 0.2
done
# The script's line comes before its command's; the two commands race.
awk '/begin printed/ { p = NR } /begin command/ { print "begin order ok", p && p < NR }
     /getpid printed/ { q = NR } /kernel command/ { print "kernel order ok", q && q < NR }' "$out"
grep -v printed "$out" | sort
