# print_stack(k) of a stack key whose text MAXSTRINGLEN cut (an idle
# CPU's stack is deeper than 128 bytes of addresses): the key keeps its
# stack, so the whole stack prints, as print_backtrace() printed it when
# captured, never a frame named from the part of an address the cut left
# (which a data symbol near 0 "held" on 6.1: __per_cpu_end+0xffffffca810).
# print_stack() of such a text itself names no frame by a data symbol.
#! timeout: 60
$STAP -D MAXSTRINGLEN=48 -e 'global s, n
probe kernel.trace("syscalls:sys_enter_getpid") {
  if (pid() != target()) next
  if (n++ == 0) { print_backtrace(); println("--") }
  s[backtrace()] <<< 1
}
probe end {
  foreach (k in s) {
    printf("key %s\n", k)
    print_stack(k)
    println("==")
    print_stack(k . "")
  }
}' -c "$LIVE/getpid_loop 100" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
cat $CASE_TMP/err >&2
sed -n '1,/^--$/p' $CASE_TMP/out | grep -v '^--$' > $CASE_TMP/captured
sed -n '/^key /,/^==$/p' $CASE_TMP/out | grep -v '^key \|^==$' > $CASE_TMP/printed
sed -n '/^==$/,$p' $CASE_TMP/out | grep -v '^==$' > $CASE_TMP/text
[ "$(grep -c '^key ' $CASE_TMP/out)" -eq 1 ] && echo "one stack"
key=$(sed -n 's/^key //p' $CASE_TMP/out)
[ ${#key} -eq 47 ] && echo "its text cut at MAXSTRINGLEN"
[ "$(wc -l < $CASE_TMP/captured)" -gt 2 ] && cmp -s $CASE_TMP/captured $CASE_TMP/printed &&
  echo "print_stack(key) prints the whole stack"
# The text's last word is part of an address: unnamed.
last=${key##* }
[ ${#last} -lt 18 ] && grep -qx " $last : $last" $CASE_TMP/text && echo "a cut address is named by nothing"
[ "$(wc -l < $CASE_TMP/text)" -eq $(echo $key | wc -w) ] && echo "the text prints word by word"
exit 0
