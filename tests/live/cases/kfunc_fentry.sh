#! needs: kfunc fentry
#! timeout: 240
# kernel.function probes on fentry/fexit (BPF trampolines): entry counts
# and $count, .return's $return.  A wildcard needs kprobes or kprobe.multi.
export STAP_KFUNC_MECHANISM=fentry
. "$(dirname "$0")/../kfunc_cases.sh"
kfunc_entry
kfunc_return
