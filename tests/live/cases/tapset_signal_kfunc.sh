#! needs: kfunc
#! timeout: 300
# signal.send on send_signal_locked (the test guest): the target's task
# and the siginfo's address.
. "$(dirname "$0")/../tapset_cases.sh"
tapset_signal
