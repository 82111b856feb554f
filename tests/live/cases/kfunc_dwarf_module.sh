#! needs: kfunc kprobe
#! timeout: 300
# Kernel code placed from DWARF, on the test module tests/guest/testmod
# (built with -g for the guest's kernel by tests/guest/testmod/build.sh,
# which live_in_guest.sh runs): a source-file function pattern, a
# statement at a line, parameters and locals ($value, $$parms, $$locals),
# @var of the module's static, and .return's $return from DWARF.  Writing
# N to the module's "trigger" parameter runs stapkdw_work(N, "trigger"),
# which returns 3N + 1000 + (its call count).  probefunc() is the symbol
# holding the pc, as stap's symname(addr()): gcc's clone stapkdw_work.isra.0.
# The statement list is stap 4.8's (ostap -l on this .ko, checked by hand).
ko=$LIVE/testmod/stapkdw.ko
src=$LIVE/testmod/stapkdw.c
[ -e "$ko" ] || { echo "no $ko: tests/guest/testmod/build.sh $LIVE/testmod builds it"; exit 1; }
rmmod stapkdw 2>/dev/null
insmod "$ko" || exit 1
trap 'rmmod stapkdw' EXIT
line=$(grep -n STAPKDW_BARRIER "$src" | cut -d: -f1)
mod="module(\"$ko\")"
run() {
  "$STAP" -D MAXSTRINGLEN=512 -e "$1" -c "sh -c 'echo $2 > /sys/module/stapkdw/parameters/trigger'" 2>"$CASE_TMP/err" |
    sed "s,$ko,KO,g; s,$src,SRC,g; s,:$line\\b,:LINE,g"
  echo "status ${PIPESTATUS[0]}"
  grep -E '^(semantic error|ERROR|WARNING)' "$CASE_TMP/err"
}
echo "-- function by file pattern, parameters"
run "probe $mod.function(\"stapkdw_[sw]*@*stapkdw.c\") {
  printf(\"%s %s value=%d\n\", probefunc(), pp(), @defined(\$value) ? \$value : -1)
}" 5
echo "-- \$\$parms, \$\$locals at the entry"
run "probe $mod.function(\"stapkdw_work@*stapkdw.c\") {
  printf(\"parms: %s\nlocals: %s\n\", \$\$parms, \$\$locals)
}" 7
echo "-- statement at a line: locals"
run "probe $mod.statement(\"stapkdw_work@*stapkdw.c:$line\") {
  printf(\"%s total=%d pair.right=%d\n\", pp(), \$total, \$pair->right)
}" 10
echo "-- .return: \$return and @var"
run "probe $mod.function(\"stapkdw_work\").return {
  printf(\"returned %d for %d, calls %d\n\", \$return, \$value, @var(\"stapkdw_calls@stapkdw.c\"))
}" 20
echo "-- -l and -L"
"$STAP" -l "$mod.function(\"stapkdw_*\")" | sed "s,$ko,KO,g; s,$src,SRC,g"
"$STAP" -L "$mod.function(\"stapkdw_set\")" | sed "s,$ko,KO,g; s,$src,SRC,g"
"$STAP" -l "$mod.statement(\"stapkdw_work@stapkdw.c:*\")" | sed "s,$ko,KO,g; s,$src,SRC,g; s,:$line\"),:LINE\"),g"
