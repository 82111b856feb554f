#! needs: kallsyms-data
#! needs: hw-breakpoints
#! timeout: 120
# kernel.data on a kernel variable, pid_max, written through its sysctl:
# by its symbol (looked up in kallsyms at attach) and by the address
# kallsyms gives, .length(4) for the int.  The one store is the writer's
# (sh's echo), seen in the kernel (user_mode() 0) with the sysctl
# handler on the kernel stack; .rw also sees cat's load when it reads
# the file.  The value written is the one there, so nothing changes.
# One watchpoint a run: QEMU's TCG reports one of two that match.
f=/proc/sys/kernel/pid_max
addr=0x$(awk '$3 == "pid_max" { print $1; exit }' /proc/kallsyms)
rewrite="sh -c 'v=\$(cat $f); echo \$v > $f'"
"$STAP" -e 'global w, stacks
probe kernel.data("pid_max").write {
  w[execname(), user_mode()]++
  if (!stacks++) { print_backtrace(); printf("\n") }
}
probe end { foreach ([e, u] in w) printf("symbol: %s user_mode %d: %d\n", e, u, w[e, u]) }' \
  -c "$rewrite" > "$CASE_TMP/out" 2>"$CASE_TMP/err"
echo "write: exit $?"
grep -v '^ ' "$CASE_TMP/out" | grep -v '^$'
grep -q 'proc_do' "$CASE_TMP/out" && echo "the stack has the sysctl handler"
"$STAP" -e 'global w
probe kernel.data('$addr').length(4).write { w[execname()]++ }
probe end { foreach (e in w) printf("address: %s %d\n", e, w[e]) }' -c "$rewrite"
"$STAP" -e 'global r
probe kernel.data("pid_max").rw { r[execname()]++ }
probe end { printf("rw: cat %s\n", r["cat"] ? "read it" : "did not") }' \
  -c "cat $f" | grep -v '^[0-9]'
