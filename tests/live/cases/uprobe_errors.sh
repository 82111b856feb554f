# Process probes that cannot be placed fail in pass 2 with stap's located
# words, exit 1 and leave nothing attached: a program that does not
# exist, a function that matches nothing (a '?' point is skipped), a
# bare process.function, a form this engine does not build; a library
# function through .plt works.
S=$LIVE/../debuginfo/sample_c_O0
try() {
  $STAP -p4 "$@" > /dev/null 2> $CASE_TMP/err
  echo "status $?"
  # Columns after the program's path depend on where the build is.
  sed "s|$(readlink -f $S)|SAMPLE|g; s|$S|SAMPLE|g; s|<input>:1:[0-9][0-9]|<input>:1:NN|" $CASE_TMP/err | grep -v "^ *source:\|^ *^ *$\|^$"
}
echo "-- no such program"
try -e 'probe process("/no/such/program").function("main") {}'
echo "-- no such function"
try -e 'probe process("'$S'").function("no_such_function") {}'
echo "-- optional"
try -e 'probe process("'$S'").function("no_such_function")?, begin { exit() }'
echo "-- bare process"
try -e 'probe process.function("main") {}'
echo "-- insn"
try -e 'probe process("'$S'").insn {}'
echo "-- plt"
$STAP -o $CASE_TMP/out -e 'global n; probe process("'$S'").plt("strlen") { n[probefunc()]++ } probe end { foreach (f in n) printf("%s %d\n", f, n[f]) }' -c "$S label" > /dev/null
echo "status $?"
cat $CASE_TMP/out
