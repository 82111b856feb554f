# stap -l 'syscall.*' lists one alias per system call of this kernel
# (each syscalls:sys_enter_NAME event), sorted; .return likewise.
tracing=/sys/kernel/tracing
[ -r $tracing/available_events ] || mount -t tracefs nodev $tracing
$STAP -l 'syscall.*' > $CASE_TMP/listed
ls $tracing/events/syscalls | sed -n 's/^sys_enter_/syscall./p' | LC_ALL=C sort > $CASE_TMP/expected
[ -s $CASE_TMP/expected ] && cmp -s $CASE_TMP/listed $CASE_TMP/expected && echo "same calls" ||
  diff $CASE_TMP/expected $CASE_TMP/listed
$STAP -l 'syscall.*.return' > $CASE_TMP/listed
ls $tracing/events/syscalls | sed -n 's/^sys_exit_\(.*\)/syscall.\1.return/p' | LC_ALL=C sort > $CASE_TMP/expected
[ -s $CASE_TMP/expected ] && cmp -s $CASE_TMP/listed $CASE_TMP/expected && echo "same returns" ||
  diff $CASE_TMP/expected $CASE_TMP/listed
# -L over every alias stays quick (one read of tracefs's event list).
start=$(date +%s%N)
$STAP -L 'syscall.*' > $CASE_TMP/listed_vars
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $ms -lt 3000 ] && echo "-L syscall.* under 3 s" || echo "-L syscall.* took $ms ms"
[ "$(wc -l < $CASE_TMP/listed_vars)" = "$(wc -l < $CASE_TMP/expected)" ] && echo "one line per call"
grep -q '^syscall.openat name:string .* argstr:string \$dfd:int \$filename:const char\* \$flags:int \$mode:umode_t$' $CASE_TMP/listed_vars && echo "openat listed"
# syscall.read and its return: alias locals (name first, argstr/retstr
# last), then the call's arguments with C types, and $return last.
$STAP -L 'syscall.read,syscall.read.return' > $CASE_TMP/read
grep -q '^syscall.read name:string fd:long .* argstr:string \$fd:unsigned int \$buf:char\* \$count:size_t$' $CASE_TMP/read && echo "read listed"
grep -q '^syscall.read.return name:string .*retstr:string \$fd:unsigned int \$buf:char\* \$count:size_t \$return:long$' $CASE_TMP/read && echo "read.return listed"
