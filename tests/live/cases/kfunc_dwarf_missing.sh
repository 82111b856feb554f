# Points that need the kernel's DWARF (source files and lines, statements,
# @var of a global) where the kernel has no debuginfo package installed
# (this host, and the test guest): each fails in pass 2 with a message
# naming the package to install; a BTF-only point still resolves.
# Skipped where a vmlinux with DWARF is installed.
for f in /usr/lib/debug/boot/vmlinux-$(uname -r) /usr/lib/debug/lib/modules/$(uname -r)/vmlinux; do
  [ -e "$f" ] && { echo "a vmlinux with DWARF is installed ($f): nothing to check"; exit 0; }
done
check() {
  "$STAP" -p2 -e "$1" >/dev/null 2>"$CASE_TMP/err"
  echo "status $?"
  grep -cF 'needs the kernel'"'"'s DWARF (BTF has no source files, lines or statements); install linux-image-$(uname -r)-dbg (Debian; kernel-debuginfo on Fedora)' "$CASE_TMP/err"
}
check 'probe kernel.function("vfs_read@fs/read_write.c") { exit() }'
check 'probe kernel.function("*@fs/read_write.c") { exit() }'
check 'probe kernel.statement("vfs_read@fs/read_write.c:460") { exit() }'
"$STAP" -p2 -e 'probe kernel.function("vfs_read") { print($count) }' >/dev/null
echo "btf status $?"
