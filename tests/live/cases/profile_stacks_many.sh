# Many distinct stacks, every one kept apart and counted: stack_paths
# (tests/live/workloads/stack_paths.c) makes each of the 2046 call chains
# of 1 to 10 levels of step_a/step_b enter getppid 1 to 3 times, 4093
# calls in all.  The kernel's stack-trace map (no chaining) lost about a
# hundred of these stacks to bucket collisions; the engine's own stack
# storage (bpf_runtime/stacks.c) must give 2046 distinct stack keys
# whose counts add up to the calls, none lost, and the folded stacks
# must spell out every one of the 2046 patterns.
#! timeout: 90
script='global u, calls
probe kernel.trace("syscalls:sys_enter_getppid") {
  if (pid() != target()) next
  calls++
  u[ubacktrace()] <<< 1
}
probe end {
  distinct = 0; total = 0; empty = 0
  foreach (s in u) {
    distinct++; total += @count(u[s])
    if (s == "") empty += @count(u[s])
  }
  printf("calls %d distinct %d total %d empty %d\n", calls, distinct, total, empty)
}'
# The end probe visits 2046 keys: more than MAXACTION (1000) statements.
# A key's text must hold its whole stack (13 addresses of 15 characters),
# else two stacks alike in their first MAXSTRINGLEN bytes look up as one.
$STAP -D MAXACTION=100000 -D MAXSTRINGLEN=256 --folded=$CASE_TMP/folded -e "$script" -c "$LIVE/stack_paths 10 3" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
grep -v "dev.stp\|parse error" $CASE_TMP/err >&2
cat $CASE_TMP/out
# Each folded line's chain of steps below main, as a pattern of a and b:
# every pattern of 1..10 letters once, the counts adding up to the calls.
awk '{ n = split($1, f, ";"); p = ""; seen = 0
       for (i = 1; i <= n; i++) {
         if (f[i] == "main") seen = 1
         else if (seen && f[i] == "step_a") p = p "a"
         else if (seen && f[i] == "step_b") p = p "b"
       }
       print p, $NF }' $CASE_TMP/folded | sort > $CASE_TMP/patterns
patterns=$(cut -d' ' -f1 $CASE_TMP/patterns | sort -u | grep -c .)
[ "$patterns" -eq 2046 ] && echo "2046 patterns in the folded stacks"
awk '$2 < 1 || $2 > 3 || length($1) < 1 || length($1) > 10 { bad++ } { sum += $2 }
     END { exit bad > 0 || sum != 4093 }' $CASE_TMP/patterns &&
  echo "each pattern 1 to 10 steps, called 1 to 3 times, 4093 calls in all"
exit 0
