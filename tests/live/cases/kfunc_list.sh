#! timeout: 60
# stap -l / -L over kernel functions, from kallsyms and BTF: listing is not
# attaching, so this works on the host (no kprobes, no fentry) as in the
# guest.  Without DWARF a point lists without stap's "@file:line".
"$STAP" -l 'kernel.function("vfs_read")'
"$STAP" -l 'kernel.function("vfs_read").return'
"$STAP" -L 'kernel.function("vfs_read")'
"$STAP" -L 'kernel.function("vfs_read").return'
"$STAP" -L 'kprobe.function("vfs_read").call'
# A wildcard: one line per traceable function, each a concrete point.
"$STAP" -l 'kernel.function("vfs_*")' > "$CASE_TMP/vfs.txt"
echo "vfs_* status $?"
grep -cvE '^kernel\.function\("vfs_[A-Za-z0-9_]+"\)$' "$CASE_TMP/vfs.txt"
grep -xE 'kernel\.function\("vfs_(read|write)"\)' "$CASE_TMP/vfs.txt"
[ "$(wc -l < "$CASE_TMP/vfs.txt")" -gt 20 ] && echo "more than 20"
# Nothing matches: nothing listed, exit 1 (as stap).
"$STAP" -l 'kernel.function("no_such_kernel_function_zz")'
echo "no match status $?"
