# scheduler.ctxswitch/wakeup/process_fork and kprocess.create/exit on their
# trace events (sched:sched_switch, sched_wakeup, sched_process_fork,
# sched_process_exit), forced so that any kernel runs them.
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/../tapset_cases.sh"
tapset_sched
