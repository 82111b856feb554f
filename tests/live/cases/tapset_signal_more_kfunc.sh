# The signal aliases of tapset_signal_more_trace on kernel functions (the
# test guest): check_kill_permission, prepare_signal, do_sigaction,
# sigprocmask, do_sigpending or the system call, send_sigqueue; and
# signal.checkperm and signal.wakeup, which have no event form.
#! needs: kfunc
#! needs: command python3
. "$(dirname "$0")/tapset_signal_more.bash"
signal_more_workload
"$STAP" -e "$signal_more_script"'
global perms, woken
probe signal.checkperm { if (pid() == target() && sig_pid == child && task_pid(task) == child) perms = perms . " " . sig_name }
probe signal.checkperm.return { if (pid() == target() && phase) perms = perms . "=" . retstr }
probe signal.wakeup {
  if (child && sig_pid == child && !woken++) printf("wakeup of the child %s: resume %d, %s\n", pid_name, resume, state_mask)
}
probe end { printf("checkperm:%s\n", perms) }' -c "$python $CASE_TMP/work.py"
