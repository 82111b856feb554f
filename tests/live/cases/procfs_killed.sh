#! timeout: 60
# A session killed with SIGKILL cannot clean up after itself: the kernel
# frees its programs, maps and links with its descriptors (bpf_leftovers
# checks), and its procfs FIFOs go with the child that waits for it to
# end (procfs_files.cpp's reaper); a new session then starts clean.
cd "$CASE_TMP"
dir=/var/tmp/systemtap-$(id -un)/procfs_killed
# wait_for FILE TEXT: until FILE holds TEXT (20 s at most)
wait_for() { for _ in $(seq 400); do grep -q "$2" "$1" 2>/dev/null && return; sleep 0.05; done; }
$STAP -m procfs_killed -e 'probe procfs("kill_me").read { $value = "x\n" }
  probe kernel.trace("syscalls:sys_enter_getpid") { n++ } global n
  probe begin { println("ready") }' >out 2>err &
stap=$!
wait_for out ready
[ -p "$dir/kill_me" ] && echo "served"
kill -KILL $stap; wait $stap 2>/dev/null
# (the dying process first closes its links: tens of ms each on a busy machine)
for _ in $(seq 400); do [ -e "$dir" ] || break; sleep 0.05; done
[ -e "$dir" ] && echo "left behind: $(ls -A "$dir")" || echo "removed"
$STAP -m procfs_killed -e 'probe procfs("kill_me").read { $value = "again\n" }
  probe begin { println("ready") }' >out2 2>err2 &
stap=$!
wait_for out2 ready
timeout 20 cat "$dir/kill_me"
kill -INT $stap; wait $stap
echo "status $?"
[ -e "$dir" ] && echo "left behind after SIGINT" || echo "removed after SIGINT"
cat err err2
