# Kernel symbols as values in kernel context, named by the kernel's
# kallsyms (bpf_snprintf %ps/%pS): symname(a) and symdata(a) equal what
# the runtime says of the same addresses in the end probe; sprint_backtrace()
# is stap's "name+0xoff [kernel]" lines of the stack print_backtrace()
# prints, and backtrace() starts at the same frame (our program's frames
# and its callers skipped), as stack(n) does; probefunc() as a value is
# the printed one; probemod() is the pc's module; sprint_stack(s) is the
# runtime's text.  Printed (a code or an
# address the runtime names): usymname(), usymdata(), ustack(n),
# sprint_ustack() and probefunc() in user-space probes and timer.profile.
#! timeout: 90
vfs_read=$(awk '$3 == "vfs_read" { print $1; exit }' /proc/kallsyms)
$STAP -D MAXSTRINGLEN=2048 -e 'global a, b, c, d, n, t, ks
probe kernel.trace("syscalls:sys_enter_getpid") {
  if (execname() != "getpid_loop" || n++) next
  a = symname(0x'$vfs_read'); b = symdata(0x'$vfs_read' + 5)
  c = symdata(0); d = symname(12345)
  t = backtrace(); ks = sprint_stack(t . " 0x0")
  s = sprint_backtrace()
  printf("sprint lines %d\n", strlen(s) > 0 ? (strlen(s) - strlen(str_replace(s, "\n", ""))) : -1)
  printf("%s--\n", s)
  print_backtrace()
  printf("--\nbt %s\n", tokenize(backtrace(), " "))
  f = probefunc()
  printf("probefunc value [%s] printed [%s] len %d\n", f, probefunc(), strlen(f))
  printf("stack %x %x probemod [%s]\n", stack(0), stack(1), probemod())
  try { printf("%x\n", stack(100)) } catch (e) { printf("caught [%s]\n", e) }
}
probe end {
  printf("sprint_stack %s\n", ks == sprint_stack(t . " 0x0") && isinstr(ks, " 0x0 : 0x0\n") ? "same" : ks)
  printf("kernel [%s] [%s] [%s] [%s]\n", a, b, c, d)
  printf("user [%s] [%s] [%s] [%s]\n", symname(0x'$vfs_read'), symdata(0x'$vfs_read' + 5), symdata(0), symname(12345))
}' -c "$LIVE/getpid_loop 3" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
cat $CASE_TMP/err >&2
kernel=$(sed -n 's/^kernel //p' $CASE_TMP/out)
grep -qxF "user $kernel" $CASE_TMP/out && echo "symname, symdata: the kernel's text is the runtime's"
grep -qxF "sprint_stack same" $CASE_TMP/out && echo "sprint_stack(s): the kernel's text is the runtime's"
echo "$kernel" | grep -qE '^\[vfs_read\] \[vfs_read\+0x5/0x[0-9a-f]+ \[kernel\]\] \[0x0\] \[0x3039\]$' &&
  echo "symname, symdata: stap's forms"
sed -n '/^sprint lines/,/^--$/p' $CASE_TMP/out | sed '1d;$d' > $CASE_TMP/sprint
sed -n '/^--$/,/^--$/p' $CASE_TMP/out | grep '^ 0x' > $CASE_TMP/printed
[ -s $CASE_TMP/sprint ] && grep -qxF "sprint lines $(wc -l < $CASE_TMP/sprint)" $CASE_TMP/out &&
  ! grep -qvE '^[A-Za-z0-9_.]+\+0x[0-9a-f]+ \[kernel\]$' $CASE_TMP/sprint &&
  echo "sprint_backtrace(): name+0xoff [kernel] lines"
[ -s $CASE_TMP/printed ] &&
  sed -E 's/^ 0x[0-9a-f]+ : ([^/]+)\/0x[0-9a-f]+ (\[.*\])$/\1 \2/' $CASE_TMP/printed | cmp -s - $CASE_TMP/sprint &&
  echo "sprint_backtrace(): the frames print_backtrace() prints"
first=$(head -1 $CASE_TMP/printed | awk '{ print $1 }')
grep -qxF "bt $first" $CASE_TMP/out && echo "backtrace(): starts at the traced code"
grep -qE '^probefunc value \[([a-z_0-9.]+)\] printed \[\1\] len [0-9]+$' $CASE_TMP/out &&
  echo "probefunc(): the value is the printed name"
second=$(sed -n 2p $CASE_TMP/printed | awk '{ print $1 }')
grep -qxF "stack ${first#0x} ${second#0x} probemod [kernel]" $CASE_TMP/out &&
  echo "stack(n): the frames printed; probemod(): kernel"
grep -qxF "caught [reached end of stack before unwinding to level 100]" $CASE_TMP/out &&
  echo "stack(n) past the last frame: stap's error"

# MAXBACKTRACE counts frames past our own: 2 of the traced code's.
$STAP -D MAXBACKTRACE=2 -e 'probe kernel.trace("syscalls:sys_enter_getpid") {
  if (execname() == "getpid_loop") { printf("two %s\n", backtrace()); exit() }
}' -c "$LIVE/getpid_loop 3" > $CASE_TMP/two 2>&1
grep -qxF "two $first $second " $CASE_TMP/two && echo "MAXBACKTRACE=2: two frames of the traced code"

# A module's function (where modules are loaded: the test guest): the
# kernel's "[module]" text is the runtime's too.  Prints only on a mismatch.
mod=$(awk '$2 ~ /^[tT]$/ && $4 ~ /^\[[a-z0-9_]+\]$/ && $4 != "[bpf]" && $4 !~ /^\[__builtin/ { print $1; exit }' /proc/kallsyms)
if [ -n "$mod" ]; then
  $STAP -e 'global k probe kernel.trace("syscalls:sys_enter_getpid") { k = symdata(0x'$mod' + 1); exit() }
probe end { printf("%s\n%s\n", k, symdata(0x'$mod' + 1)) }' -c "$LIVE/getpid_loop 3" > $CASE_TMP/mod 2>&1
  { [ "$(sed -n 1p $CASE_TMP/mod)" = "$(sed -n 2p $CASE_TMP/mod)" ] &&
    grep -qE '^[A-Za-z0-9_.]+\+0x1/0x[0-9a-f]+ \[[a-z0-9_]+\]$' $CASE_TMP/mod; } ||
    { echo "module symbol: the kernel's text differs"; cat $CASE_TMP/mod >&2; }
fi

# Printed as codes: user-space names in kernel context.
$STAP -e 'global n
probe process("'$LIVE'/burn_cpu").function("burn_leaf_a") {
  if (n++) next
  printf("uprobe [%s] [%s]\n", usymname(uaddr()), probefunc())
  printf("ustack [%s] [%s]\n", usymname(ustack(0)), usymdata(ustack(1)))
  printf("sprint_ustack [%s]\n", sprint_ustack(ubacktrace()))
  log(usymname(uaddr())); warn(probefunc())
}
probe timer.profile {
  if (execname() == "burn_cpu" && user_mode())
    printf("profile [%s] [%s] %x\n", probefunc(), symname(addr()), uaddr())
}' -c "$LIVE/burn_cpu 1" > $CASE_TMP/out2 2> $CASE_TMP/err2
echo "status $?"
grep -v '^WARNING: burn_leaf_a$' $CASE_TMP/err2 >&2
grep -qxF "uprobe [burn_leaf_a] [burn_leaf_a]" $CASE_TMP/out2 && echo "usymname(uaddr()) printed"
grep -qE "^ustack \[burn_leaf_a\] \[burn_outer\+0x[0-9a-f]+/0x[0-9a-f]+ \[$LIVE/burn_cpu\]\]$" $CASE_TMP/out2 &&
  echo "ustack(n), usymdata(a) printed"
grep -qE "^sprint_ustack \[ 0x[0-9a-f]+ : burn_leaf_a\+0x0/0x[0-9a-f]+ \[$LIVE/burn_cpu\]\$" $CASE_TMP/out2 &&
  echo "sprint_ustack(ubacktrace()) printed: whole lines"
grep -qx "burn_leaf_a" $CASE_TMP/out2 && grep -qx "WARNING: burn_leaf_a" $CASE_TMP/err2 &&
  echo "log(), warn() of user-space names"
grep -qE '^profile \[burn_(leaf_a|leaf_b|outer|other|touch)\] ' $CASE_TMP/out2 &&
  echo "probefunc() printed in timer.profile names user code"
# symname() is kernel-only: a user pc is its hex, as stap prints it.
grep '^profile ' $CASE_TMP/out2 | awk '{ if ($3 != "[0x" $4 "]") bad++ } END { exit bad || !NR }' &&
  echo "symname(addr()) of a user-mode sample: its hex"

# A value that needs user-space names is refused where it is written
# (-p4 leaves its object in the working directory: the case's own).
(cd $CASE_TMP && $STAP -p4 -e 'probe timer.profile { x = probefunc(); if (strlen(x) > 3) exit() }') > /dev/null 2> $CASE_TMP/err3
echo "perf value: status $?"
grep -q "probefunc() as a value in a perf or timer.profile probe.*<input>:1:27" $CASE_TMP/err3 &&
  echo "perf value: said why, and where"
(cd $CASE_TMP && $STAP -p4 -e 'probe timer.profile { x = usymdata(uaddr()); if (strlen(x) > 3) exit() }') > /dev/null 2> $CASE_TMP/err4
echo "usymdata value: status $?"
grep -q "usymdata() as a value in kernel context: user-space names are the runtime's.*<input>:1:27" $CASE_TMP/err4 &&
  echo "usymdata value: said why, and where"
# probemod() of a sample in user mode: stap's error.
$STAP -e 'probe timer.profile { if (execname() == "burn_cpu" && user_mode()) { println(probemod()); exit() } }' \
  -c "$LIVE/burn_cpu 1" > /dev/null 2> $CASE_TMP/err5
grep -q "^ERROR: Cannot determine kernel module name near identifier 'probemod'" $CASE_TMP/err5 &&
  echo "probemod() in user mode: stap's error"
exit 0
