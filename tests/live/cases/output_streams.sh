# Output to a pipe is not held until the end: the first line reaches the
# reader while the session is still running (staprun writes as it reads).
$STAP -e 'global n
probe timer.ms(100) { printf("tick %d\n", ++n) }
probe timer.s(2) { exit() }' 2>$CASE_TMP/err | {
  read -r first
  echo "first: $first"
  # stap is still running: its timer.s(2) has not fired yet.
  if pgrep -f 'probe timer.s\(2\)' >/dev/null; then echo "while running"; else echo "after exit"; fi
  cat >/dev/null
}
cat $CASE_TMP/err >&2
