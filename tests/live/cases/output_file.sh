# -o FILE: the script's output goes to FILE, not stdout.
$STAP -o "$CASE_TMP/o.txt" -e 'probe begin { println("to the file"); printf("%d\n", 42); exit() }'
echo "status $?"
cat "$CASE_TMP/o.txt"
