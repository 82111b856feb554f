#! needs: kfunc
#! timeout: 240
# Resolution where kernel functions can be probed: '!' takes the first
# point that resolves; a group's probefunc()/pp() name the function being
# run (one program over all of them); .exported keeps the exported
# functions (kallsyms' __ksymtab_); module("M") points and probemod().
"$STAP" -e 'probe kernel.function("no_such_kernel_function_zz")!, kernel.function("vfs_read")!,
    kernel.trace("syscalls:sys_enter_read") {
  if (pid() == target()) { printf("first: %s\n", pp()); exit() }
}' -c 'dd if=/etc/hostname of=/dev/null status=none' >"$CASE_TMP/first.txt"
echo "first status $?"
grep '^first:' "$CASE_TMP/first.txt"
"$STAP" -v -e 'global c
probe kernel.function("vfs_rea*").return { if (pid() == target()) c[probefunc(), probemod(), pp()]++ }
probe end { foreach ([f, m, p] in c) if (f == "vfs_read") printf("%s %s %s\n", f, m, p) }' \
  -c 'dd if=/etc/hostname of=/dev/null status=none' 2>"$CASE_TMP/group.err"
echo "group status $?"
# One probe over the matches, whichever mechanism attaches it.
grep -o 'attached with [a-z.]* ([0-9]* functions)' "$CASE_TMP/group.err" |
  sed 's/with [a-z.]* ([0-9]* /with M (N /'
"$STAP" -l 'kernel.function("vfs_fsync*").exported'
"$STAP" -l 'kernel.function("vfs_read").exported'
echo "not exported status $?"
# The guest's root file system is 9p, a module: reading a file runs v9fs_*.
"$STAP" -e 'global n, mods
probe module("9p").function("v9fs_*") { if (pid() == target()) { n++; mods[probemod()]++ } }
probe end { printf("9p calls: %s\n", n > 0 ? "yes" : "no"); foreach (m in mods) println(m) }' \
  -c 'dd if=/etc/hostname of=/dev/null status=none'
echo "module status $?"
