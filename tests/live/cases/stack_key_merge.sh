# Stack-coded keys that stand for the same thing are one key, as stap's
# text keys are (loader/key_aliases.h): probefunc() of samples at many
# pcs and stacks of one function, and the same stack taken by two probes
# (whose own frames differ).  Reads sum the entries, statistics merge,
# writes and deletes cover them all.
#! timeout: 60
$STAP -e 'global f, s, n
probe timer.profile {
  if (execname() != "burn_cpu" || !user_mode()) next
  f[probefunc()]++; s[probefunc()] <<< 1; n++
}
probe end {
  foreach (k in f-) { printf("key %s %d %d\n", k, f[k], @count(s[k])); t += f[k] }
  printf("total %d of %d\n", t, n)
  foreach (k in s limit 1) {
    f[k] = 7; printf("set %d\n", f[k]); delete f[k]; printf("deleted %d\n", [k] in f)
  }
}' -c "$LIVE/burn_cpu 1" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
cat $CASE_TMP/err >&2
keys=$(grep -c '^key ' $CASE_TMP/out)
[ "$keys" -ge 2 ] && [ -z "$(awk '$1 == "key" { print $2 }' $CASE_TMP/out | sort | uniq -d)" ] &&
  echo "probefunc(): one key per function"
awk '$1 == "key" && $3 != $4 { bad++ } END { exit bad || !NR }' $CASE_TMP/out &&
  echo "a count and a statistic agree per key"
grep -qE '^total ([0-9]+) of \1$' $CASE_TMP/out && echo "every sample in one of the keys"
grep -qx "set 7" $CASE_TMP/out && grep -qx "deleted 0" $CASE_TMP/out && echo "write and delete cover the aliases"

# The same stack from two probes on one event.
$STAP -e 'global b, n
probe kernel.trace("syscalls:sys_enter_getpid") { if (execname() == "getpid_loop") { b[backtrace()]++; n++ } }
probe kernel.trace("syscalls:sys_enter_getpid") { if (execname() == "getpid_loop") { b[backtrace()]++; n++ } }
probe end { foreach (k in b) { printf("stack %d\n", b[k]); print_stack(k); t += b[k] } printf("total %d of %d\n", t, n) }' \
  -c "$LIVE/getpid_loop 20" > $CASE_TMP/out2 2> $CASE_TMP/err2
echo "status $?"
cat $CASE_TMP/err2 >&2
grep -qE '^total ([0-9]+) of \1$' $CASE_TMP/out2 && echo "two probes: every capture counted"
# Each distinct printed stack once.
awk '/^stack /{ if (s != "") print s; s = ""; next } { s = s $0 "|" } END { if (s != "") print s }' $CASE_TMP/out2 |
  sort | uniq -d | grep -q . || echo "two probes: one key per stack"
grep -q '^stack 40$' $CASE_TMP/out2 && echo "two probes: the getpid stack counted twice per call"
exit 0
