# backtrace(), callers(n), ubacktrace() and ucallers(n) as strings in
# kernel context (stap's text: "%#lx" addresses, a space after each for
# backtrace(), joined by spaces for callers(n)), used with strlen, substr,
# tokenize, isinstr, concatenation, a local and a string array; while a
# stack key and print_stack of the captured code keep the exact storage.
#! timeout: 60
$STAP -D MAXSTRINGLEN=512 -e 'global a, t, n, m, k
probe kernel.trace("syscalls:sys_enter_getpid") {
  if (execname() != "getpid_loop" || n++) next
  s = backtrace()
  printf("bt [%s]\n", s)
  printf("strlen %d\n", strlen(s))
  printf("first [%s] tok [%s] in %d\n", substr(s, 0, 18), tokenize(s, " "), isinstr(s, "0xffffffff"))
  printf("cat [%s]\n", "<" . callers(1) . ">")
  a[1] = s
  t[s] <<< 1
  k[backtrace()] <<< 1
  print_stack(s)
  println("--")
  print_backtrace()
  println("--")
}
probe timer.profile {
  if (execname() != "burn_cpu" || !user_mode() || m++ != 20) next
  printf("ubt [%s]\nuc [%s]\n", ubacktrace(), ucallers(0))
}
probe end {
  printf("saved [%s]\n", a[1])
  foreach (s in t) printf("string key [%s]\n", s)
  foreach (c in k) printf("stack key [%s]\n", c)
}' -c "bash -c '$LIVE/getpid_loop 100; $LIVE/burn_cpu 1'" > $CASE_TMP/out 2> $CASE_TMP/err
echo "status $?"
cat $CASE_TMP/err >&2
bt=$(sed -n 's/^bt \[\(.*\)\]$/\1/p' $CASE_TMP/out)
echo "$bt" | grep -qE '^(0x[0-9a-f]+ )+$' && echo "backtrace(): addresses, a space after each"
[ ${#bt} -le 511 ] && [ "$(sed -n 's/^strlen //p' $CASE_TMP/out)" -eq ${#bt} ] && echo "strlen counts the text"
first=${bt%% *}
grep -qx "first \[$first\] tok \[$first\] in 1" $CASE_TMP/out && echo "substr, tokenize, isinstr"
grep -qE '^cat \[<0x[0-9a-f]+ 0x[0-9a-f]+>\]$' $CASE_TMP/out && echo "callers(1): two addresses joined"
grep -qxF "saved [$bt]" $CASE_TMP/out && echo "a string array keeps it"
grep -qxF "string key [$bt]" $CASE_TMP/out && echo "a string key is the text"
# print_stack(s) names the frames past our program's; they are the
# traced call's, as print_backtrace() prints them.
sed -n '/^bt /,/^--$/p' $CASE_TMP/out | grep '^ 0x' > $CASE_TMP/from_text
sed -n '/^--$/,/^--$/p' $CASE_TMP/out | grep '^ 0x' > $CASE_TMP/captured
[ -s $CASE_TMP/from_text ] && head -n $(wc -l < $CASE_TMP/from_text) $CASE_TMP/captured |
  sed 's/ :.*//' | cmp -s - <(sed 's/ :.*//' $CASE_TMP/from_text) && echo "print_stack(text) as print_backtrace()"
grep -q ' : syscall_trace_enter+\| : do_syscall_64+' $CASE_TMP/from_text && echo "kernel frames named"
grep -qE '^stack key \[(0x[0-9a-f]+ )+\]$' $CASE_TMP/out && echo "a stack key still decodes"
grep -qE '^ubt \[(0x[0-9a-f]+ )+\]$' $CASE_TMP/out && echo "ubacktrace(): user addresses"
grep -qE '^uc \[0x[0-9a-f]+\]$' $CASE_TMP/out && echo "ucallers(0): one address"
exit 0
