# Locals at a .statement probe inside a loop's block (DWARF line table):
# -O0 (stack slots) and -O2 (registers, location lists; `weight` is
# optimized away there), $$locals and $$vars (innermost scope first).
D=$LIVE/../debuginfo
line=$(grep -n 'LINE:sum_loop' "$(dirname "$0")/../../data/debuginfo/sample.c" | cut -d: -f1)
run() {  # the program's own output is left out: it would interleave
  $STAP -e "$1" -c "sh -c 'exec $D/$2 xyz >/dev/null'" 2>&1
}
echo "-O0"
run 'probe process("'$D'/sample_c_O0").statement("sample_sum@sample.c:'$line'") {
  printf("i=%d weight=%d name[i]=%c\n", $i, $weight, $r->name[$i])
}' sample_c_O0
echo "-O2"
run 'probe process("'$D'/sample_c_O2").statement("sample_sum@sample.c:'$line'") {
  printf("i=%d name[i]=%c weight=%d\n", $i, $r->name[$i], @defined($weight) ? $weight : -1)
}' sample_c_O2
run 'probe process("'$D'/sample_c_O0").statement("sample_sum@sample.c:'$line'") {
  println($$locals)
  println($$vars)
}' sample_c_O0 | sed -E 's/0x[0-9a-f]{6,}/ADDR/g'
