#! timeout: 60
# User reads that fault at a system call's entry (a path on a page the
# task never touched: cold_paths maps each on its own and opens it
# unread) wait for the call's exit and read it then: stap's one-liners
# print every path and exit 0, with the kept runs counted under -v.  A
# read after the body has printed cannot wait: stap's fallback, counted
# in a warning.  The kept entry runs before the call's return probe.
cd "$CASE_TMP"
run() { $STAP "$@" 2>run.err; echo "status $?"; grep -v "^Pass 5: run completed" run.err | sed 's/^WARNING: /warning: /'; }
echo "== kernel.trace one-liner"
run -v -e 'probe kernel.trace("syscalls:sys_enter_openat") { if (pid() == target()) printf("%s\n", user_string($filename)) }' \
  -c "$LIVE/cold_paths $CASE_TMP 6" | grep -v "^Pass [1-4]\|/ld.so.cache\|libc.so\|cold_names" |
  sed -E 's/^Pass 5: ([6-9]|1[0-9]) probe runs/Pass 5: 6 or more probe runs/'
# (the dynamic loader's own opens may fault too)
echo "== syscall.openat, quoted"
run -e 'probe syscall.openat { if (pid() == target()) println(filename) }' -c "$LIVE/cold_paths $CASE_TMP 3" \
  | grep -v "/ld.so.cache\|libc.so\|cold_names"
echo "== a number, and user_string_warn: no warning"
run -e 'probe syscall.openat { if (pid() == target()) printf("%c %s\n", user_char($filename), user_string_warn($filename)) }' \
  -c "$LIVE/cold_paths $CASE_TMP 2" | grep -v "/ld.so.cache\|libc.so\|^/ /tmp"
echo "== compared and stored, then the return probe"
run -e 'global cold, paths
        probe syscall.openat { if (pid() == target() && user_string($filename) == "/etc/hostname") { cold[tid()] = 1; paths[user_string($filename)]++; println("entry") } }
        probe syscall.openat.return { if (cold[tid()]) { printf("return %s\n", $return < 0 ? "error" : "fd"); delete cold[tid()] } }
        probe end { foreach (p in paths) printf("%s %d\n", p, paths[p]) }' \
  -c "$LIVE/cold_paths $CASE_TMP 2"
echo "== printed first: the fallback, counted"
run -e 'probe syscall.openat { if (pid() == target()) { printf("> "); println(user_string($filename, "<unread>")) } }' \
  -c "$LIVE/cold_paths $CASE_TMP 2" | grep -v "/ld.so.cache\|libc.so\|cold_names"
echo "== three probes on one call: each waits in a place of its own, run in order"
run -e 'probe syscall.openat { if (pid() == target()) println("A ", filename) }
        probe kernel.trace("syscalls:sys_enter_openat") { if (pid() == target()) printf("B %s\n", user_string($filename)) }
        probe syscall.openat { if (pid() == target()) println("C ", filename) }' \
  -c "$LIVE/cold_paths $CASE_TMP 2" | grep -v "/ld.so.cache\|libc.so\|cold_names"
