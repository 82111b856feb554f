#! timeout: 90
# timer.profile with ubacktrace() keys on tests/live/workloads/unwind_chain.c
# (-O2 -fomit-frame-pointer) spinning in chain_leaf under qsort: with the
# CFI tables (bpf_runtime/unwind.c) nearly every user sample unwinds the
# whole chain through libc; the kernel's frame-pointer walk
# (STAP_UNWIND=fp) does not.  The folded output shows it root first.
P=$LIVE/unwind_chain
script='global u
probe timer.profile {
  if (pid() == target() && user_mode()) u[ubacktrace()] <<< 1
}'
# "whole total": samples whose folded stack runs main;chain_a;chain_b;
# chain_c;...;chain_cmp;chain_leaf, and all user samples.
whole() {
  awk '{ n = $NF; all += n }
       /;main;chain_a;chain_b;chain_c;.*;chain_cmp;chain_leaf [0-9]+$/ { w += n }
       END { print w + 0, all + 0 }' "$1"
}
$STAP --folded=$CASE_TMP/cfi -e "$script" -c "$P burn 2" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
grep -v "^WARNING: Number of errors: 0" $CASE_TMP/err >&2
read w all < <(whole $CASE_TMP/cfi)
[ "$all" -gt 20 ] && echo "sampled the program"
[ $((w * 10)) -ge $((all * 8)) ] && echo "cfi: at least 80% of the samples unwind the whole chain"
grep -qE '^_start;.*;main;chain_a;chain_b;chain_c;.*;chain_cmp;chain_leaf [0-9]+$' $CASE_TMP/cfi &&
  echo "rooted at _start"
# Most samples in the vDSO's clock_gettime, under chain_leaf: the vDSO
# has a table too (the kernel's image, the same in every process).
$STAP --folded=$CASE_TMP/vdso -e "$script" -c "$P clock 2" > $CASE_TMP/out 2> $CASE_TMP/err
echo "vdso status $?"
grep -v "^WARNING: Number of errors: 0" $CASE_TMP/err >&2
awk '{ all += $NF } /;chain_leaf;clock_gettime;/ { c += $NF }
     /;main;chain_a;chain_b;chain_c;.*;chain_cmp;chain_leaf;clock_gettime;/ { w += $NF }
     END { if (c * 10 >= all * 2) print "a fifth of the samples or more in clock_gettime"
           if (w * 10 >= c * 9) print "vdso: at least 90% of those under the whole chain" }' $CASE_TMP/vdso
STAP_UNWIND=fp $STAP --folded=$CASE_TMP/fp -e "$script" -c "$P burn 2" > $CASE_TMP/out 2> $CASE_TMP/err
echo "fp status $?"
read w all < <(whole $CASE_TMP/fp)
[ $((w * 10)) -lt $((all * 5)) ] && echo "fp: under half the samples do"
exit 0
