# Shared bodies of the tapset_vm_trace (trace events, any kernel) and
# tapset_vm_kfunc (kernel functions, the test guest) live cases.  Debian's
# own python3: a pyenv shim in PATH would be the target for a while, with
# pipes and mappings of its own.
py=/usr/bin/python3

# vm.pagefault[.return], vm.write_shared[_copy], vm.pagealloc/pagefree:
# the target writes one byte to each of 200 fresh pages of a private
# anonymous mapping (800 KB: no transparent huge page), then forks a
# child that writes them again (200 copy-on-write faults).  The mapping
# is found by its length at the mmap system call's return.
tapset_vm_faults() {
  local script='global base, len = 819200, faults, writes, pages, cpages, cow, copies = 0, zeros = 0
global minor, allocs, frees, npages, ncpages
probe syscall.mmap.return { if (pid() == target() && $len == len) base = retval }
probe vm.pagefault {
  if (!base || address < base || address >= base + len) next
  if (pid() == target()) { faults++; writes += write_access; if (!([address >> 12] in pages)) { pages[address >> 12] = 1; npages++ } }
  else if (ppid() == target() && !([address >> 12] in cpages)) { cpages[address >> 12] = 1; ncpages++ }
}
probe vm.pagefault.return { if (pid() == target() && vm_fault_contains(fault_type, VM_FAULT_MINOR)) minor++ }
probe vm.write_shared {
  if (base && address >= base && address < base + len && ppid() == target()) cow++
}
probe vm.write_shared_copy ? {
  if (base && address >= base && address < base + len && ppid() == target()) { copies++; zeros += zero }
}
probe vm.pagealloc { if (pid() == target() && order == 0 && pfn != -1 && bytes == 4096) allocs++ }
probe vm.pagefree { if (pid() == target() || ppid() == target()) frees++ }
probe end {
  printf("parent: pages %d, faults within 200..210 %d, all writes %d\n",
         npages, faults >= 200 && faults <= 210, writes == faults)
  printf("child: pages %d, write_shared %d, copies %d (zero pages %d)\n",
         ncpages, cow, copies, zeros)
  printf("minor faults >= 200 %d, page allocations >= 200 %d, frees seen %d\n",
         minor >= 200, allocs >= 200, frees > 0)
}'
  "$STAP" -e "$script" -c "$py -c 'import mmap, os
m = mmap.mmap(-1, 819200, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(200): m[i * 4096] = 1
p = os.fork()
if p == 0:
    for i in range(200): m[i * 4096] = 2
    os._exit(0)
os.waitpid(p, 0)'"
}

# vm.mmap, vm.munmap, vm.brk: the target maps 300000 bytes at a hint,
# unmaps them, and grows its heap by 40960 bytes with sbrk; it prints
# what it passed and got, the script what the probes saw, and the case
# compares them.
tapset_vm_maps() {
  local script='probe vm.mmap { if (pid() == target() && length == 300000) printf("mmap %#x %d\n", address, length) }
probe vm.munmap { if (pid() == target() && length == 300000) printf("munmap %#x %d\n", address, length) }
probe vm.brk { if (pid() == target() && length == 40960) printf("brk %#x %d %s\n", address, length, name) }'
  local out="$CASE_TMP/maps.out"
  "$STAP" -e "$script" -o "$out" -c "$py -c 'import ctypes
libc = ctypes.CDLL(None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.sbrk.restype = ctypes.c_void_p
libc.sbrk.argtypes = [ctypes.c_long]
hint = 0x7e1230000000
p = libc.mmap(hint, 300000, 3, 0x22, -1, 0)
libc.munmap(p, 300000)
old = libc.sbrk(40960)
open(\"$CASE_TMP/want\", \"w\").write(\"mmap %#x 300000\nmunmap %#x 300000\nbrk %#x 40960 brk\n\" % (hint, p, (old + 4095) & ~4095))'" || return
  if diff "$CASE_TMP/want" "$out"; then echo "mmap, munmap, brk: the addresses and lengths passed"
  else echo "the probes saw:"; cat "$out"; fi
}

# vm.kmalloc, vm.kfree, vm.kmem_cache_alloc/free: a pipe's buffer array
# is kcalloc(16, sizeof(struct pipe_buffer)) with GFP_KERNEL_ACCOUNT in
# alloc_pipe_info, freed by free_pipe_info when the pipe is closed.
tapset_vm_slab() {
  local script='global bufs, caches, cfrees
probe vm.kmalloc {
  if (pid() != target() || caller_function != "alloc_pipe_info" || bytes_req != 640) next
  bufs[ptr] = 1
  printf("%s %s %d %d %#x %s\n", name, caller_function, bytes_req, bytes_alloc, gfp_flags, gfp_flag_name)
}
probe vm.kfree {
  if (pid() == target() && ptr in bufs) { printf("%s %s\n", name, caller_function); delete bufs[ptr] }
}
probe vm.kmem_cache_alloc { if (pid() == target() && bytes_alloc >= bytes_req && bytes_req > 0 && ptr) caches++ }
probe vm.kmem_cache_free { if (pid() == target() && ptr) cfrees++ }
probe end { printf("kmem_cache_alloc seen %d, kmem_cache_free seen %d\n", caches > 0, cfrees > 0) }'
  "$STAP" -e "$script" -c "$py -c 'import os
r, w = os.pipe(); os.close(r); os.close(w)'"
}
