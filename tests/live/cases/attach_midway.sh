#! needs: stapbpf
# An attach that fails midway: an object whose uprobe's binary is gone
# when stapbpf attaches it (the tracepoint before it in the object is
# attached by then).  The session names the probe and the cause, exits 1,
# and leaves no program, map or link behind (bpf_leftovers checks after
# the case).  begin probes run before the attach, as stap's module runs
# them before registering the others, so "begin" is printed.
cd "$CASE_TMP" || exit 1
cp "$LIVE/getpid_loop" victim
$STAP -p4 -m midway -e 'probe kernel.trace("syscalls:sys_enter_getpid") { println("x") }
  probe process("'$CASE_TMP'/victim").function("main") { println("main") }
  probe begin { println("begin") }' >/dev/null || exit 1
rm victim
$STAPBPF midway.bo 2>&1
echo "status $?"
