#! needs: kfunc
#! timeout: 400
# vm.* on kernel functions (the test guest): handle_mm_fault, do_wp_page,
# wp_page_copy, do_mmap, do_mas_munmap/do_vmi_munmap, do_brk_flags; the
# slab probes stay on their kmem events, as in stap.
. "$(dirname "$0")/../tapset_vm_cases.sh"
tapset_vm_faults
tapset_vm_maps
tapset_vm_slab
