#! needs: kfunc kprobe
#! timeout: 240
# kernel.function probes on kprobes/kretprobes: entry counts and $count,
# .return's $return, and vfs_* with a kprobe per function.
export STAP_KFUNC_MECHANISM=kprobe
. "$(dirname "$0")/../kfunc_cases.sh"
kfunc_entry
kfunc_return
kfunc_wildcard
