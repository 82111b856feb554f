#!/usr/bin/env bash
# Self-check of the test guest (tests/guest/README.md).
#
#   tests/guest/selftest.sh        on the host: checks run_in_guest.sh from
#                                  outside (exit codes, stdout/stderr, timeout,
#                                  a guest that cannot boot), then runs the
#                                  in-guest checks through it
#   selftest.sh --in-guest         the in-guest checks alone (6.1 kernel, BTF,
#                                  a real kprobe, the shared tree, mounts, the
#                                  scratch disk (ext4 on vda, clean each boot); BPF
#                                  fentry and kprobe attachments when the host
#                                  built selftest_bpf*.c into the cwd)
#
# Prints PASS/FAIL lines and ends with "N passed, N failed"; exits 0 only if
# every check passed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
passed=0
failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { # description command...
  local d=$1
  shift
  if "$@"; then pass "$d"; else fail "$d"; fi
}
skipped=0
summary() {
  if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
  else
    echo "$passed passed, $failed failed"
  fi
  [ "$failed" -eq 0 ]
}

# ------------------------------------------------------------ in the guest
in_guest() {
  local kr tr=/sys/kernel/tracing ev=stapguest_selftest
  kr=$(uname -r)
  case $kr in
    6.1.*) pass "uname -r is the guest's 6.1 kernel ($kr)" ;;
    *) fail "uname -r is $kr, not a 6.1 kernel" ;;
  esac
  [ "${STAP_GUEST:-}" = 1 ] && pass "STAP_GUEST=1 is set" || fail "STAP_GUEST is not set"
  check "/sys/kernel/btf/vmlinux exists" test -s /sys/kernel/btf/vmlinux
  check "tracefs mounted at $tr" grep -qs " $tr tracefs " /proc/mounts
  check "bpffs mounted at /sys/fs/bpf" grep -qs " /sys/fs/bpf bpf " /proc/mounts
  check "debugfs mounted at /sys/kernel/debug" grep -qs " /sys/kernel/debug debugfs " /proc/mounts
  check "/tmp is a fresh tmpfs" grep -qs " /tmp tmpfs " /proc/mounts
  check "/proc is the guest's (pid 1 is its init)" grep -qs '^init$\|^sh$\|^busybox$' /proc/1/comm
  check "the guest kernel's modules at /lib/modules/$kr" test -s "/lib/modules/$kr/modules.dep"
  check "9p module loaded (module BTF at /sys/kernel/btf/9p)" test -e /sys/kernel/btf/9p
  check "loopback is up" test $(($(cat /sys/class/net/lo/flags 2>/dev/null || echo 0) & 1)) = 1

  # The scratch disk: vda, ext4 at /mnt/scratch, clean (an earlier boot of
  # this selftest wrote a file there), writable, its raw tail too.
  local sc=${STAP_GUEST_SCRATCH:-/mnt/scratch} raw=${STAP_GUEST_SCRATCH_RAW:-0}
  check "scratch disk: STAP_GUEST_SCRATCH=/mnt/scratch, STAP_GUEST_SCRATCH_DEV=vda" \
    test "${STAP_GUEST_SCRATCH:-}" = /mnt/scratch -a "${STAP_GUEST_SCRATCH_DEV:-}" = vda
  check "scratch disk: /dev/vda is a virtio block device" \
    sh -c 'test -b /dev/vda && grep -qs virtio /sys/block/vda/device/modalias'
  check "scratch disk: /dev/vda mounted as ext4 at $sc" grep -qs "^/dev/vda $sc ext4 " /proc/mounts
  check "scratch disk: fresh at boot (only lost+found)" test "$(ls -A "$sc" 2>&1)" = lost+found
  check "scratch disk: a file written and synced" \
    sh -c "echo data > '$sc/selftest' && sync '$sc/selftest' && test \"\$(cat '$sc/selftest')\" = data"
  check "scratch disk: O_DIRECT write to the raw sectors past the file system ($raw)" \
    sh -c "test $raw -gt 0 && dd if=/dev/zero of=/dev/vda bs=4096 seek=$((raw / 8)) count=1 oflag=direct status=none"
  check "scratch disk: I/O scheduler mq-deadline" grep -qs '\[mq-deadline\]' /sys/block/vda/queue/scheduler

  # kprobes: a real probe on do_sys_openat2, fired by an open, then removed.
  if [ -e $tr/kprobe_events ]; then
    pass "$tr/kprobe_events exists"
    echo "-:$ev" >>$tr/kprobe_events 2>/dev/null
    if echo "p:$ev do_sys_openat2 dfd=%di" >>$tr/kprobe_events 2>/dev/null &&
      [ -d $tr/events/kprobes/$ev ]; then
      pass "kprobe on do_sys_openat2 created"
      echo >$tr/trace
      echo 1 >$tr/events/kprobes/$ev/enable
      cat /etc/hostname >/dev/null
      echo 0 >$tr/events/kprobes/$ev/enable
      check "kprobe on do_sys_openat2 fired" grep -q "$ev:" $tr/trace
      echo >$tr/trace
      echo "-:$ev" >>$tr/kprobe_events
      check "kprobe removed" test ! -e $tr/events/kprobes/$ev
    else
      fail "kprobe on do_sys_openat2 could not be created"
    fi
  else
    fail "$tr/kprobe_events missing"
  fi
  check "do_sys_openat2 traceable by ftrace (fentry needs it)" \
    grep -q '^do_sys_openat2$' $tr/available_filter_functions

  # Real BPF attachments, when the host could build the helper (clang,
  # libbpf-dev): the reason the guest exists.
  if [ -x ./selftest_bpf_attach ] && [ -s ./selftest_bpf.bpf.o ]; then
    check "BPF fentry on do_sys_openat2 loads, attaches and fires" \
      sh -c './selftest_bpf_attach selftest_bpf.bpf.o on_fentry 2>&1 | grep -v "^libbpf: "'
    check "BPF kprobe on do_sys_openat2 loads, attaches and fires" \
      sh -c './selftest_bpf_attach selftest_bpf.bpf.o on_kprobe 2>&1 | grep -v "^libbpf: "'
  fi

  # The shared tree: a file the host wrote in the cwd, and one written back.
  if [ -n "${SELFTEST_TOKEN:-}" ]; then
    check "shared tree visible: token file in the cwd ($PWD)" \
      test "$(cat selftest-token 2>/dev/null)" = "$SELFTEST_TOKEN"
    check "shared tree writable: wrote selftest-reply" \
      sh -c 'echo "reply-$SELFTEST_TOKEN" > selftest-reply'
  else
    check "shared tree visible: $(basename "${BASH_SOURCE[0]}") in $here" \
      test -f "$here/$(basename "${BASH_SOURCE[0]}")"
  fi
  if [ -n "${SELFTEST_HOST_EPOCH:-}" ]; then
    local d=$(($(date +%s) - SELFTEST_HOST_EPOCH))
    check "guest clock within 60 s of the host's (off by $d s)" test "${d#-}" -le 60
  fi
}

if [ "${1:-}" = --in-guest ]; then
  in_guest
  summary
  exit
fi

# ------------------------------------------------------------ on the host
run=$here/run_in_guest.sh
work=$(mktemp -d /tmp/stap-guest-selftest.XXXXXX)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s.%N)

"$run" true >"$work/o" 2>"$work/e"
rc=$?
check "run_in_guest.sh true exits 0 (got $rc)" test $rc -eq 0
if [ $rc -ne 0 ]; then
  cat "$work/e"
  echo "the guest does not run: no further checks"
  summary
  exit
fi

"$run" false
rc=$?
check "a failing command (false) exits non-zero on the host (got $rc)" test $rc -eq 1

"$run" sh -c 'echo out; echo err >&2; exit 7' >"$work/o" 2>"$work/e"
rc=$?
check "exit code 7 comes back (got $rc)" test $rc -eq 7
check "stdout comes back alone" test "$(cat "$work/o")" = out
check "stderr comes back alone" test "$(cat "$work/e")" = err

"$run" sh -c 'kill -KILL $$' 2>/dev/null
rc=$?
check "a command killed by SIGKILL exits 137 (got $rc)" test $rc -eq 137

"$run" /nonexistent/command 2>/dev/null
rc=$?
check "a missing command exits 127 (got $rc)" test $rc -eq 127

"$run" printf '<%s>' 'a b' "c'd" '$HOME' '' >"$work/o"
check "arguments pass through unchanged" test "$(cat "$work/o")" = "<a b><c'd><\$HOME><>"

"$run" yes 2>/dev/null | head -n 2 >"$work/o"
rc=${PIPESTATUS[0]}
check "output cut short (| head) stops the guest: exit 141 (got $rc)" test $rc -eq 141

mkdir -p "$work/cwd"
echo "$$" >"$work/cwd/pid"
# (This boot also dirties the scratch disk: the in-guest checks below
# must find it clean again.)
(cd "$work/cwd" && "$run" sh -c 'cat pid; touch /tmp/private; echo x >/mnt/scratch/dirty; sync') >"$work/o" 2>&1
check "a cwd below the host's /tmp is shared" test "$(cat "$work/o")" = $$
check "... while the guest's /tmp stays its own" test ! -e /tmp/private

STAP_GUEST_APPEND="rdinit=/no-such-init" "$run" true >/dev/null 2>"$work/e"
rc=$?
check "a guest that cannot boot exits 125 (got $rc)" test $rc -eq 125
check "... and says it did not reach the command" grep -q 'did not reach the command' "$work/e"

ts=$(date +%s)
STAP_GUEST_TIMEOUT=20 "$run" sleep 600 >/dev/null 2>"$work/e"
rc=$?
te=$(date +%s)
check "a hanging command is stopped by the timeout: exit 124 (got $rc)" test $rc -eq 124
check "... after about STAP_GUEST_TIMEOUT=20 s ($((te - ts)) s)" test $((te - ts)) -lt 60
check "... and says so" grep -q 'timed out' "$work/e"

# The in-guest checks, run from a directory holding a file the guest must see.
# (Not under /tmp, which the guest covers with its own tmpfs.)
cache=${STAP_GUEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-bpf-guest}
shared=$(mktemp -d "$cache/selftest.XXXXXX")
trap 'rm -rf "$work" "$shared"' EXIT
token=$RANDOM$RANDOM$$
echo "$token" >"$shared/selftest-token"
# The BPF attach helper, if this host has the project's BPF toolchain.
clang=$(command -v clang-19 || command -v clang || true)
if [ -n "$clang" ] && command -v cc >/dev/null && [ -e /usr/include/bpf/libbpf.h ] &&
  "$clang" -O2 -g -target bpf -D__TARGET_ARCH_x86 -I"/usr/include/$(uname -m)-linux-gnu" \
    -c "$here/selftest_bpf.bpf.c" -o "$shared/selftest_bpf.bpf.o" 2>"$work/bpf-build" &&
  cc -O1 "$here/selftest_bpf_attach.c" -o "$shared/selftest_bpf_attach" -lbpf 2>>"$work/bpf-build"; then
  :
else
  echo "SKIP: BPF fentry/kprobe attach checks (needs clang, cc and libbpf-dev: scripts/install-deps.sh)"
  skipped=2
fi
(cd "$shared" && "$run" env SELFTEST_TOKEN=$token SELFTEST_HOST_EPOCH=$(date +%s) \
  "$here/selftest.sh" --in-guest) >"$work/guest" 2>&1
rc=$?
grep -E '^(PASS|FAIL): ' "$work/guest"
passed=$((passed + $(grep -c '^PASS: ' "$work/guest")))
failed=$((failed + $(grep -c '^FAIL: ' "$work/guest")))
if [ $rc -ne 0 ]; then
  grep -vE '^(PASS|FAIL): |^[0-9]+ passed, [0-9]+ failed' "$work/guest"
fi
check "in-guest checks exit 0 (got $rc)" test $rc -eq 0
check "shared tree written back by the guest" \
  test "$(cat "$shared/selftest-reply" 2>/dev/null)" = "reply-$token"

echo "selftest took $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
summary
