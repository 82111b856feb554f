#! timeout: 90
# User stacks through code without frame pointers (bpf_runtime/unwind.c):
# a uprobe on chain_leaf of tests/live/workloads/unwind_chain.c (-O2
# -fomit-frame-pointer) whose chain goes main -> chain_a -> chain_b ->
# chain_c -> qsort (Debian's libc, no frame pointers) -> chain_cmp ->
# chain_leaf.  With the CFI tables every frame is there, in order, named
# with its binary, down to _start (through a signal handler too); the kernel's frame-pointer walk
# (STAP_UNWIND=fp, what ubacktrace() was before) loses the chain.
P=$LIVE/unwind_chain
script='global done
probe process("'$P'").function("chain_leaf") {
  if (done++) next
  print_ubacktrace()
}'
names() { sed -n 's/^ 0x[0-9a-f]* : \([^+]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[\(.*\)\]$/\1 \2/p' "$1"; }
ours() { names "$1" | awk -v p="$(readlink -f $P)" '$2 == p { printf "%s ", $1 }'; }
$STAP -e "$script" -c "$P probe 3" > $CASE_TMP/cfi 2> $CASE_TMP/err
echo "status $?"
grep -v "^WARNING: Number of errors: 0" $CASE_TMP/err >&2
echo "cfi: $(ours $CASE_TMP/cfi)"
# libc frames between chain_cmp and chain_c (qsort and its sort routine).
names $CASE_TMP/cfi | awk '$1 == "chain_cmp" { on = 1; next } $1 == "chain_c" { on = 0 } on && $2 ~ /libc/ { n++ }
  END { print (n > 0 ? "libc frames between chain_cmp and chain_c" : "no libc frames") }'
names $CASE_TMP/cfi | tail -1 | awk '{ print "last frame", $1 }'
grep -q '^ 0x[0-9a-f]* : chain_leaf+0x0/0x[0-9a-f]* \[/.*/unwind_chain\]$' $CASE_TMP/cfi && echo "leaf frame at offset 0"
# Through a signal frame: chain_c raises SIGUSR1, whose handler calls
# the leaf; past glibc's __restore_rt the interrupted registers come from
# the ucontext on the stack.
$STAP -e "$script" -c "$P signal 3" > $CASE_TMP/signal 2> $CASE_TMP/err
echo "signal status $? cfi: $(ours $CASE_TMP/signal)"
grep -v "^WARNING: Number of errors: 0" $CASE_TMP/err >&2
# The largest MAXBACKTRACE: the unwinder's loop is verified once.
$STAP -D MAXBACKTRACE=127 -e "$script" -c "$P probe 3" > $CASE_TMP/deep 2> $CASE_TMP/err
echo "MAXBACKTRACE=127 status $? cfi: $(ours $CASE_TMP/deep)"
grep -v "^WARNING: Number of errors: 0" $CASE_TMP/err >&2
STAP_UNWIND=fp $STAP -e "$script" -c "$P probe 3" > $CASE_TMP/fp 2> $CASE_TMP/err
echo "fp status $?"
fp=$(ours $CASE_TMP/fp)
[ "$fp" != "chain_leaf chain_cmp chain_c chain_b chain_a main " ] && echo "the frame-pointer walk loses the chain"
exit 0
