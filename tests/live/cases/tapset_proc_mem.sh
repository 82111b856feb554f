# proc_mem_* against /proc/PID/statm: the target reads its own statm and
# status and that of pid 1, then makes a system call whose probe prints
# proc_mem_size/rss/shr/txt/data of the current process, of the target by
# pid, and of pid 1 by pid.  size, txt and data must be equal; rss and
# shr may lag the kernel's per-CPU rss deltas (up to 64 pages a CPU and
# counter: stap reads the same folded count) and shr is the file pages
# alone (stap's), status's RssFile.
#! timeout: 60
# One run for each: the system-call probes of one script share a BPF
# program, and each lookup by pid (a walk of the process list) costs the
# verifier.
mark='if (pid() != target() || $pid != 424242) next'
script1="probe syscall.getpgid { $mark
  printf(\"self %d %d %d %d %d\\n\", proc_mem_size(), proc_mem_rss(), proc_mem_shr(), proc_mem_txt(), proc_mem_data())
}"
script2="probe syscall.getpgid { $mark
  printf(\"bypid %d %d %d %d %d\\n\", proc_mem_size(target()), proc_mem_rss(target()), proc_mem_shr(target()),
         proc_mem_txt(target()), proc_mem_data(target()))
}"
script3="probe syscall.getpgid { $mark
  printf(\"init %d %d %d %d %d\\n\", proc_mem_size(1), proc_mem_rss(1), proc_mem_shr(1), proc_mem_txt(1), proc_mem_data(1))
}"
script4="probe syscall.getpgid { $mark printf(\"nopid %s\\n\", proc_mem_string(999999999)) }"
script5="probe syscall.getpgid { $mark printf(\"string %s\\n\", proc_mem_string()) }"
# The target reads /proc (its own statm and status, and pid 1's) just
# before the marked call, and writes what it read to want.N.
workload() {
  echo "/usr/bin/python3 -c 'import os
def file_pages(p):
    for l in open(\"/proc/%s/status\" % p):
        if l.startswith(\"RssFile:\"): return int(l.split()[1]) // 4
def line(p):
    s = open(\"/proc/%s/statm\" % p).read().split()
    return \"%s %s %d %s %s\" % (s[0], s[1], file_pages(p), s[3], s[5])
a, b = line(\"self\"), line(1)
try: os.getpgid(424242)
except OSError: pass
open(\"$CASE_TMP/want.$1\", \"w\").write(\"%s\\n%s\\n\" % (a, b))'"
}
for i in 1 2 3 4 5; do
  v=script$i
  "$STAP" -e "${!v}" -o "$CASE_TMP/stap.$i" -c "$(workload $i)" || exit 1
done
cat "$CASE_TMP"/stap.[1-5] > "$CASE_TMP/stap.out"
ncpu=$(nproc)
read -r -a want_self < <(sed -n 1p "$CASE_TMP/want.1")
read -r -a want_bypid < <(sed -n 1p "$CASE_TMP/want.2")
read -r -a want_init < <(sed -n 2p "$CASE_TMP/want.3")
# Within ncpu*64 pages a counter (rss sums three).
check() {  # label, want array name, got words...
  local label=$1; local -n w=$2; shift 2
  local got=("$@") names=(size rss shr txt data) i slack
  for i in 0 1 2 3 4; do
    slack=0
    [ "$i" = 1 ] && slack=$((ncpu * 64 * 3))
    [ "$i" = 2 ] && slack=$((ncpu * 64))
    local d=$(( got[i] - w[i] )); d=${d#-}
    if [ "$d" -gt "$slack" ]; then echo "$label ${names[i]}: ${got[i]}, /proc says ${w[i]}"; return; fi
  done
  echo "$label: as /proc says"
}
while read -r label rest; do
  case $label in
    self) read -r -a g <<<"$rest"; check "$label" want_self "${g[@]}" ;;
    bypid) read -r -a g <<<"$rest"; check "$label" want_bypid "${g[@]}" ;;
    init) read -r -a g <<<"$rest"; check "$label" want_init "${g[@]}" ;;
    string) f='[ 0-9][ 0-9.][0-9.][0-9][KMG ]'
      if [[ $rest =~ ^size:\ $f,\ rss:\ $f,\ shr:\ $f,\ txt:\ $f,\ data:\ $f$ ]]; then
        echo "string: in stap's format"
      else echo "string $rest"; fi ;;
    *) echo "$label $rest" ;;
  esac
done < <(for l in self bypid init nopid string; do grep "^$l " "$CASE_TMP/stap.out"; done)
