# Shared bodies of the tapset_*_trace and tapset_*_kfunc live cases: the
# same script and workload on trace events (STAP_KFUNC_MECHANISM=none) and
# on kernel functions (the test guest).

# scheduler.*, kprocess.*: the target shell forks a sleep, waits for it
# and exits 5: its child is created (a process, so new_pid == new_tid,
# its task found), goes off the CPU asleep, is woken, exits 0; the shell
# exits with code 5 << 8.
tapset_sched() {
  local script='global child, off, woken, on, fork_seen
probe kprocess.create {
  if (pid() != target() || child) next
  child = new_pid
  printf("create: new_pid==new_tid %d, task %s, task_pid(task)==new_pid %d\n",
         new_pid == new_tid, task ? "found" : "0", task_pid(task) == new_pid)
}
probe scheduler.process_fork { if (parent_pid == target() && child_pid == child) fork_seen = 1 }
probe scheduler.ctxswitch {
  if (child && prev_tid == child && prevtsk_state == 1 && prev_pid == child &&
      task_tid(prev_task) == child && prev_task_name == "sleep") off = 1
  if (child && next_tid == child && next_task_name == "sleep") on = 1
}
probe scheduler.wakeup { if (child && task_tid == child && task_pid == child) woken = 1 }
probe kprocess.exit {
  if (pid() == child) printf("child exit code %d\n", code)
  if (pid() == target()) printf("shell exit code %d\n", code)
}
probe end { printf("fork %d, off asleep %d, on %d, woken %d\n", fork_seen, off, on, woken) }'
  "$STAP" -e "$script" -c 'sh -c "sleep 0.3 & wait; exit 5"'
}

# signal.send: kill -USR1 from the target shell to its sleeping child
# (the first it creates).  A real siginfo's address is negative as a
# number, so stap's si_code calls it "SI_USER ..." too.
tapset_signal() {
  local script='global child
probe kernel.trace("sched:sched_process_fork") { if ($parent_pid == target() && !child) child = $child_pid }
probe signal.send {
  if (pid() != target() || sig != 10) next
  printf("%s %s %s shared=%d task %d sinfo %d %s\n", name, sig_name, pid_name,
         shared, task ? task_pid(task) == child : -1, sinfo != 0, si_code)
  printf("sig_pid is the child: %d\n", sig_pid == child)
}'
  "$STAP" -e "$script" -c 'sh -c "exec 2>/dev/null; trap : USR1; sleep 5 & p=\$!; sleep 0.3; kill -USR1 \$p; wait \$p; exit 0"'
}

# netdev.*, tcp.*: a TCP connection on loopback, as the -c command: the
# client sends 3000 bytes to port 47391, the server reads them all and
# closes.
port=47391
tcp_workload="import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port)); s.listen(1)
c = socket.create_connection(('127.0.0.1', $port)); a, _ = s.accept()
c.sendall(b'x' * 3000); c.close()
n = 0
while True:
    d = a.recv(65536)
    if not d: break
    n += len(d)
a.close(); print('server read', n)"
