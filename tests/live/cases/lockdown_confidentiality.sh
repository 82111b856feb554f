#! needs: lockdown confidentiality
#! timeout: 60
# A kernel locked down in confidentiality mode (tests/guest/live_in_guest.sh
# boots the guest with lockdown=confidentiality for this case) closes
# tracefs, kprobes and BPF reads of kernel memory to root too, and says so
# only in its log; each refusal's message says that lockdown is why.
# What lockdown leaves (kernel.function through fentry, timer.profile)
# still runs. A profile tick that lands while a vfs_read probe runs on that
# CPU skips its body, and stap's end report counts it ("skipped probes:
# N"): a real race, not this case's subject, so that line is left out.
echo "== kernel.trace"
$STAP -e 'probe kernel.trace("sched:sched_process_exec") { println(execname()) }' 2>&1
echo "status $?"
echo "== syscall"
$STAP -e 'probe syscall.getpid { println(execname()) }' 2>&1
echo "status $?"
echo "== kernel_string"
$STAP -e 'probe kernel.function("do_sys_openat2") { println(kernel_string($filename)); exit() }' 2>&1
echo "status $?"
echo "== kprobe"
STAP_KFUNC_MECHANISM=kprobe $STAP -e 'probe kernel.function("vfs_read") { exit() }' 2>&1
echo "status $?"
echo "== what still runs"
$STAP -e 'global reads, ticks
  probe kernel.function("vfs_read") { if (pid() == target()) reads++ }
  probe timer.profile { ticks++ }
  probe end { printf("reads %d, ticks %d\n", reads > 0, ticks > 0) }' -c 'cat /etc/hostname >/dev/null' 2>&1 |
  grep -v '^WARNING: Number of errors: 0, skipped probes: [0-9]*$'
echo "status ${PIPESTATUS[0]}"
