#! needs: kfunc kprobe.multi
#! timeout: 240
# kernel.function probes on kprobe.multi links: one function, a .return,
# and vfs_* in one link.
export STAP_KFUNC_MECHANISM=kprobe.multi
. "$(dirname "$0")/../kfunc_cases.sh"
kfunc_entry
kfunc_return
kfunc_wildcard
