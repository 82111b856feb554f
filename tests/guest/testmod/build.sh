#!/usr/bin/env bash
# build.sh OUT_DIR
#
# Builds stapkdw.ko (this directory's test module, with -g) for the test
# guest's kernel into OUT_DIR, for the live cases that probe a module
# through its DWARF (tests/live/cases/kfunc_dwarf_module.sh).  The guest's
# kernel headers (linux-headers-ABI-amd64, -common and linux-kbuild, about
# 14 MB) are fetched with apt-get download once and kept beside the guest's
# kernel in run_in_guest.sh's cache, under its lock.  The module is rebuilt
# when its sources change.  Prints the module's path.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:?usage: build.sh OUT_DIR}
me=testmod/build.sh
die() { echo "$me: $*" >&2; exit 1; }

cache=${STAP_GUEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-bpf-guest}
series=${STAP_GUEST_KERNEL:-6.1}
kdir=$(cd "$cache" 2>/dev/null && ls -d "linux-image-$series."*/ 2>/dev/null | sort -V | tail -n1) ||
  true
if [ -z "$kdir" ] || [ ! -e "$cache/$kdir/.ready" ]; then
  # The guest's kernel comes first: run_in_guest.sh fetches it.
  "$here/../run_in_guest.sh" true >/dev/null || die "cannot prepare the guest kernel"
  kdir=$(cd "$cache" && ls -d "linux-image-$series."*/ | sort -V | tail -n1)
fi
kver=$(cat "$cache/${kdir%/}/kver")          # 6.1.0-57-amd64
abi=${kver%-amd64}                           # 6.1.0-57
hdir=$cache/linux-headers-$kver
compiler=gcc-$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9][0-9][0-9][0-9]$/\1/p' \
  "$cache/${kdir%/}/root/boot/config-$kver" 2>/dev/null || true)
command -v "$compiler" >/dev/null 2>&1 || compiler=gcc

exec 8>"$cache/.lock"
flock 8
if [ ! -e "$hdir/.ready" ]; then
  echo "$me: fetching the headers of $kver (one-time download, about 14 MB)" >&2
  rm -rf "$hdir" "$hdir.tmp"
  mkdir -p "$hdir.tmp/deb"
  (cd "$hdir.tmp/deb" && apt-get download -q -o APT::Sandbox::User=root \
    "linux-headers-$kver" "linux-headers-$abi-common" "linux-kbuild-$series" >&2) ||
    die "apt-get download of the headers of $kver failed"
  for deb in "$hdir.tmp/deb"/*.deb; do dpkg-deb -x "$deb" "$hdir.tmp/root" || die "dpkg-deb -x $deb"; done
  rm -rf "$hdir.tmp/deb"
  # The package's Makefile includes the -common tree by its installed path.
  sed -i "s,/usr/src/,$hdir/root/usr/src/," "$hdir.tmp/root/usr/src/linux-headers-$kver/Makefile"
  touch "$hdir.tmp/.ready"
  mv "$hdir.tmp" "$hdir"
fi
flock -u 8

ko=$out/stapkdw.ko
# Built for this kernel (the 6.1 and 6.12 guests share OUT_DIR) and newer
# than its sources: reused.
if [ -e "$ko" ] && [ "$ko" -nt "$here/stapkdw.c" ] && [ "$ko" -nt "$here/Kbuild" ] &&
  [ "$(cat "$out/kver" 2>/dev/null)" = "$kver" ]; then
  echo "$ko"; exit 0
fi
mkdir -p "$out"
cp "$here/stapkdw.c" "$here/Kbuild" "$out/"
make -s -C "$hdir/root/usr/src/linux-headers-$kver" M="$(cd "$out" && pwd)" CC="$compiler" \
  modules >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; die "the module did not build"; }
[ -e "$ko" ] || die "no $ko after the build"
echo "$kver" >"$out/kver"
echo "$ko"
