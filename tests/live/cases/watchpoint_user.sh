#! needs: hw-breakpoints
#! timeout: 120
# Hardware watchpoints on a user-space variable of the -c target
# (watch_target, built without PIE so `counter` and `bytes` have the same
# address in every run): process.data counts exactly the target's stores
# (.write) or loads and stores (.rw); .length(1) on bytes[1] sees none of
# the stores to bytes[0] beside it, .length(3) on bytes[0] watches 4
# bytes as stap rounds it (bytes[3]'s stores too); kernel.data on the
# same address
# watches every CPU and sees the target's stores among everyone's;
# pp() is stap's rewritten point.  No two watchpoints of one run overlap:
# QEMU's TCG (the test guest) reports one of two debug registers that
# match an access, the kernel then runs only that one's program (real
# hardware, as the host's, reports both).  Then what cannot be: a fifth
# watchpoint on the target (x86 has four debug registers), process.data
# without a target, a kernel symbol kallsyms lacks.
W=$LIVE/watch_target
read counter bytes < <($W addr)
b1=$(printf '0x%x' $((bytes + 1)))

"$STAP" -e 'global n
probe process.data('$counter').length(8).write { if (!n++) println(pp()) }
probe end { printf("writes %d\n", n) }' -c "$W 1000 500 >$CASE_TMP/target.out" | sed "s/($counter)/(COUNTER)/"
# The target's own line after ours: the two processes' writes to one
# pipe have no order of their own (a slow guest once had it first).
cat $CASE_TMP/target.out
"$STAP" -e 'global n
probe process.data('$counter').length(8).rw { n++ }
probe end { printf("reads and writes %d\n", n) }' -c "$W 1000 500"
"$STAP" -e 'global one, two
probe process.data('$b1').write { one++ }
probe process.data('$counter').length(2).write { two++ }
probe end { printf("length 1: %d, 2: %d\n", one, two) }' -c "$W 10 0" | grep -v '^done'
"$STAP" -e 'global four
probe process.data('$bytes').length(3).write { four++ }
probe end { printf("length 3: %d\n", four) }' -c "$W 10 0" | grep -v '^done'
"$STAP" -e 'global n
probe kernel.data('$counter').length(8).write { if (pid() == target() && user_mode()) n++ }
probe end { printf("kernel.data writes %d\n", n) }' -c "$W 700 0" | grep -v '^done'

"$STAP" -e 'global n
probe process.data('$counter').length(8).write, process.data('$bytes').write,
      process.data('$b1').write, process.data('$((bytes + 2))').write,
      process.data('$((bytes + 3))').write { n++ }' -c "$W 10 0" 2>"$CASE_TMP/err"
echo "five watchpoints: exit $?"
grep -o 'no debug register is free' "$CASE_TMP/err"
"$STAP" -e 'probe process.data('$counter').write { println("no target") } probe timer.s(5) { exit() }' \
  2>"$CASE_TMP/err"
echo "no target: exit $?"
grep -o 'process.data watches the -c COMMAND or -x PID target, and there is none' "$CASE_TMP/err"
"$STAP" -e 'probe kernel.data("stap_no_such_symbol").rw { println("hit") } probe timer.s(5) { exit() }' \
  2>"$CASE_TMP/err"
echo "no symbol: exit $?"
grep -o 'probe kernel.data("stap_no_such_symbol").length(1).rw registration failed: invalid symbol' "$CASE_TMP/err"
