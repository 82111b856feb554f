# DWARF target variables of process function probes at -O0 (a PIE):
# parameters, struct fields through pointers, arrays, bit fields, the
# address of a field, a static local (DW_OP_addr + load bias), a file-scope
# global by $name and @var, @cast of the program's type, @defined, and
# $$parms/$var$/$var$$ pretty printing (heap addresses masked).
D=$LIVE/../debuginfo
$STAP -e '
probe process("'$D'/sample_c_O0").function("sample_sum") {
  printf("scale=%d label=%s id=%d name=%s c=%c\n", $scale, user_string($label), $r->id,
         user_string($r->name), $r->name[1])
  printf("flags=%d level=%d x=%d calls=%d global=%d var=%d\n", $r->flags, $r->level,
         $r->where->x, $calls, $sample_global, @var("sample_global@sample.c"))
  printf("addr %d %d\n", &$r->id == $r, &$r->where->y - $r)
  printf("cast level=%d next=%d\n", @cast($r, "struct record")->level,
         @cast($r, "struct record", "'$D'/sample_c_O0")->next)
  printf("defined %d %d %d\n", @defined($r->where->x), @defined($r->nope), @defined($nope))
  println($$parms)
  println($$parms$)
  println($r$)
  println($r$$)
}' -c "sh -c 'exec $D/sample_c_O0 xyz >/dev/null'" 2>&1 | sed -E 's/0x[0-9a-f]{6,}/ADDR/g'
