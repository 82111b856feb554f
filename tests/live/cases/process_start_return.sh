# _start does not return through the normal ABI: stap's blacklist keeps it
# from .return probes ("no match"), while its entry can be probed.
$STAP -p2 -e 'probe process("'$LIVE'/getpid_loop").function("_start").return { println(1) }' 2>&1 |
  grep -E '^semantic error: no match'
echo "return status ${PIPESTATUS[0]}"
$STAP -p2 -e 'probe process("'$LIVE'/getpid_loop").function("_start") { println(1) }' >/dev/null
echo "entry status $?"
