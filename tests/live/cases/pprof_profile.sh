# --pprof=FILE read by pprof itself (`go tool pprof`, golang-go): a
# profile of a program burning CPU in known functions
# (workloads/burn_cpu.c: burn_leaf_a takes about 2/3 of it) keyed by
# ubacktrace(), plus a mixed kernel+user aggregate with string and numeric
# key columns; then the failures: an unwritable FILE is an ERROR and a
# failed run with nothing left behind, and a script with no stack-keyed
# aggregate warns and still writes a valid, empty profile.
#! needs: command go
#! timeout: 90
# pprof writes its settings and caches under HOME (and go under GOCACHE):
# kept in the case's scratch directory; GOTOOLCHAIN=local: never fetch one.
export HOME=$CASE_TMP GOCACHE=$CASE_TMP/gocache GOPATH=$CASE_TMP/gopath GOTOOLCHAIN=local
pprof() { go tool pprof -symbolize=none "$@" 2>>$CASE_TMP/pprof.err; }
script='global u, k
probe timer.profile {
  if (pid() == target() && user_mode()) u[ubacktrace()] <<< 1
}
probe kernel.trace("syscalls:sys_enter_exit_group") {
  if (pid() == target()) k[execname(), pid(), backtrace(), ubacktrace()]++
}
probe end { printf("ran\n") }'
$STAP --pprof=$CASE_TMP/burn.pb.gz -e "$script" -c "$LIVE/burn_cpu 2" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
grep -v "dev.stp\|parse error" $CASE_TMP/err >&2
grep -qx ran $CASE_TMP/out && echo "the script ran"
[ "$(head -c 2 $CASE_TMP/burn.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] && echo "gzipped"

# The hottest function is the first row of -top (flat, descending).
pprof -top -tagfocus=global=u $CASE_TMP/burn.pb.gz > $CASE_TMP/top
first=$(awk '$2 ~ /%$/ && $1 ~ /^[0-9]/ {print $NF; exit}' $CASE_TMP/top)
[ "$first" = burn_leaf_a ] && echo "pprof -top names burn_leaf_a first"
grep -qE ' burn_outer$' $CASE_TMP/top && grep -qE ' main$' $CASE_TMP/top && echo "callers in cum"
# The statistic's two sample types, "samples" the default.
pprof -raw $CASE_TMP/burn.pb.gz | grep -q '^samples/count\[dflt\] sum/units$' && echo "sample types"

# The mixed aggregate: its one stack leaf first, kernel frames (the
# syscall entry) before the user ones (_exit ... _start), and its other
# key columns as labels.
pprof -traces -tagfocus=global=k $CASE_TMP/burn.pb.gz > $CASE_TMP/traces
awk '/^-+\+/ {n++} n == 1' $CASE_TMP/traces > $CASE_TMP/trace
k=$(grep -n ' do_syscall_64$' $CASE_TMP/trace | head -1 | cut -d: -f1)
u=$(grep -n ' _exit$' $CASE_TMP/trace | head -1 | cut -d: -f1)
[ -n "$k" ] && [ -n "$u" ] && [ "$k" -lt "$u" ] && echo "kernel frames before user frames"
[ "$(grep -E '^ +[0-9]+ ' $CASE_TMP/trace | awk '{print $1}')" = 1 ] && echo "counted once"
tail -1 $CASE_TMP/trace | grep -qE ' _start$' && echo "user root last"
grep -qE '^ +key1: +burn_cpu$' $CASE_TMP/trace && echo "string label"
grep -qE '^ +key2: +[0-9]+$' $CASE_TMP/trace && echo "numeric label"

# Unwritable: an ERROR, status 1, no file and no temporary.
mkdir $CASE_TMP/fail
$STAP --pprof=$CASE_TMP/fail/missing/p.pb.gz -e "$script" -c "$LIVE/burn_cpu 0.2" \
  > /dev/null 2> $CASE_TMP/fail.err
echo "status $?"
grep -qx "ERROR: cannot write the pprof profile to $CASE_TMP/fail/missing/p.pb.gz: No such file or directory" \
  $CASE_TMP/fail.err && echo "unwritable: ERROR"
touch $CASE_TMP/fail/file
$STAP --pprof=$CASE_TMP/fail/file/p.pb.gz -e "$script" -c "$LIVE/burn_cpu 0.2" \
  > /dev/null 2> $CASE_TMP/fail.err
echo "status $?"
grep -q "^ERROR: cannot write the pprof profile to .*: Not a directory$" $CASE_TMP/fail.err &&
  echo "not a directory: ERROR"
[ "$(ls -A $CASE_TMP/fail)" = file ] && echo "nothing left"

# No stack-keyed aggregate: a warning, and an empty profile pprof reads.
$STAP --pprof=$CASE_TMP/empty.pb.gz -e 'global n; probe timer.ms(50) { if (++n == 2) exit() }' \
  > /dev/null 2> $CASE_TMP/empty.err
echo "status $?"
grep -q '^WARNING: --pprof: the script has no array or statistic keyed by a stack' $CASE_TMP/empty.err &&
  echo "no stacks: WARNING"
pprof -top $CASE_TMP/empty.pb.gz | grep -q 'of 0 total' && echo "empty profile reads"
cat $CASE_TMP/pprof.err >&2  # pprof's complaints fail the case
exit 0
