#!/usr/bin/env bash
# The Debian package as a user gets it: scripts/package.sh builds the
# .deb; its control fields name the shared libraries' packages and the
# conflict with systemtap; dpkg installs it into a fresh root (its own
# dpkg database, nothing else in it); the libraries the binaries load are
# copied in, and in a private mount namespace (proc, sys and dev bound in)
# the installed /usr/bin/stap and /usr/bin/stapbpf run chrooted there:
# stap -e runs a begin probe, stap -p4 compiles a trace-event script to
# an object and stapbpf runs it on the live kernel.  Everything made goes
# with the temporary directory; the mounts end with the namespace.
#   deb_package.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
skip() { echo "SKIP: $*"; exit 77; }
for tool in dpkg dpkg-deb dpkg-shlibdeps cpack unshare chroot ldd objdump; do
  command -v "$tool" >/dev/null || skip "$tool is missing (scripts/install-deps.sh installs it)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root (dpkg --root, chroot, BPF)"
[ -e /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF"

tmp=$(mktemp -d)
trap 'rm -rf --one-file-system "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

deb=$("$src/scripts/package.sh" "$build" "$tmp/out") || { echo "FAIL: package.sh"; exit 1; }
echo "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KB)"

# Control fields: dependencies from the linked libraries, the conflict.
# Each library a binary needs directly (DT_NEEDED) belongs to a package
# that Depends names (libbpf and LLVM are linked statically).
depends=$(dpkg-deb -f "$deb" Depends)
for bin in "$build/stap" "$build/stapbpf"; do
  for soname in $(objdump -p "$bin" | awk '$1 == "NEEDED" && $2 !~ /^ld-linux/ {print $2}'); do
    path=$(ldd "$bin" | awk -v so="$soname" '$1 == so && $3 ~ /^\// {print $3}')
    [ -n "$path" ] || { fail "ldd does not resolve $soname"; continue; }
    pkg=$( (dpkg -S "$path" || dpkg -S "/usr$path") 2>/dev/null | head -1 | cut -d: -f1)
    [ -n "$pkg" ] || { fail "no package holds $soname ($path)"; continue; }
    awk -v p="$pkg" 'BEGIN { RS = ", *" } { sub(/ .*/, ""); if ($0 == p) found = 1 } END { exit !found }' \
      <<<"$depends" || fail "Depends lacks $pkg (for $soname): $depends"
  done
done
conflicts=$(dpkg-deb -f "$deb" Conflicts)
grep -qE '(^|, )systemtap(,|$)' <<<"$conflicts" || fail "Conflicts lacks systemtap: $conflicts"

# Contents: the binaries, the tapsets, the manual pages, the completion.
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for path in ./usr/bin/stap ./usr/bin/stapbpf ./usr/share/stap-bpf/tapset/vfs.stp \
            ./usr/share/stap-bpf/tapset/syscalls/syscalls.table \
            ./usr/share/man/man1/stap.1.gz ./usr/share/man/man8/stapbpf.8.gz \
            ./usr/share/man/man3/stapprobes.3stap.gz \
            ./usr/share/bash-completion/completions/stap \
            ./usr/share/bash-completion/completions/stapbpf; do
  grep -qxF "$path" <<<"$contents" || fail "the package lacks $path"
done

# A fresh root with its own dpkg database; the package's dependencies
# are the host's libraries, copied in below.
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/tmp" \
         "$root/proc" "$root/sys" "$root/dev"
touch "$root/var/lib/dpkg/status"
if ! out=$(dpkg --root="$root" --force-depends --force-bad-path -i "$deb" 2>&1); then
  echo "$out"; echo "FAIL: dpkg -i into $root"; exit 1
fi
status=$(dpkg --root="$root" -s stap-bpf 2>&1 | sed -n 's/^Status: //p')
[ "$status" = "install ok installed" ] || fail "dpkg status of stap-bpf: '$status'"
[ -x "$root/usr/bin/stap" ] && [ -x "$root/usr/bin/stapbpf" ] || { echo "FAIL: not installed"; exit 1; }
for bin in "$root/usr/bin/stap" "$root/usr/bin/stapbpf"; do
  ldd "$bin" | awk '/=> \// {print $3} /^[[:space:]]*\/[^ ]*ld-linux/ {print $1}' |
    while read -r lib; do cp -L --parents "$lib" "$root"; done
done

# Runs a command chrooted in the root, with the kernel's file systems.
chroot_bin=$(command -v chroot)
in_root() {
  unshare --mount --propagation private sh -c '
    root=$1 chroot_bin=$2; shift 2
    mount --rbind /proc "$root/proc" && mount --rbind /sys "$root/sys" &&
      mount --rbind /dev "$root/dev" || exit 90
    exec env -i PATH=/usr/bin HOME=/tmp SYSTEMTAP_DIR=/tmp/stap "$chroot_bin" "$root" "$@"
  ' in_root "$root" "$chroot_bin" "$@"
}

out=$(in_root /usr/bin/stap -e 'probe begin { println("ok from the package"); exit() }' 2>&1)
[ "$out" = "ok from the package" ] || fail "stap -e in the root printed: $out"
# The tapsets are the package's: an alias and a function of the library.
out=$(in_root /usr/bin/stap -p2 -e 'probe syscall_any { println(ansi_reset_color()) }' 2>&1)
grep -q 'kernel.trace("raw_syscalls:sys_enter")' <<<"$out" || fail "stap -p2 with tapsets: $out"

script='global n
probe kernel.trace("raw_syscalls:sys_enter") { n++ }
probe timer.ms(200) { printf("events %s\n", n > 0 ? "seen" : "none"); exit() }'
out=$(in_root /usr/bin/stap -p4 -m pkg_test -e "$script" 2>&1)
[ "$out" = "pkg_test.bo" ] && [ -s "$root/pkg_test.bo" ] || fail "stap -p4 in the root: $out"
out=$(in_root /usr/bin/stapbpf -T 20 /pkg_test.bo 2>&1)
[ "$out" = "events seen" ] || fail "stapbpf in the root printed: $out"

# dpkg removes what it installed.
dpkg --root="$root" --force-bad-path -r stap-bpf >/dev/null 2>&1 || fail "dpkg -r"
[ ! -e "$root/usr/bin/stap" ] && [ ! -e "$root/usr/share/stap-bpf/tapset/vfs.stp" ] ||
  fail "dpkg -r left the package's files"
[ $failed -eq 0 ] && echo "deb package: control fields, contents, install, stap -e, -p4 + stapbpf in a fresh root, removal: PASS"
exit $failed
