# The kernel.function live checks, run once per mechanism by
# cases/kfunc_{fentry,kprobe,multi}.sh (each forces one with
# STAP_KFUNC_MECHANISM and names it in $mech_*).  Sourced; $STAP and
# $CASE_TMP come from run_live.sh.  Each check prints one line per
# result, plus "attached with M" lines from stap -v for the mechanism.

# stap -v's mechanism lines, for the .out files.
mechanisms() { grep -o 'attached with [a-z.]*' "$1" | sort | uniq -c | sed 's/^ *//'; }

# Entry: vfs_read's calls by dd reading 1000 single bytes (and what the
# dynamic loader reads), and how many asked for one byte ($count).  The
# -c child's own 1-byte read of its start gate may be seen too, when it
# enters read() after the probe is attached: 1000 or 1001.
kfunc_entry() {
  "$STAP" -v -e 'global n, ones
probe kernel.function("vfs_read") {
  if (pid() != target()) next
  n++
  if ($count == 1) ones++
}
probe end { printf("vfs_read: %s, count 1: %s\n", n >= 1000 && n < 1100 ? "1000+" : sprint(n),
                   ones == 1000 || ones == 1001 ? "1000" : sprint(ones)) }' \
    -c 'dd if=/dev/zero of=/dev/null bs=1 count=1000 status=none' 2>"$CASE_TMP/entry.err"
  echo "status $?"
  mechanisms "$CASE_TMP/entry.err"
  grep -E '^(ERROR|WARNING)' "$CASE_TMP/entry.err" || true
}

# Return: $return of vfs_read.
kfunc_return() {
  "$STAP" -v -e 'probe kernel.function("vfs_read").return {
  if (pid() == target() && $return == 4242) printf("returned %d\n", $return)
}' -c 'dd if=/dev/zero of=/dev/null bs=4242 count=3 status=none' 2>"$CASE_TMP/return.err"
  echo "status $?"
  mechanisms "$CASE_TMP/return.err"
  grep -E '^(ERROR|WARNING)' "$CASE_TMP/return.err" || true
}

# Wildcard: vfs_* by function, one program on every match.
kfunc_wildcard() {
  "$STAP" -v -e 'global c
probe kernel.function("vfs_*") { if (pid() == target()) c[probefunc()]++ }
probe end {
  foreach (f+ in c) if (f == "vfs_read" || f == "vfs_write") printf("%s %s\n", f, c[f] >= 500 && c[f] < 600 ? "500+" : sprint(c[f]))
}' -c 'dd if=/dev/zero of=/dev/null bs=1 count=500 status=none' 2>"$CASE_TMP/wild.err"
  echo "status $?"
  mechanisms "$CASE_TMP/wild.err"
  grep -E '^(ERROR|WARNING)' "$CASE_TMP/wild.err" || true
}
