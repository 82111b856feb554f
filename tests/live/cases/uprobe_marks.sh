# USDT marks (<sys/sdt.h>) in the debuginfo test programs: arguments from
# registers, stack memory and constants as the notes describe them at
# -O0, -O2 and in a fixed-address build; $$parms, $$name, $$provider; a
# mark guarded by a semaphore fires only while a probe holds it; a mark
# in a shared library through .library; -L lists marks with $argN.
D=$LIVE/../debuginfo
run() {
  $STAP -o $CASE_TMP/out "$@" > /dev/null 2> $CASE_TMP/err
  echo "status $?"
  cat $CASE_TMP/out
  grep -v "^WARNING: Number of errors: 0" $CASE_TMP/err >&2
}
for build in O0 O2 nopie; do
  S=$D/sample_c_$build
  echo "-- $build"
  run -e 'probe process("'$S'").mark("three") { printf("%s:%s %s | %d %d %s\n", $$provider, $$name, $$parms =~ "^\\$arg1=0x34 \\$arg2=0x2 \\$arg3=0x[0-9a-f]+$" ? "parms ok" : $$parms, $arg1, $arg2, user_string($arg3)) }
probe process("'$S'").provider("sample").mark("counted") { printf("counted %d\n", $arg1) }
probe process("'$S'").mark("summed") { printf("summed %d %d\n", $arg1, $arg2) }' -c "$S xyz"
done
echo "-- without a mark probe holding it, the semaphore stays 0"
# A plain uprobe at the mark's address: the program skips the mark.
S=$D/sample_c_O0
pc=$(readelf -n $S | awk '/Name: counted/ { getline; print $2; exit }' | tr -d ,)
run -e 'global n; probe process("'$S'").statement('$pc') { n++ } probe end { printf("counted without semaphore %d\n", n) }' -c "$S"
echo "-- a library's mark"
run -e 'probe process("'$S'").library("libdisample.so.1").mark("twice") { printf("%s %d -> %d\n", $$name, $arg1, $arg2) }' -c "$S xyz"
echo "-- listing"
$STAP -L 'process("'$S'").mark("*")' | sed "s|$(readlink -f $S)|SAMPLE|"
