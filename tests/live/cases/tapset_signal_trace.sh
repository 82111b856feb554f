# signal.send on signal:signal_generate, forced so that any kernel runs
# it: the event knows the target by thread id and name (task and sinfo
# 0), and si_code comes from the siginfo's own code.
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/../tapset_cases.sh"
tapset_signal
