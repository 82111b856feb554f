#! timeout: 90
# process("P").function probes on the debuginfo test program: entry of
# each matching function (one program over many sites: probefunc() and
# pp() per site), .return with returnval(), .call, a function address,
# process(PID) scoping, .library scoped to the program, and probes that fire in every process running the
# binary (not only -c's).
S=$LIVE/../debuginfo/sample_c_O0
# stap's output only (-o): the -c programs print too, in no fixed order.
run() {
  $STAP -o $CASE_TMP/out "$@" > /dev/null 2> $CASE_TMP/err
  echo "status $?"
  cat $CASE_TMP/out
  grep -v "^WARNING: Number of errors: 0" $CASE_TMP/err >&2
}
echo "-- wildcard entry"
run -D MAXSTRINGLEN=512 -e 'probe process("'$S'").function("sample_*") { printf("%s %s\n", probefunc(), pp()) }' -c "$S xyz" |
  sed "s|$(readlink -f $S)|SAMPLE|; s|\"sample_\([a-z]*\)@[^\"]*/sample.c:[0-9]*\"|\"sample_\1@sample.c\"|"
echo "-- return value and registers"
run -e 'probe process("'$S'").function("sample_sum").return { printf("%s returned %d (%s)\n", probefunc(), returnval(), returnstr(2)) }
probe process("'$S'").function("sample_sum").call { printf("scale %d, label at %d\n", register("esi"), u_register("rdx") != 0) }' -c "$S xyz"
echo "-- by address"
addr=$(nm $S | awk '$3 == "sample_marks" { print "0x" $1 }')
run -e 'probe process("'$S'").function('$addr') { printf("%s %s\n", probefunc(), pp() =~ "function\\(0x[0-9a-f]+\\)$" ? "address point" : pp()) }' -c "$S"
echo "-- every process running it, not only -c's"
run -e 'global n; probe process("'$S'").function("main") { n++ } probe end { printf("main ran %d times\n", n) }' -c "sh -c '$S; $S a; $S a b'"
echo "-- .library(L) under process(P): P's processes only; the library by path: all"
D=$LIVE/../debuginfo
run -e 'global n; probe process("'$D/sample_c_O0'").library("libdisample.so.1").function("sample_lib_twice") { n["P " . execname()]++ }
probe process("'$D/libdisample.so.1'").function("sample_lib_twice") { n["L " . execname()]++ }
probe end { foreach (k+ in n) printf("%s %d\n", k, n[k]) }' -c "sh -c '$D/sample_c_O0; $D/sample_c_O2; $D/sample_c_O0 a'"
echo "-- process(PID): all its threads, no other process"
# The other process waits for stdin to close, which the -c command
# (started once the probes are attached) brings about.
L=$LIVE/getpid_loop
rm -f $CASE_TMP/go
( while [ ! -e $CASE_TMP/go ]; do sleep 0.05; done ) | $L wait 5 3 &
other=$!
for _ in $(seq 100); do [ "$(readlink /proc/$other/exe)" = "$(readlink -f $L)" ] && break; sleep 0.05; done
run -e 'global n; probe process('$other').function("run") { n[tid() == pid() ? "main" : "thread"]++ }
probe end { printf("main thread %d, other threads %d\n", n["main"], n["thread"]) }' \
  -c "sh -c 'touch $CASE_TMP/go; $L 5 2; sleep 0.5'"
wait
