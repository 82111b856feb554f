#! needs: kfunc
#! timeout: 120
# A compiled kernel.function probe run where the kernel offers none of the
# mechanisms (forced here): a clear error naming what is missing, a
# non-zero exit, nothing left attached (run_live.sh checks).
cd "$CASE_TMP"
export SYSTEMTAP_DIR=$CASE_TMP/stapdir
"$STAP" -p4 -m kfunc_obj -e 'probe kernel.function("vfs_read") { exit() }'
echo "p4 status $?"
STAP_KFUNC_MECHANISM=none "$STAPBPF" kfunc_obj.bo 2>err.txt
echo "stapbpf status $?"
grep -o '^ERROR: cannot attach probe kernel.function("vfs_read"): this kernel offers no mechanism for kernel.function probes' err.txt
grep -c 'STAP_KFUNC_MECHANISM=none is none of fentry, kprobe.multi, kprobe' err.txt
