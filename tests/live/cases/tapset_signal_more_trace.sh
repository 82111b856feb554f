# signal.syskill/systkill/systgkill, check_ignored, do_action, procmask,
# pending, send_sig_queue (+ .return) and the signal functions on their
# event and system-call forms, forced so that any kernel runs them
# (tapset_signal_more.bash: the workload and script).
#! needs: command python3
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/tapset_signal_more.bash"
signal_more_workload
"$STAP" -e "$signal_more_script" -c "$python $CASE_TMP/work.py"
