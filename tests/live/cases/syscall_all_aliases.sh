# Every syscall alias of this kernel, with its argstr and retstr, compiles
# and loads (LLVM's 512-byte BPF stack, the verifier's 1M instructions per
# program) and runs: entry and return of each call cat makes are printed.
# cat's own calls vary with libc, so only a few are checked.  The script's
# globals have names the decoders' locals had once: the decoders must not
# write them (stap would show them at exit; unwritten, they are elided).
printf 'hello\n' > $CASE_TMP/data
$STAP -e '
global a, b, c, e, f, i, k, m, n, t, v, str, head, rest, acc, unit, huge, sync
probe syscall.* { if (pid() == target()) printf("%s(%s)\n", name, argstr) }
probe syscall.*.return { if (pid() == target()) printf("%s = %s\n", name, retstr) }
' -c "cat $CASE_TMP/data" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
# The script itself leaves its globals unused, which stap reports too
# (three lines each); what else pass 2 or the run says is shown.
awk '/^WARNING: Eliding unused variable /{skip=3} skip>0{skip--; next} {print}' $CASE_TMP/err
sed -e "s|$CASE_TMP|TMP|g" $CASE_TMP/out > $CASE_TMP/shown
grep -qx 'openat(AT_FDCWD, "TMP/data", O_RDONLY)' $CASE_TMP/shown && echo "openat of data"
# To a file cat copies with copy_file_range (newer coreutils) or write.
grep -qxE '(write\(1, "hello\\n", 6\)|copy_file_range\(3, 0x0, 1, 0x0, [0-9]+, 0x0\))' \
  $CASE_TMP/shown && echo "copy of hello"
grep -qx 'close(1)' $CASE_TMP/shown && echo "close of stdout"
grep -qE '^(a|b|c|e|f|i|k|m|n|t|v|str|head|rest|acc|unit|huge|sync)=' $CASE_TMP/shown &&
  echo "a decoder wrote a global of the script"
grep -qE '^exit_group\(0\)$' $CASE_TMP/shown && echo "exit_group(0)"
grep -qE '^mmap2\(0x0, [0-9]+, PROT_READ(\|PROT_WRITE)?, MAP_PRIVATE\|MAP_ANONYMOUS, -1, 0\)$' \
  $CASE_TMP/shown && echo "anonymous mmap"
