# -c scoping: bare process probes see only the command's process tree.  An
# outside process keeps running /bin/true meanwhile (a counter file proves
# it ran); its begins, ends and system calls must not show.
outside() {
  local end=$((SECONDS + 4))
  while [ $SECONDS -lt $end ]; do /bin/true; echo x >> $CASE_TMP/ran; sleep 0.02; done
}
outside &
outside_pid=$!
sleep 0.2
# ("stap" is the -c child before its exec, seen or not by timing.)
script='global names, calls
probe process.begin { if (execname() != "stap") names[execname()]++ }
probe process.end { names[execname()]++ }
probe process.syscall { if (execname() != "stap") calls[execname()]++ }
probe end {
  foreach (n in names+) printf("begin/end %s\n", n)
  foreach (n in calls+) printf("syscalls %s\n", n)
}'
$STAP -e "$script" -c "sh -c 'sleep 0.5; /bin/echo inside >/dev/null; exit 0'" > $CASE_TMP/out
wait $outside_pid
[ -s $CASE_TMP/ran ] && echo "the outside process ran"
sort $CASE_TMP/out
