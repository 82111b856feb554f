#! needs: bpf-lsm
# kernel.lsm: the hook's arguments typed by BTF, its verdict in $return;
# under -g, `$return = -13` makes the open of /etc/hostname by the target
# shell's children fail with EACCES, while every other open succeeds: the
# children's others, and those of every other process (the shell's own,
# for which the probe body ends at once, keep the verdict it came with).
# Without -g the write is refused in pass 2.
script='global denied, allowed, before
probe kernel.lsm("file_open") {
  if (ppid() != target()) next
  if (kernel_string($file->f_path->dentry->d_name->name) != "hostname") { allowed++; next }
  before = $return
  $return = -13
  denied++
}
probe end { printf("denied %d before %d others allowed %d\n", denied, before, allowed > 0) }'
"$STAP" -g -e "$script" -c "sh -c 'head -c0 /etc/os-release && echo others open; cat /etc/hostname'" \
  2>"$CASE_TMP/err"
echo "stap exit $?"
grep -o 'Permission denied' "$CASE_TMP/err"
"$STAP" -p2 -e "$script" 2>&1 | grep -o 'write to target variable not permitted; need stap -g'
"$STAP" -L 'kernel.lsm("file_open")'
"$STAP" -p2 -e 'probe kernel.lsm("no_such_hook_x") {}' 2>&1 | head -1
# A hook that returns void: no verdict, no $return.
"$STAP" -e 'global n
probe kernel.lsm("file_free_security") { if (pid() == target()) n++ }
probe end { printf("void hook seen %d\n", n > 0) }' -c 'cat /etc/hostname' | grep void
"$STAP" -p4 -e 'probe kernel.lsm("file_free_security") { println($return) }' 2>&1 | grep -o "unable to find target variable '\$return' of LSM hook file_free_security"
