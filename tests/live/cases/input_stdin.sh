# input.char and input.line read the script's standard input (stap's
# input tapset over procfs("__stdin")): from a pipe, a regular file and a
# process substitution; the end of input does not end the session (exit()
# or -T does); a -c command reads /dev/null, not the script's input.
#! timeout: 60
cd "$CASE_TMP"
printf 'abcde' | $STAP -e 'probe input.char { if (char == "d") print("zz") else println(char) }
  probe timer.s(2) { exit() }'
echo "chars status $?"
printf 'one\ntwo\nthree' | $STAP -T 2 -e 'probe input.line { printf("[%s]", line) } probe end { println(" end") }'
echo "lines status $?"
printf 'x\ny\nz\n' > input.txt
$STAP -e 'global n probe input.char { n++ } probe input.line { if (line == "z\n") { println(n); exit() } }' < input.txt
echo "file status $?"
$STAP -e 'probe input.line { print(line); if (line == "2\n") exit() }' < <(seq 5)
echo "substitution status $?"
printf 'ab' | $STAP -o script.out -e 'probe input.char { print(char) } probe end { println(" end") }' -c 'sh -c "sleep 1; wc -c"'
echo "-c status $?"
cat script.out
