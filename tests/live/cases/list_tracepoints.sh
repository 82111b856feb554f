# stap -l lists each tracepoint a kernel.trace pattern names on this
# kernel, sorted, as stap does; compared with tracefs's own list.
tracing=/sys/kernel/tracing
[ -r $tracing/available_events ] || mount -t tracefs nodev $tracing
$STAP -l 'kernel.trace("sched:sched_s*")' > $CASE_TMP/listed
grep '^sched:sched_s' $tracing/available_events | LC_ALL=C sort -u |
  sed 's/.*/kernel.trace("&")/' > $CASE_TMP/expected
if [ -s $CASE_TMP/expected ] && cmp -s $CASE_TMP/listed $CASE_TMP/expected; then
  echo "same list"
else
  diff $CASE_TMP/expected $CASE_TMP/listed
fi
# A bare name is searched in every system.
$STAP -l 'kernel.trace("sched_switch")'
