#! needs: stapbpf
# A compiled object with a kernel probe, run by stapbpf.
cd "$CASE_TMP"
export SYSTEMTAP_DIR=$CASE_TMP/stapdir
$STAP -p4 -m live_tp -e 'global n
probe kernel.trace("sched:sched_switch") { n++ }
probe timer.ms(300) { printf("switches %d\n", n > 0); exit() }' > /dev/null
$STAPBPF live_tp.bo
echo "stapbpf status $?"
