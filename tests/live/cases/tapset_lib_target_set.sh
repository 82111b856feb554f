# target_set.stp over a -c shell that forks two children: while they
# sleep the set is the shell (begat by stap), and both children (begat by
# the shell); target_set_pid() holds for their writes and not for this
# shell's; after they all end the set is empty again.
#! timeout: 60
cd "$CASE_TMP"
cat > ts.stp <<'STP'
global writers
probe syscall.write { if (target_set_pid(pid())) writers[pid()] = ppid() }
global shown
probe timer.ms(1500) { if (shown++) next; printf("target %d stap %d\n", target(), stp_pid()); target_set_report() }
probe end {
  foreach (p in writers+) printf("writer %d of %d\n", p, writers[p])
  target_set_report()
}
STP
$STAP ts.stp -c "sh -c 'sleep 3 & sleep 3 & echo hi; wait'" > out 2> err
echo "status $?"
read -r _ t _ s < <(grep '^target' out)
# The report at 1.5 s: the shell and its two sleeps, by pid.
kids=$(awk -v t="$t" '$2 == "begat" && $1 == t { print $3 }' out | sort -u | wc -l)
echo "children of the shell: $kids"
grep -q "^$s begat $t\$" out && echo "the shell begat by stap"
awk '/^target set:/ { n++ } END { print n " reports" }' out
# The end report: nothing after its header.
tail -n1 out
# The writer is the shell itself (echo is built in), child of stap.
grep '^writer' out | sed "s/^writer $t of $s\$/writer: the shell/"
grep -E 'ERROR|WARNING' err || true
