#! needs: memcg
# A map the kernel cannot find memory for: stap runs in a memory cgroup of
# 64 MiB (BPF maps are charged to it) and asks for an array of 3 million
# entries (at least 45 MiB, and a hash map allocates more).  The error
# names the global, its size, why and what to change, instead of the
# kernel's bare "Cannot allocate memory"; then the same array fits once
# MAXMAPENTRIES is smaller.
root=$(memcg_root) || exit 1
cg=$root/stap-live-$$
mkdir "$cg" || exit 1
trap 'rmdir "$cg"' EXIT
if [ -e "$cg/memory.max" ]; then echo $((64 << 20)) >"$cg/memory.max"
else echo $((64 << 20)) >"$cg/memory.limit_in_bytes"; fi
# Compiled outside first (into the case's cache): LLVM is not what the
# limit is for.
in_cgroup() {
  "$@" -p4 >/dev/null || echo "pass 4 failed"
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
}
echo "== global a[3000000]"
in_cgroup $STAP -e 'global a[3000000]; probe begin { a[1] = 1; exit() }' 2>&1
echo "status $?"
echo "== MAXMAPENTRIES=3000000"
in_cgroup $STAP -D MAXMAPENTRIES=3000000 -e 'global a; probe begin { a[1] = 1; exit() }' 2>&1
echo "status $?"
echo "== MAXMAPENTRIES=1000"
in_cgroup $STAP -D MAXMAPENTRIES=1000 -e 'global a; probe begin { a[1] = 1; println(a[1]); exit() }' 2>&1
echo "status $?"
