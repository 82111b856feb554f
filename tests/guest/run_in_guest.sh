#!/usr/bin/env bash
# run_in_guest.sh CMD [ARG...]
#
# Runs CMD in a throw-away qemu guest (TCG) booted with Debian 12's generic
# 6.1 kernel (kprobes, fentry, BTF), which sees this machine's whole file
# tree through virtio-9p, in the current directory. CMD's stdout and stderr
# come back on this script's stdout and stderr; its exit code is this
# script's exit code. See tests/guest/README.md.
#
# Environment (all optional):
#   STAP_GUEST_CACHE       cache dir (default ${XDG_CACHE_HOME:-~/.cache}/stap-bpf-guest)
#   STAP_GUEST_TIMEOUT     seconds before the guest is killed (default 600; exit 124)
#   STAP_GUEST_MEM         guest RAM (default 2G)
#   STAP_GUEST_CPUS        guest vCPUs (default 2)
#   STAP_GUEST_KERNEL      kernel series: 6.1 (default; Debian 12's own) or 6.12
#                          (Debian 12's newer kernel: kprobe.multi, fprobe)
#   STAP_GUEST_KERNEL_PKG  kernel package (default: what the series' meta
#                          package depends on: linux-image-amd64 for 6.1,
#                          linux-image-6.12-amd64 for 6.12)
#   STAP_GUEST_TSC_KHZ     host TSC rate in kHz (default: from /proc/cpuinfo)
#   STAP_GUEST_9P_CACHE    9p cache mode (default loose; mmap, none)
#   STAP_GUEST_TCG_THREAD  single (default) or multi (one host thread per vCPU;
#                          faster, but 6.1 guests hang or oops when kprobes
#                          are patched in or out under it)
#   STAP_GUEST_VERBOSE=1   print timings and the guest's console log to stderr
#   STAP_GUEST_KEEP=1      keep the per-run job dir (console.log etc.) and say where
#   STAP_GUEST_APPEND      extra kernel command-line arguments
#
# Exit codes besides CMD's own: 124 guest timed out, 125 guest set-up or boot
# failed (no exit status came back).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
me=run_in_guest

die() { echo "$me: $*" >&2; exit 125; }

if [ $# -eq 0 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
  [ $# -eq 0 ] && exit 2 || exit 0
fi
[ "$1" = -- ] && shift
[ $# -gt 0 ] || die "no command given"

cache=${STAP_GUEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-bpf-guest}
timeout_s=${STAP_GUEST_TIMEOUT:-600}
mem=${STAP_GUEST_MEM:-2G}
cpus=${STAP_GUEST_CPUS:-2}
p9cache=${STAP_GUEST_9P_CACHE:-loose}
verbose=${STAP_GUEST_VERBOSE:-0}
busybox=/bin/busybox
now() { date +%s.%N; }
t_begin=$(now)

# ---------------------------------------------------------------- host tools
need_deps=0
for t in qemu-system-x86_64 cpio depmod dpkg-deb apt-get xz zstd gzip flock timeout mkfs.ext4; do
  command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null 2>&1 || need_deps=1
done
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed' || need_deps=1
if [ $need_deps = 1 ]; then
  "$here/../../scripts/install-deps.sh" --guest >&2 || die "host packages missing: run scripts/install-deps.sh as root"
fi
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin ;; esac
case ":$PATH:" in *:/sbin:*) ;; *) PATH=$PATH:/sbin ;; esac
[ -x "$busybox" ] || die "$busybox (busybox-static) missing"

mkdir -p "$cache" || die "cannot create the cache dir $cache"
cache=$(cd "$cache" && pwd -P)

# ------------------------------------------------------------- guest kernel
# Finds the compressed payload inside a bzImage (xz, zstd or gzip; the same
# search scripts/extract-vmlinux does) and decompresses it to an ELF vmlinux.
extract_vmlinux() { # vmlinuz out
  local img=$1 out=$2 magic cmd off i
  # (bash strings cannot hold the NUL that ends xz's magic: 5 bytes are enough)
  local magics=($'\xfd7zXZ' $'\x28\xb5\x2f\xfd' $'\x1f\x8b\x08')
  local cmds=('xz -dc' 'zstd -dcq' 'gzip -dc')
  for i in 0 1 2; do
    magic=${magics[$i]}
    cmd=${cmds[$i]}
    # grep -b on binary data gives the byte offset of each candidate.
    for off in $(LC_ALL=C grep -obUaF -- "$magic" "$img" 2>/dev/null | cut -d: -f1); do
      tail -c +$((off + 1)) "$img" | $cmd >"$out.tmp" 2>/dev/null || true
      if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
        mv "$out.tmp" "$out"
        return 0
      fi
    done
  done
  rm -f "$out.tmp"
  return 1
}

series=${STAP_GUEST_KERNEL:-6.1}
case $series in
  6.1) meta_pkg=linux-image-amd64 ;;
  [0-9]*.[0-9]*) meta_pkg=linux-image-$series-amd64 ;;
  *) die "STAP_GUEST_KERNEL=$series: expected a series such as 6.1 or 6.12" ;;
esac
depends_pkg() {
  apt-cache depends "$meta_pkg" 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1
}
kernel_pkg=${STAP_GUEST_KERNEL_PKG:-}
if [ -z "$kernel_pkg" ]; then
  # Asking apt takes a second: a kernel prepared or checked within the last
  # day is used as it is.
  prepared=$(cd "$cache" && ls -d "linux-image-$series."*/ 2>/dev/null | sed 's,/$,,' | sort -V | tail -n1) || true
  if [ -n "$prepared" ] && [ -e "$cache/$prepared/.ready" ] &&
    [ -n "$(find "$cache/$prepared/.checked" -mmin -1440 2>/dev/null)" ]; then
    kernel_pkg=$prepared
  else
    kernel_pkg=$(depends_pkg) || true
    if [ -z "$kernel_pkg" ]; then
      # No package lists yet: update them once, or go offline with what we have.
      apt-get update -qq >&2 || true
      kernel_pkg=$(depends_pkg) || true
      [ -n "$kernel_pkg" ] || kernel_pkg=$prepared
    fi
  fi
fi
[ -n "$kernel_pkg" ] || die "cannot tell which linux-image-$series package $meta_pkg depends on"
kdir=$cache/$kernel_pkg

exec 8>"$cache/.lock"
flock 8

if [ ! -e "$kdir/.ready" ]; then
  echo "$me: preparing $kernel_pkg in $kdir (one-time download, about 70 MB)" >&2
  rm -rf "$kdir" "$kdir.tmp"
  mkdir -p "$kdir.tmp/deb"
  if ! (cd "$kdir.tmp/deb" && apt-get download -q -o APT::Sandbox::User=root "$kernel_pkg" >&2); then
    # Stale package lists can name a kernel the archive has replaced:
    # refresh them once and fetch what linux-image-amd64 depends on now.
    apt-get update -qq >&2 || true
    if [ -z "${STAP_GUEST_KERNEL_PKG:-}" ] && fresh=$(depends_pkg) && [ -n "$fresh" ] &&
      [ "$fresh" != "$kernel_pkg" ]; then
      rm -rf "$kdir.tmp"
      kernel_pkg=$fresh
      kdir=$cache/$kernel_pkg
      rm -rf "$kdir" "$kdir.tmp"
      mkdir -p "$kdir.tmp/deb"
    fi
    (cd "$kdir.tmp/deb" && apt-get download -q -o APT::Sandbox::User=root "$kernel_pkg" >&2) ||
      die "apt-get download $kernel_pkg failed"
  fi
  deb=$(ls "$kdir.tmp/deb"/*.deb)
  dpkg-deb -x "$deb" "$kdir.tmp/root" || die "dpkg-deb -x $deb failed"
  kver=$(ls "$kdir.tmp/root/lib/modules" | head -n1)
  [ -n "$kver" ] || die "no modules in $deb"
  extract_vmlinux "$kdir.tmp/root/boot/vmlinuz-$kver" "$kdir.tmp/vmlinux" ||
    die "cannot find the compressed kernel inside vmlinuz-$kver"
  # The package has no modules.dep (its postinst makes it): make it here.
  depmod -b "$kdir.tmp/root" "$kver" || die "depmod failed"
  echo "$kver" >"$kdir.tmp/kver"
  du -sb "$deb" | cut -f1 >"$kdir.tmp/deb-size"
  rm -rf "$kdir.tmp/deb"
  touch "$kdir.tmp/.ready"
  mv "$kdir.tmp" "$kdir"
  # Older kernels of the series (after a Debian point release) are not
  # needed any more; the other series' stay.
  for old in "$cache/linux-image-$series."*; do
    [ "$old" = "$kdir" ] || rm -rf "$old"
  done
fi
touch "$kdir/.checked"
kver=$(cat "$kdir/kver")
vmlinux=$kdir/vmlinux
modroot=$kdir/root/lib/modules/$kver
# The guest mounts the guest kernel's modules at /lib/modules/$kver, over a
# tmpfs on /lib/modules: a host without modules of its own has no such dir.
[ -d /lib/modules ] || mkdir -p /lib/modules 2>/dev/null || true

# ---------------------------------------------------------------- initramfs
# Modules the init loads, in dependency order from modules.dep: lines
# "name path" (path relative to $modroot).  fscache is a module of its own
# up to 6.1 and part of netfs from 6.2 on.  virtio_blk and ext4 (with
# crc32c for its metadata checksums: the initramfs has no modprobe for the
# kernel to ask) are for the scratch disk; Debian builds the I/O schedulers
# the disk gets by default (mq-deadline) into the kernel.
wanted_modules="virtio virtio_ring virtio_mmio virtio_console netfs fscache 9pnet 9pnet_virtio 9p"
wanted_modules+=" virtio_blk crc32c_generic ext4"
optional_modules="fscache"
modlist=$(awk -v wanted="$wanted_modules" -v optional=" $optional_modules " '
  function base(p) { sub(/.*\//, "", p); sub(/\.ko(\.(xz|zst|gz))?$/, "", p); return p }
  function add(m,   n, i, d) {
    if (m in done) return
    done[m] = 1
    if (!(m in path)) {
      if (!(m in builtin) && index(optional, " " m " ") == 0) { print "missing " m; bad = 1 }
      return
    }
    n = split(deps[m], d, " ")
    for (i = 1; i <= n; i++) add(base(d[i]))
    print m, path[m]
  }
  FILENAME ~ /modules\.builtin$/ { builtin[base($0)] = 1; next }
  { m = $1; sub(/:$/, "", m); name = base(m); path[name] = m; $1 = ""; deps[name] = $0 }
  END { n = split(wanted, w, " "); for (i = 1; i <= n; i++) add(w[i]); exit bad }
' "$modroot/modules.builtin" "$modroot/modules.dep") || die "guest modules: $modlist"

key=$( {
  echo "$kver $modlist"
  cat "$here/guest-init.sh" "${BASH_SOURCE[0]}"
  sha256sum "$busybox"
} | sha256sum | cut -c1-16)
initrd=$kdir/initramfs-$key.cpio
if [ ! -e "$initrd" ]; then
  stage=$(mktemp -d "$kdir/initramfs.XXXXXX")
  mkdir -p "$stage"/{bin,dev,proc,sys,newroot,modules,job}
  cp "$busybox" "$stage/bin/busybox"
  cp "$here/guest-init.sh" "$stage/init"
  chmod 755 "$stage/init"
  while read -r m p; do
    case $p in
      *.xz) xz -dc "$modroot/$p" ;;
      *.zst) zstd -dcq "$modroot/$p" ;;
      *.gz) gzip -dc "$modroot/$p" ;;
      *) cat "$modroot/$p" ;;
    esac >"$stage/modules/$m.ko"
    echo "$m.ko" >>"$stage/modules/order"
  done <<<"$modlist"
  # Uncompressed: unpacking is a copy, decompressing under TCG is slow.
  (cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$initrd.tmp" ||
    die "cpio failed"
  mv "$initrd.tmp" "$initrd"
  rm -rf "$stage"
  find "$kdir" -maxdepth 1 -name 'initramfs-*.cpio' ! -name "initramfs-$key.cpio" -delete
fi
# The scratch disk (vda): one ext4 image per cache, made once and never
# written: qemu's snapshot=on puts each boot's writes in a temporary
# overlay, so every guest starts from this clean file system at no cost.
# 64 MiB, the first 56 ext4 (4 KiB blocks, inode tables written now so
# that no ext4lazyinit thread does I/O in the guest), the last 8 MiB raw:
# sectors a test may write with dd without touching the file system.
scratch_fs_blocks=14336 scratch_sectors=131072
scratch_raw=$((scratch_fs_blocks * 8))
scratch_opts="-q -F -t ext4 -b 4096 -I 256 -i 16384 -L stap-scratch -E lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0"
scratch_key=$(echo "$scratch_opts $scratch_fs_blocks $scratch_sectors $(mkfs.ext4 -V 2>&1 | head -n1)" | sha256sum | cut -c1-12)
scratch_img=$cache/scratch-$scratch_key.img
if [ ! -e "$scratch_img" ]; then
  rm -f "$cache"/scratch-*.img
  truncate -s $((scratch_sectors * 512)) "$scratch_img.tmp" &&
    mkfs.ext4 $scratch_opts "$scratch_img.tmp" $scratch_fs_blocks >&2 &&
    mv "$scratch_img.tmp" "$scratch_img" || die "cannot make the scratch disk image (mkfs.ext4)"
fi
# Held open: a run with another version of these scripts may replace the
# cached initramfs once the lock is released.
exec 7<"$initrd"
flock -u 8
exec 8>&-

# ------------------------------------------------------------------ the job
job=$(mktemp -d "${TMPDIR:-/tmp}/stap-guest.XXXXXX")
cleanup() {
  local pids
  pids=$(jobs -p)
  [ -z "$pids" ] || kill $pids 2>/dev/null || true
  if [ "${STAP_GUEST_KEEP:-0}" = 1 ]; then
    echo "$me: job dir kept: $job" >&2
  else
    rm -rf "$job"
  fi
}
trap cleanup EXIT
# qemu runs in the background so that these traps run at once (bash defers
# them until a foreground child ends); they stop qemu before exiting.
on_signal() { # exit-code
  [ -z "${qemu_job:-}" ] || kill -TERM "$qemu_job" 2>/dev/null || true
  local pid
  ! pid=$(cat "$job/qemu.pid" 2>/dev/null) || kill -TERM "$pid" 2>/dev/null || true
  exit "$1"
}
trap 'on_signal 129' HUP
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# Before the deadline the guest dumps its state to the console and the
# host samples the vCPUs' registers: a quarter of the time, at most 30 s.
dump_after=0 margin=0
case $timeout_s in
  *[!0-9]* | '') ;; # timeout(1)'s other forms (5m, 1.5): no dump
  *) margin=$((timeout_s / 4 > 30 ? 30 : timeout_s / 4))
     [ "$margin" -lt 2 ] || dump_after=$((timeout_s - margin)) ;;
esac

mkdir -p "$job/cpio/job"
cwd=$(pwd -P)
case $cwd in
  /tmp) die "the guest has its own /tmp: run from another directory (or one below /tmp)" ;;
  /proc | /proc/* | /sys | /sys/* | /dev | /dev/* | /run | /run/*)
    die "$cwd is not shared with the guest (it has its own /proc, /sys, /dev, /run)" ;;
esac
{
  printf 'cd -- %q || exit 127\n' "$cwd"
  # A plain environment like a login's, plus what a test run cares about.
  printf 'export PATH=%q HOME=%q LANG=%q TERM=%q\n' \
    "${PATH}" "${HOME:-/root}" "${LANG:-C.UTF-8}" "${TERM:-dumb}"
  for v in $(compgen -e); do
    case $v in
      CI | USER | LOGNAME | TZ | LC_* | STAP_* | CC | CXX | CFLAGS | CXXFLAGS | LDFLAGS | MAKEFLAGS | CTEST_* | GTEST_* | ASAN_OPTIONS | UBSAN_OPTIONS)
        printf 'export %s=%q\n' "$v" "${!v}" ;;
    esac
  done
  printf 'export STAP_GUEST=1 STAP_GUEST_KVER=%q\n' "$kver"
  printf 'exec'
  printf ' %q' "$@"
  printf '\n'
} >"$job/cpio/job/cmd"
{
  printf 'GUEST_CACHE_MODULES=%q\n' "$modroot"
  printf 'GUEST_HOSTNAME=%q\n' "$(uname -n)"
  printf 'GUEST_9P_CACHE=%q\n' "$p9cache"
  printf 'GUEST_9P_MSIZE=%q\n' 512000
  printf 'GUEST_DEBUG=%q\n' "$verbose"
  printf 'GUEST_DUMP_AFTER=%q\n' "$dump_after"
  printf 'GUEST_DUMP_MARGIN=%q\n' "$margin"
  printf 'GUEST_SCRATCH_RAW=%q GUEST_SCRATCH_SECTORS=%q\n' "$scratch_raw" "$scratch_sectors"
  # The guest's /tmp is its own tmpfs; a cwd under /tmp/X keeps /tmp/X, and
  # so does this project's tree when it lives there (a CI clone in /tmp).
  tmp_shares=""
  for p in "$cwd" "$(cd "$here/../.." && pwd)"; do
    case $p in
      /tmp/?*) t=${p#/tmp/}; t="/tmp/${t%%/*}"
               case " $tmp_shares " in *" $t "*) ;; *) tmp_shares="$tmp_shares $t" ;; esac ;;
    esac
  done
  printf 'GUEST_TMP_SHARE=%q\n' "${tmp_shares# }"
} >"$job/cpio/job/env"
# The per-run files ride in a second cpio appended to the cached one (the
# kernel unpacks concatenated archives in turn).
(cd "$job/cpio" && find job | cpio -o -H newc -R 0:0 --quiet) >"$job/job.cpio"
cat - "$job/job.cpio" <&7 >"$job/initrd"
exec 7<&-

# ------------------------------------------------------------------ the run
tsc_khz=${STAP_GUEST_TSC_KHZ:-}
if [ -z "$tsc_khz" ]; then
  if [ ! -d /sys/devices/system/cpu/cpu0/cpufreq ]; then
    # Without cpufreq, "cpu MHz" is the kernel's tsc_khz.
    tsc_khz=$(awk -F': *' '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
  fi
  if [ -z "$tsc_khz" ] || [ "$tsc_khz" -le 0 ]; then
    # bogomips comes from the calibrated TSC rate: lpj = tsc_khz * 1000 / HZ.
    tsc_khz=$(awk -F': *' '/^bogomips/ { printf "%d", $2 * 500; exit }' /proc/cpuinfo)
  fi
fi
[ -n "$tsc_khz" ] && [ "$tsc_khz" -gt 0 ] || die "cannot tell the host TSC rate; set STAP_GUEST_TSC_KHZ"

# loglevel=5: the console shows errors and warnings with their register
# dumps and call traces (a quiet boot prints 2 such lines), so a guest that
# hangs says why: the soft-lockup detector (20 s; every CPU's backtrace),
# RCU stalls (21 s), hung tasks (120 s).  The perf NMI watchdog has no PMU
# under TCG (nmi_watchdog=0).  nokaslr lets the host name the functions in
# its register samples (from the kernel's kallsyms).
cmdline="console=ttyS0 quiet loglevel=5 panic=-1 reboot=t rdinit=/init"
# lpj (= tsc_khz * 1000 / HZ) spares the second CPU its delay-loop calibration.
hz=$(sed -n 's/^CONFIG_HZ=//p' "$kdir/root/boot/config-$kver")
cmdline+=" tsc_early_khz=$tsc_khz tsc=reliable lpj=$((tsc_khz * 1000 / ${hz:-250})) no_timer_check pci=off mitigations=off"
cmdline+=" i8042.noaux i8042.nomux i8042.nopnp i8042.dumbkbd"
cmdline+=" nmi_watchdog=0 softlockup_all_cpu_backtrace=1 nokaslr"
# The crypto self-tests cost about 0.6 s of boot under TCG.
cmdline+=" cryptomgr.notests initcall_blacklist=crypto_kdf108_init"
cmdline+=" ${STAP_GUEST_APPEND:-}"

# One host thread running all vCPUs in turn (single), always: under one
# host thread per vCPU (multi) the 6.1 guest crashes or hangs while kprobes
# are patched into running code (ftrace's text patching): a NULL call in
# 9p code in 1 of 2-35 attach/detach runs, and in CI a vCPU that ran
# vfs_read+0x0 for 365 s while kfunc_return_vars attached; single gave no
# crash in ~140 runs.  multi is faster on an idle host (opt in).
tcg_thread=${STAP_GUEST_TCG_THREAD:-single}

mkfifo "$job/out" "$job/err" "$job/status" "$job/mon.in" "$job/mon.out"
# A reader that cannot write (stdout closed early, as in `| head`) stops the
# guest: the command would otherwise run on with its output thrown away.
stop_guest() {
  echo >"$job/broken-pipe"
  local pid
  ! pid=$(cat "$job/qemu.pid" 2>/dev/null) || kill -TERM "$pid" 2>/dev/null || true
}
{ cat "$job/out" || stop_guest; } &
{ cat "$job/err" >&2 || stop_guest; } &
while IFS= read -r line; do
  echo "$(now) $line"
done <"$job/status" >"$job/status.log" &
status_reader=$!
cat "$job/mon.out" >"$job/monitor.log" &

# Two samples through qemu's monitor, 2 s apart, after the guest's own
# dump began, kept for a timeout's report: every vCPU's registers and
# stack, the interrupt controllers, the 9p device's queue.
sample_cpus() {
  local i p9=/machine/peripheral-anon/device[0]
  {
    for ((i = 0; i < cpus; i++)); do
      printf 'cpu %d\ninfo registers\nx/48gx $sp\n' "$i"
    done
    printf 'info pic\ninfo virtio-status %s\ninfo virtio-queue-status %s 0\n' "$p9" "$p9"
  } 1<>"$job/mon.in" # read-write: never blocks, even with qemu gone
}
sampler=
if [ "$dump_after" -gt 0 ]; then
  # (stderr: a killed sleep would be reported "Terminated")
  { sleep $((dump_after + margin / 2)) && sample_cpus && sleep 2 && sample_cpus; } 2>/dev/null &
  sampler=$!
fi

t_qemu=$(now)
rc_qemu=0
timeout -k 10 "$timeout_s" qemu-system-x86_64 \
  -M microvm,x-option-roms=off,pit=off,pic=off,isa-serial=on,rtc=on \
  -accel "tcg,thread=$tcg_thread" -cpu max -smp "$cpus" -m "$mem" \
  -nodefaults -no-user-config -display none -no-reboot -pidfile "$job/qemu.pid" \
  -kernel "$vmlinux" -initrd "$job/initrd" -append "$cmdline" \
  -serial "file:$job/console.log" \
  -fsdev "local,id=hostroot,path=/,security_model=passthrough,multidevs=remap" \
  -device virtio-9p-device,fsdev=hostroot,mount_tag=hostroot \
  -device virtio-serial-device,max_ports=4 \
  -chardev "file,id=out,path=$job/out" -device virtserialport,chardev=out,name=stapout,nr=1 \
  -chardev "file,id=err,path=$job/err" -device virtserialport,chardev=err,name=staperr,nr=2 \
  -chardev "file,id=status,path=$job/status" -device virtserialport,chardev=status,name=stapstatus,nr=3 \
  -chardev "pipe,id=mon,path=$job/mon" -mon chardev=mon,mode=readline \
  -drive "file=$scratch_img,format=raw,if=none,id=scratch,snapshot=on,cache=unsafe" \
  -device virtio-blk-device,drive=scratch \
  </dev/null >"$job/qemu.log" 2>&1 &
qemu_job=$!
wait "$qemu_job" || rc_qemu=$?
qemu_job=
t_end=$(now)
if [ -n "$sampler" ]; then
  pkill -P "$sampler" 2>/dev/null || true # its sleep
  kill "$sampler" 2>/dev/null || true
fi

# If qemu died before opening a FIFO, its reader still waits in open():
# an open for read-write never blocks and lets it see the end.
for f in out err status mon.out; do
  exec 9<>"$job/$f"
  exec 9>&-
done
wait

# The vCPU samples from the monitor's log: each CPU's RIP and the kernel
# text addresses on its stack, named from the guest kernel's kallsyms
# (Debian ships no System.map; the guest runs without KASLR and init loads
# the same modules in the same order, so one boot's /proc/kallsyms, kept in
# the cache, names every boot's kernel and init's modules; other modules
# and BPF programs are only "module area").
show_cpu_samples() {
  [ -s "$job/monitor.log" ] || return 0
  local map=$kdir/kallsyms
  # One more boot, once per kernel (a minute or two on a loaded host), and
  # never from within that boot.
  if [ ! -s "$map" ] && [ "${STAP_GUEST_KALLSYMS_RUN:-}" != 1 ]; then
    echo "$me: reading the guest kernel's symbols for the samples (once)" >&2
    STAP_GUEST_KALLSYMS_RUN=1 STAP_GUEST_TIMEOUT=300 STAP_GUEST_APPEND= STAP_GUEST_KEEP=0 \
      "${BASH_SOURCE[0]}" cat /proc/kallsyms 2>/dev/null | LC_ALL=C sort >"$map.tmp.$$" &&
      [ "${PIPESTATUS[0]}" = 0 ] && mv "$map.tmp.$$" "$map" || rm -f "$map.tmp.$$"
  fi
  echo "$me: ---- samples (qemu monitor): vCPUs (stack words that are kernel text), IOAPIC, 9p queue ----" >&2
  tr -d '\r' <"$job/monitor.log" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' |
    awk -v map="$map" '
      # Addresses are 16 lowercase hex digits: compared as strings; the
      # offset from the low 8 (a double holds them exactly).
      function low(h,   v, i) {
        v = 0
        for (i = 9; i <= 16; i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
        return v
      }
      function sym(h,   lo, hi, mid) {
        h = tolower(h)
        if (length(h) != 16) return ""
        modarea = h >= "ffffffffa0000000" && h < "ffffffffff000000"
        if (!modarea && (h < stext || h >= etext)) return ""
        lo = 1; hi = n
        while (lo < hi) { mid = int((lo + hi + 1) / 2); if (addr[mid] <= h) lo = mid; else hi = mid - 1 }
        # In the module area, far past the nearest symbol is another module
        # or a BPF program.
        if (modarea && (addr[lo] < "ffffffffa0000000" || low(h) - low(addr[lo]) > 65536))
          return "(module area)"
        return sprintf("%s+0x%x%s", name[lo], low(h) - low(addr[lo]), mod[lo])
      }
      BEGIN {
        while ((getline line < map) > 0) {
          split(line, f, " ")
          if (f[2] !~ /^[tTwW]$/) continue
          addr[++n] = f[1]; name[n] = f[3]; mod[n] = (f[4] == "" ? "" : " " f[4])
          if (f[3] == "_stext") stext = f[1]
          if (f[3] == "_etext") etext = f[1]
        }
      }
      /^CPU#[0-9]+$/ { cpu = substr($1, 5) }
      /^RIP=/ {
        split($1, r, "="); rip = r[2]
        line = $0; sub(/^RIP=[0-9a-f]+ RFL=[0-9a-f]+ \[[^]]*\] /, "", line)
        s = sym(rip)
        printf "cpu %s: RIP %s %s  %s\n", cpu, rip, (s == "" ? "(not kernel text)" : s), line
      }
      /^[0-9a-f]+: 0x/ {
        for (i = 2; i <= NF; i++) if ((s = sym(substr($i, 3))) != "") printf "    %s %s\n", substr($i, 3), s
      }
      /^ioapic|IRR|^  pin .* level|^  (device_name|isr|inuse|used_idx|signalled_used|last_avail_idx|shadow_avail_idx):/
      ' >&2
}

show_console() {
  # A hang leaves reports (the guest's dump, lockups, stalls): print from
  # the first on, else the last lines.
  local first
  first=$(grep -nE 'stap-guest: dump:|BUG:|INFO: |rcu: |watchdog: |WARNING:|Call Trace:' \
    "$job/console.log" 2>/dev/null | head -n1 | cut -d: -f1) || true
  if [ -n "$first" ]; then
    echo "$me: ---- the guest console from its first report (line $first) ----" >&2
    tail -n +"$first" "$job/console.log" | head -n 600 >&2
  else
    echo "$me: ---- last lines of the guest console ----" >&2
    tail -n 40 "$job/console.log" >&2 2>/dev/null || true
  fi
  if [ -s "$job/qemu.log" ]; then
    echo "$me: ---- qemu ----" >&2
    tail -n 20 "$job/qemu.log" >&2
  fi
  echo "$me: ----" >&2
}

t_start=$(awk '$2 == "start" { print $1; exit }' "$job/status.log")
rc=$(awk '$2 == "exit" { print $3; exit }' "$job/status.log")

if [ "$verbose" = 1 ]; then
  {
    echo "$me: ---- guest console ----"
    cat "$job/console.log" 2>/dev/null || true
    echo "$me: ----"
    echo "$me: kernel $kver, cache $kdir, tsc_khz $tsc_khz, tcg thread=$tcg_thread, load $(cut -d' ' -f1 /proc/loadavg)"
    awk -v a="$t_begin" -v q="$t_qemu" -v s="${t_start:-}" -v e="$t_end" 'BEGIN {
      printf "%s: set-up %.2f s, qemu start to command %s s, total %.2f s\n", "'$me'",
        q - a, (s == "" ? "?" : sprintf("%.2f", s - q)), e - a }'
  } >&2
fi

if [ -e "$job/broken-pipe" ]; then
  exit 141 # as a command killed by SIGPIPE
fi
if [ -z "$rc" ] && { [ "$rc_qemu" = 124 ] || [ "$rc_qemu" = 137 ]; }; then
  echo "$me: guest timed out after ${timeout_s} s (STAP_GUEST_TIMEOUT); command: $*" >&2
  # The reports must not change the exit code (set -e): 124 is what the
  # callers retry on.
  show_console || true
  show_cpu_samples || true
  exit 124
fi
if [ -z "$rc" ]; then
  if [ "$rc_qemu" != 0 ] && [ ! -s "$job/console.log" ]; then
    echo "$me: qemu failed (exit $rc_qemu)" >&2
  elif [ -n "$t_start" ]; then
    echo "$me: the guest died while running the command (qemu exit $rc_qemu): $*" >&2
  else
    echo "$me: the guest did not reach the command (qemu exit $rc_qemu)" >&2
  fi
  show_console
  exit 125
fi
exit "$rc"
