# procfs("PATH").read/.write served as FIFOs under
# /var/tmp/systemtap-$USER/MODULE: cat gets what the read probe set ($value
# = and .=), echo > runs the write probe, modes follow .umask, .maxsize
# cuts with stap's error, paths with directories work, and every FIFO and
# directory is gone after exit(), SIGTERM and a killed session's rerun; a
# second session of the same module is refused.
#! timeout: 60
cd "$CASE_TMP"
dir=/var/tmp/systemtap-$(id -un)/live_procfs
wait_for() { for _ in $(seq 200); do [ -p "$1" ] && return; sleep 0.05; done; echo "no FIFO $1"; }
gone() { [ -e "$dir" ] && { echo "left behind:"; find "$dir"; } || echo "$1: nothing left"; }

cat > served.stp <<'STP'
global saved = "100\n", reads
probe procfs("value").read { reads++; $value = saved; $value .= sprintf("read %d\n", reads) }
probe procfs("value_in").umask(0002).write { saved = $value; printf("wrote %s", $value) }
probe procfs("deep/er/file").read.maxsize(8) { $value = "1234567" }
probe procfs("cut").read.maxsize(4) { $value = "abcdef" }
probe procfs("stop").write { println("stopping"); exit() }
probe end { printf("end: saved %s", saved) }
STP
$STAP -m live_procfs served.stp > out 2> err &
pid=$!
wait_for "$dir/stop"
stat -c '%n %A' "$dir/value" "$dir/value_in" "$dir/deep/er/file" | sed "s|$dir/||"
cat "$dir/value"
echo hello > "$dir/value_in"
sleep 0.3
cat "$dir/value"
cat "$dir/deep/er/file"; echo
$STAP -m live_procfs -e 'probe procfs("x").read { $value = "x" }' 2>&1 | grep -c "in use by another stap session"
echo bye > "$dir/stop"
wait $pid; echo "status $?"
cat out
gone "after exit()"
# .maxsize(4): the text is cut to 3 bytes and the error ends the session.
$STAP -m live_procfs served.stp > out 2> err &
pid=$!
wait_for "$dir/cut"
cat "$dir/cut"; echo
wait $pid; echo "status $?"
grep -o "buffer size exceeded, consider .maxsize(7)." err
gone "after an error"
# SIGTERM, and a rerun right after SIGKILL (its FIFOs left or already reaped).
$STAP -m live_procfs served.stp > out 2> err &
pid=$!
wait_for "$dir/value"
kill -TERM $pid; wait $pid
gone "after SIGTERM"
$STAP -m live_procfs served.stp > out 2> err &
pid=$!
wait_for "$dir/value"
kill -KILL $pid; wait $pid 2>/dev/null
# (the reaper may or may not have removed the FIFOs by now: procfs_killed
# checks that it does; here the rerun must start whichever it finds)
$STAP -m live_procfs served.stp > out 2> err &
pid=$!
sleep 0.5; wait_for "$dir/stop"
cat "$dir/value"
echo x > "$dir/stop"
wait $pid; echo "status $?"
gone "after the rerun"
