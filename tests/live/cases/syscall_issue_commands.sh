# The three commands of issue 4, as a new user would type them.
# 1. syscall.* counted by name for a second: five "NAME COUNT" lines, most
#    frequent first.
$STAP -e 'global c; probe syscall.* { c[name]++ } probe timer.s(1) { foreach (n in c- limit 5) printf("%s %d\n", n, c[n]); exit() }' > $CASE_TMP/top 2>&1
echo "top: status $?"
[ "$(wc -l < $CASE_TMP/top)" = 5 ] && grep -cE '^[a-z_0-9]+ [0-9]+$' $CASE_TMP/top
sort -k2,2nr -s $CASE_TMP/top | cmp -s - $CASE_TMP/top && echo "top: sorted by count"
# 2. A log histogram of read sizes; /etc/services is read whole by one
#    read of its size (cat's buffer is larger), so that size's bucket has
#    a count.  Output to a pipe: to a file cat copies without read().
$STAP -e 'global h; probe syscall.read.return { if (pid() == target() && $return > 0) h <<< $return } probe end { print(@hist_log(h)) }' -c 'cat /etc/services' 2>&1 | cat > $CASE_TMP/hist
echo "hist: status ${PIPESTATUS[0]}"
size=$(stat -c %s /etc/services)
bucket=1; while [ $((bucket * 2)) -le $size ]; do bucket=$((bucket * 2)); done
grep -q '^value |-------------------------------------------------- count$' $CASE_TMP/hist &&
  echo "hist: header"
grep -qE "^ *$bucket \|@+ +[1-9][0-9]*$" $CASE_TMP/hist && echo "hist: the file's bucket"
# 3. openat's argstr for cat's own open of the file.
$STAP -e 'probe syscall.openat { if (pid() == target()) println(argstr) }' -c 'cat /etc/hostname' > $CASE_TMP/open 2>&1
echo "open: status $?"
grep -x 'AT_FDCWD, "/etc/hostname", O_RDONLY' $CASE_TMP/open
grep -qx "$(cat /etc/hostname)" $CASE_TMP/open && echo "open: cat's output"
