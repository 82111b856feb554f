#! timeout: 120
# .function("F").callee("G") and .callees(N) over DWARF call sites
# (callee_chain, built -O2 -g): a probe at G's first instruction that
# runs only when the stack holds the return address of F's call (each
# call site of G in F its own check), so main.callee("leaf") counts
# main's one direct call and not the 12 leaf makes from mid, other and
# the copy of twice inlined into main; .return checks at the entry;
# .callees(2) adds the calls of main's callees (leaf from mid, other and
# the inlined twice); -l lists stap's well-formed points.  Refused: a
# binary whose DWARF has no call sites (-O0), .callees(0).
W=$LIVE/callee_chain
count='global n
probe end { foreach (p in n) printf("%s %d\n", p, n[p]) }'
# The points without the program's path and the source directory.
strip_paths() { sed -e 's|^process("[^"]*")||' -e 's|@[^":]*/|@|g'; }

"$STAP" -e "$count"'
probe process("'$W'").function("main").callee("leaf") { n[pp()]++ }
probe process("'$W'").function("mid").callee("leaf") { n[pp()]++ }
probe process("'$W'").function("other").callee("leaf").return { n[pp()]++ }' -c $W | strip_paths | sort
"$STAP" -e "$count"'
probe process("'$W'").function("main").callees(2) { n[pp()]++ }' -c $W | strip_paths | sort
"$STAP" -l 'process("'$W'").function("mid").callees' | strip_paths

"$STAP" -e 'probe process("'$LIVE'/../debuginfo/sample_c_O0").function("main").callee("*") { println(pp()) }' \
  2>"$CASE_TMP/err"
echo "-O0: exit $?"
grep -o 'GCC records calls for optimized code only: build with -O1 or more' "$CASE_TMP/err"
"$STAP" -p2 -e 'probe process("'$W'").function("main").callees(0) { }' 2>"$CASE_TMP/err"
echo "callees(0): exit $?"
grep -o '.callees(N) only acceptable for N >= 1' "$CASE_TMP/err"
