#!/bin/busybox sh
# PID 1 of the test guest (see README.md): runs from the initramfs that
# run_in_guest.sh builds, in busybox ash. It loads the virtio/9p modules,
# mounts the host's root over virtio-9p, chroots into it with fresh kernel
# filesystems, runs the job, reports its exit code and reboots (which ends
# qemu, started with -no-reboot).
#
# Channels (virtio-serial ports, found by name; the kernel console is ttyS0,
# which the host keeps in console.log):
#   stapout    -> host stdout          staperr -> host stderr
#   stapstatus -> lines "start" and "exit N", read by the host
# Job files (in the per-run cpio appended by the host):
#   /job/env   shell assignments: GUEST_CACHE_MODULES, GUEST_HOSTNAME,
#              GUEST_9P_CACHE, GUEST_9P_MSIZE, GUEST_DEBUG, GUEST_TMP_SHARE,
#              GUEST_DUMP_AFTER, GUEST_DUMP_MARGIN, GUEST_SCRATCH_RAW,
#              GUEST_SCRATCH_SECTORS
#   /job/cmd   bash script run in the chroot (cd to the cwd, then the command)

/bin/busybox --install -s /bin
export PATH=/bin
/bin/busybox mount -t devtmpfs dev /dev
exec </dev/null >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys

# Without a status line the host reports the guest as failed and shows the
# console log: a message here and a reboot are enough.
fail() {
	echo "stap-guest: init: $*"
	reboot -f
	sleep 10
}

. /job/env || fail "no /job/env"
# With GUEST_DEBUG=1 (STAP_GUEST_VERBOSE=1 on the host) each step is timed.
step() {
	[ "$GUEST_DEBUG" = 1 ] || return 0
	read -r up _ </proc/uptime
	echo "stap-guest: init: $up $*"
}
step modules

while read -r m; do
	step "insmod $m"
	insmod "/modules/$m" || fail "insmod $m failed"
done </modules/order

port() {
	for f in /sys/class/virtio-ports/*/name; do
		[ -r "$f" ] || continue
		if [ "$(cat "$f")" = "$1" ]; then
			d=${f%/name}
			[ -c "/dev/${d##*/}" ] || return 1
			echo "/dev/${d##*/}"
			return 0
		fi
	done
	return 1
}
step ports
i=0
until out=$(port stapout) && err=$(port staperr) && st=$(port stapstatus); do
	i=$((i + 1))
	[ $i -gt 2000 ] && fail "virtio-serial ports did not appear"
	sleep 0.005
done

step 9p
R=/newroot
mount -t 9p -o "trans=virtio,version=9p2000.L,msize=$GUEST_9P_MSIZE,cache=$GUEST_9P_CACHE" \
	hostroot $R || fail "cannot mount the host root over 9p"

# The guest kernel's full module tree (from the cache) at /lib/modules/$(uname -r),
# over a tmpfs that hides the host kernel's modules. Done before /tmp is
# hidden by a tmpfs, in case the cache is under /tmp.
kver=$(uname -r)
if [ -n "$GUEST_CACHE_MODULES" ] && [ -d "$R$GUEST_CACHE_MODULES" ] && [ -d $R/lib/modules ]; then
	mount -t tmpfs -o mode=755 modules $R/lib/modules &&
		mkdir -p "$R/lib/modules/$kver" &&
		mount -o bind "$R$GUEST_CACHE_MODULES" "$R/lib/modules/$kver" ||
		echo "stap-guest: init: cannot mount the guest's modules"
fi

step mounts
mount -t proc proc $R/proc || fail "mount proc"
mount -t sysfs sys $R/sys || fail "mount sysfs"
mount -t tracefs tracefs $R/sys/kernel/tracing || fail "mount tracefs"
mount -t debugfs debugfs $R/sys/kernel/debug || fail "mount debugfs"
mount -t bpf bpf $R/sys/fs/bpf || fail "mount bpffs"
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup || echo "stap-guest: init: no cgroup2"
mount -t devtmpfs dev $R/dev || fail "mount devtmpfs"
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts $R/dev/pts && ln -sf pts/ptmx $R/dev/ptmx
mount -t tmpfs -o mode=1777 shm $R/dev/shm
# The links udev makes on a normal system (bash process substitution
# needs /dev/fd).
ln -sf /proc/self/fd $R/dev/fd
ln -sf /proc/self/fd/0 $R/dev/stdin
ln -sf /proc/self/fd/1 $R/dev/stdout
ln -sf /proc/self/fd/2 $R/dev/stderr
# Directories under the host's /tmp that must stay visible (the cwd's, the
# project's: a space-separated list of /tmp/X) are bound into the guest's
# fresh /tmp at the same paths.
n=0
for share in $GUEST_TMP_SHARE; do
	n=$((n + 1))
	mkdir -p /hosttmp/$n && mount -o bind "$R$share" /hosttmp/$n ||
		fail "cannot share $share"
done
mount -t tmpfs -o mode=1777 tmp $R/tmp || fail "mount /tmp"
n=0
for share in $GUEST_TMP_SHARE; do
	n=$((n + 1))
	mkdir -p "$R$share" && mount -o bind /hosttmp/$n "$R$share" ||
		fail "cannot share $share"
done
mount -t tmpfs -o mode=755 run $R/run || fail "mount /run"
mkdir -p $R/run/lock

# The scratch disk: vda, ext4 (made on the host, a fresh copy each boot)
# at /mnt/scratch, over a tmpfs on /mnt so the host's /mnt gets no mount
# point.  noatime: reads alone write nothing, so a test that counts block
# I/O sees only what it asked for.  A disk that does not mount is
# reported, and the command runs without the STAP_GUEST_SCRATCH* variables.
step scratch
scratch_env=
if [ -b /dev/vda ] && mount -t tmpfs -o mode=755 mnt $R/mnt && mkdir -p $R/mnt/scratch &&
	mount -t ext4 -o noatime /dev/vda $R/mnt/scratch; then
	scratch_env="export STAP_GUEST_SCRATCH=/mnt/scratch STAP_GUEST_SCRATCH_DEV=vda"
	scratch_env="$scratch_env STAP_GUEST_SCRATCH_RAW=$GUEST_SCRATCH_RAW STAP_GUEST_SCRATCH_SECTORS=$GUEST_SCRATCH_SECTORS"
else
	echo "stap-guest: init: no scratch disk (/dev/vda as ext4 at /mnt/scratch)"
fi

ip link set lo up
[ -n "$GUEST_HOSTNAME" ] && hostname "$GUEST_HOSTNAME"

# Shortly before the host's deadline (GUEST_DUMP_AFTER seconds), what
# the guest is doing goes to the console, which the host prints when it
# kills the guest: a stuck command is then seen from the inside.  If the
# kernel itself is stuck, this never runs; its lockup and RCU-stall
# detectors and the host's register samples tell that case.
# One line per process (pid, ppid, state, CPU ticks used, start time in
# ticks since boot, command line), with its kernel stack indented unless
# $1 is "short"; kernel threads left out.
dump_processes() {
	local d c
	for d in /proc/[0-9]*; do
		c=
		read -r c <"$d/cmdline" 2>/dev/null # (no newline: fails, but sets c)
		[ -n "$c" ] || continue
		# Fields after the ")" that ends the command name: state, ppid, ...
		set -- "$1" $(sed 's/^.*) //' "$d/stat")
		echo "stap-guest: dump: ${d#/proc/} ppid $3 $2 cpu $((${13} + ${14})) start ${21} $(tr '\0' ' ' <"$d/cmdline" | cut -c1-160)"
		[ "$1" = short ] || sed 's/^/    /' "$d/stack" 2>/dev/null
	done
}
dump_state() {
	echo "stap-guest: dump: still running after $GUEST_DUMP_AFTER s (the host stops the guest in $GUEST_DUMP_MARGIN s: output after this may be newer); uptime $(cut -d' ' -f1 /proc/uptime) s; load $(cat /proc/loadavg)"
	grep -E 'CPU|virtio|LOC' /proc/interrupts
	# The sysrq reports (all CPUs' backtraces, blocked tasks), the console
	# showing every level meanwhile.
	dmesg -n 8
	echo l >/proc/sysrq-trigger
	echo w >/proc/sysrq-trigger
	dmesg -n 5
	dump_processes
	# A task stuck in a 9p request: is the channel still answering?  A new
	# request (a lookup that fails), then the processes again: their CPU
	# ticks tell a slow guest from a stuck one.
	(stat /newroot/.stap-guest-dump-probe >/dev/null 2>&1; echo "stap-guest: dump: a new 9p request was answered") &
	sleep 3
	echo "stap-guest: dump: 3 s later: uptime $(cut -d' ' -f1 /proc/uptime) s"
	grep -E 'CPU|virtio' /proc/interrupts
	dump_processes short
	echo "stap-guest: dump: end"
}
dumper=
if [ "${GUEST_DUMP_AFTER:-0}" -gt 0 ]; then
	# The host counts from qemu's start, the boot included.
	read -r up _ </proc/uptime
	up=$((GUEST_DUMP_AFTER - ${up%.*}))
	(sleep $((up > 1 ? up : 1)) && dump_state) &
	dumper=$!
fi

step command
echo start >"$st"
env -i /bin/chroot $R /bin/bash -c "$scratch_env
$(cat /job/cmd)" </dev/null >"$out" 2>"$err"
rc=$?
[ -z "$dumper" ] || kill "$dumper" 2>/dev/null
step "exit $rc"
sync
echo "exit $rc" >"$st"
reboot -f
sleep 10
