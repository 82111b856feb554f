# Where the kernel offers no mechanism for kernel.function probes (this
# host: no kprobes, fentry refused; forced here so that every kernel
# shows it), the point does not resolve, with a message naming what is
# missing, and stap fails in pass 2.
STAP_KFUNC_MECHANISM=none "$STAP" -e 'probe kernel.function("vfs_read") { exit() }' 2>"$CASE_TMP/err"
echo "status $?"
grep -c 'this kernel offers no mechanism for kernel.function probes (kprobes: STAP_KFUNC_MECHANISM=none is none of fentry, kprobe.multi, kprobe' "$CASE_TMP/err"
grep '^Pass 2: analysis failed' "$CASE_TMP/err"
