# Sizes the kernel takes for no map, before any memory is asked for: an
# array of 200 million entries (a hash map's bucket table would pass 4 GiB:
# E2BIG) and a ring buffer of -s 2049 (rounded up to a power of two, 4096
# MiB; max_entries is 32 bits, so 2048 MiB is the largest).  Each error
# names what and what to change.
echo "== global a[200000000]"
$STAP -e 'global a[200000000]; probe begin { a[1] = 1; exit() }' 2>&1
echo "status $?"
echo "== -s 2049"
$STAP -s 2049 -e 'probe begin { println("ran"); exit() }' 2>&1
echo "status $?"
echo "== -s 16"
$STAP -s 16 -e 'probe begin { println("ran"); exit() }' 2>&1
echo "status $?"
