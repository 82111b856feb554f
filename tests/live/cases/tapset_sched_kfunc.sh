#! needs: kfunc
#! timeout: 300
# scheduler.ctxswitch/wakeup/process_fork and kprocess.create/exit on
# kernel functions (the test guest): the same output as on the events.
. "$(dirname "$0")/../tapset_cases.sh"
tapset_sched
