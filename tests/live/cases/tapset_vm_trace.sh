# vm.* on their fallbacks (exceptions:page_fault_*, the perf minor/major
# fault events, kmem:*, the mmap/munmap/brk system calls), forced so that
# any kernel runs them: faults on 200 known pages and their copy on
# write, the addresses and lengths of mmap/munmap/brk, a pipe's kmalloc.
#! needs: tracepoint exceptions:page_fault_user
#! timeout: 120
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/../tapset_vm_cases.sh"
tapset_vm_faults
tapset_vm_maps
tapset_vm_slab
