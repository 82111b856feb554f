# timer.profile with stack keys on a program burning CPU in known
# functions (tests/live/workloads/burn_cpu.c, frame pointers): user frames
# named through its mappings after it exited, in stap's print_ustack
# format; --folded stacks root first; kernel stacks from a tracepoint
# symbolized by kallsyms; stack keys aggregate (counts add up).
#! timeout: 60
script='global u, k, samples
probe timer.profile {
  if (pid() != target()) next
  samples++
  if (user_mode()) u[ubacktrace()] <<< 1
}
probe kernel.trace("syscalls:sys_enter_exit_group") {
  if (pid() == target()) k[backtrace()] <<< 1
}
probe end {
  total = 0
  foreach (s in u) total += @count(u[s])
  foreach (ks in k) total += @count(k[ks])
  printf("samples %d stacks %d\n", samples, total)
  foreach (s in u- limit 1) print_ustack(s)
  foreach (ks in k- limit 1) print_stack(ks)
}'
$STAP --folded=$CASE_TMP/folded -e "$script" -c "$LIVE/burn_cpu 2" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
grep -v "dev.stp\|parse error" $CASE_TMP/err >&2
read _ samples _ stacks < <(grep '^samples' $CASE_TMP/out)
[ "$samples" -gt 20 ] && echo "sampled the burner"
# User samples, plus the one exit_group stack.
[ "$stacks" -gt 1 ] && [ "$stacks" -le $((samples + 1)) ] && echo "user samples counted once each"
grep -qE '^ 0x[0-9a-f]+ : burn_leaf_[ab]\+0x[0-9a-f]+/0x[0-9a-f]+ \[/.*/burn_cpu\]$' $CASE_TMP/out &&
  echo "leaf frame named with its binary"
grep -qE '^ 0x[0-9a-f]+ : main\+0x[0-9a-f]+/0x[0-9a-f]+ \[/.*/burn_cpu\]$' $CASE_TMP/out &&
  echo "main named"
grep -qE '^ 0xffffffff[0-9a-f]+ : [a-z_0-9.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\]$' $CASE_TMP/out &&
  echo "kernel frames named"
a=$(grep -E ';main;burn_outer;burn_leaf_a [0-9]+$' $CASE_TMP/folded | awk '{s += $NF} END {print s+0}')
b=$(grep -E ';main;burn_other;burn_leaf_b [0-9]+$' $CASE_TMP/folded | awk '{s += $NF} END {print s+0}')
all=$(awk '{s += $NF} END {print s+0}' $CASE_TMP/folded)
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && echo "folded stacks root first"
# Nearly every user sample is in one of the two leaves (or the callees).
[ "$all" -gt 0 ] && [ $(( (a + b) * 10 )) -ge $(( all * 7 )) ] && echo "the leaves hold most samples"
[ "$all" -eq "$stacks" ] && echo "folded counts equal the aggregates"
exit 0
