# .return probes of process functions: $return sized and signed by its
# DWARF type, $$return, parameters and @entry(expr) read at the entry, at
# -O0 and -O2; a void function has no $return (@defined says so).
D=$LIVE/../debuginfo
for opt in O0 O2; do
  echo "-$opt"
  $STAP -e '
  probe process("'$D'/sample_c_'$opt'").function("sample_sum").return {
    printf("return=%d %s scale=%d entry=%d label=%s\n", $return, $$return, $scale,
           @entry($r->id * 10), user_string($label))
  }
  probe process("'$D'/sample_c_'$opt'").function("sample_marks").return {
    printf("marks void=%d b=%d\n", !@defined($return), $b)
  }' -c "sh -c 'exec $D/sample_c_$opt xyz >/dev/null'" 2>&1
done
