# Shared body of tapset_signal_more_trace.sh (event and system-call forms)
# and tapset_signal_more_kfunc.sh (kernel functions, the test guest).
# A Python target: sends SIGCONT, SIGWINCH, SIGURG (ignored by default)
# and SIGTERM to its sleeping child by kill, tkill, tgkill and kill; sets
# a handler for SIGUSR1 and ignores SIGUSR2; blocks SIGHUP and SIGUSR1;
# asks for its pending signals; arms a POSIX timer (SIGALRM).
signal_more_workload() {
  cat >"$CASE_TMP/work.py" <<'EOF'
import ctypes, signal, subprocess, time, os
libc = ctypes.CDLL(None, use_errno=True)
child = subprocess.Popen(['sleep', '5'])
time.sleep(0.3)
os.kill(child.pid, signal.SIGCONT)
libc.syscall(200, child.pid, signal.SIGWINCH)               # tkill
libc.syscall(234, child.pid, child.pid, signal.SIGURG)      # tgkill
os.kill(child.pid, signal.SIGTERM)
child.wait()
signal.signal(signal.SIGUSR1, lambda *a: None)
signal.signal(signal.SIGUSR2, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1, signal.SIGHUP])
signal.sigpending()
alarms = []
signal.signal(signal.SIGALRM, lambda *a: alarms.append(1))
timer = ctypes.c_void_p()
libc.timer_create(1, None, ctypes.byref(timer))             # CLOCK_MONOTONIC, SIGALRM
libc.timer_settime(timer, 0, ctypes.byref((ctypes.c_long * 4)(0, 0, 0, 20000000)), None)
for _ in range(100):                                         # until it came, at most 5 s
    if alarms:
        break
    time.sleep(0.05)
EOF
  # the interpreter itself, not a wrapper script (pyenv's shims fork)
  python=$(python3 -c 'import sys; print(sys.executable)')
}

# The child is the sleep the target starts.  Output in a fixed order:
# check_ignored of each signal is kept until the end.
signal_more_script='global child, ign, qn, comm, phase, rets, want
probe kernel.trace("sched:sched_process_exec") {
  if (execname() == "sleep" && task_pid(task_parent(task_current())) == target()) child = pid()
}
probe signal.syskill, signal.systkill, signal.systgkill {
  if (pid() != target()) next
  printf("%s %s (%d) to %s: sig_pid is the child %d, task'"'"'s pid %d\n", name, sig_name, sig,
         pid_name, sig_pid == child, task ? task_pid(task) == child : -1)
}
probe signal.systgkill { if (pid() == target()) printf("tgid is the child %d\n", tgid == child) }
probe signal.syskill.return, signal.systkill.return, signal.systgkill.return {
  if (pid() == target()) printf("%s returns %s\n", name, retstr)
}
probe signal.syskill { if (pid() == target() && sig == 18) phase = 1 }
probe signal.syskill.return { if (pid() == target() && $sig == 15) phase = 0 }
probe signal.check_ignored { if (child && sig_pid == child) ign[sig] = sprintf("%s %s", sig_name, pid_name) }
probe signal.check_ignored.return { if (phase && tid() == target()) rets = rets . " " . retstr }
probe signal.do_action {
  if (pid() != target() || (sig != 10 && sig != 12) || sa_handler == 0) next
  comm = execname()
  want = 1
  printf("%s %s handler %s mask %d\n", name, sig_name,
         sa_handler_str(sa_handler) == "ignored" ? "ignored" : sa_handler > 1 ? "an address" : "?", sa_mask)
}
probe signal.do_action.return { if (pid() == target() && want == 1) { printf("%s returns %s\n", name, retstr); want = 0 } }
probe signal.procmask {
  if (pid() == target() && sigset == 0x201) want = 2
  if (want == 2)
    printf("%s how %d sigset %s oldsigset_addr %d\n", name, how, sigset_mask_str(sigset), oldsigset_addr)
}
probe signal.procmask.return {
  if (pid() != target() || want != 2) next
  want = 0
  printf("%s returns %s, blocked: HUP %d USR1 %d USR2 %d\n", name, retstr, is_sig_blocked(task_current(), 1),
           is_sig_blocked(task_current(), 10), is_sig_blocked(task_current(), 12))
}
probe signal.pending { if (pid() == target()) printf("%s set %d size %d\n", name, sigset_add != 0, sigset_size) }
probe signal.pending.return { if (pid() == target()) printf("%s returns %s\n", name, retstr) }
probe signal.send_sig_queue {
  if (sig_pid == target() && !qn++) printf("%s %s to the target %d\n", name, sig_name, pid_name == comm)
}
probe end {
  printf("check_ignored %s, %s, %s, %s\n", ign[18], ign[28], ign[23], ign[15])
  printf("check_ignored.return while killing:%s\n", rets)
}'
