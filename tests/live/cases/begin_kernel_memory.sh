# Kernel memory in begin, end and timer probes (they run in the runtime:
# loader/interp/kernel_memory.h reads for them through a BPF program run
# with BPF_PROG_TEST_RUN): task_current() is the runtime's thread, as in
# stap, so the task_* tapset functions over it agree with pid(), tid(),
# ppid() and execname(); @cast reads, through pointers too; the kernel_*
# readers and their faults in kernel context's words.
"$STAP" -e '
probe begin {
  t = task_current()
  printf("task %d %d %d %d\n", task_pid(t) == pid(), task_tid(t) == tid(),
         task_pid(task_parent(t)) == ppid(), task_execname(t) == execname())
  printf("comm %d\n", kernel_string(t + &@cast(0, "task_struct")->comm) == execname())
  printf("mm %d\n", @cast(t, "task_struct")->mm->mmap_base != 0)
  printf("pid2task %d %d\n", pid2task(pid()) == t, pid2execname(pid()) == execname())
  printf("ns %d %d\n", ns_pid() == pid(), kernel_int(t + &@cast(0, "task_struct")->pid) == tid())
  printf("quoted %s %s\n", kernel_string_quoted(0), kernel_string(2342, "fallback"))
  try { println(kernel_long(2342)) } catch (e) { println(e) }
  try { println(@cast(16, "task_struct")->pid) } catch (e) { println(e) }
}
probe timer.ms(10) { printf("timer %d\n", task_pid(task_current()) == pid()); exit() }
probe end { printf("end %d\n", task_tid(task_current()) == tid()) }'
echo "status $?"
# An uncaught fault ends the session as in a kernel probe.
"$STAP" -e 'probe begin { println(kernel_char(8)) }' 2>&1
echo "status $?"
# A user binary's type: there is no probed process to read.
"$STAP" -p4 -e "probe begin { println(@cast(0, \"kernel_sigaction\", \"$LIVE/syscall_more\")->flags) }" 2>&1 |
  sed "s|$LIVE|LIVE|g"
echo "status ${PIPESTATUS[0]}"
