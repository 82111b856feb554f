# A binary without DWARF still attaches by symbol, but a $var fails in
# pass 3 with a located message that says why and what would provide it.
D=$LIVE/../debuginfo
$STAP -p4 -e 'probe process("'$D'/sample_c_nodebug").function("sample_sum") { println(pp()) }' >/dev/null
echo "symbols only: $?"
$STAP -p4 -e 'probe process("'$D'/sample_c_nodebug").function("sample_sum") { println($scale) }'
echo "with a \$var: $?"
