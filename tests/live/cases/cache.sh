# A rerun of the same script hits the cache (-v says "using cached");
# another script or other -D options do not, nor --disable-cache, which
# leaves the cache as it was.
cd "$CASE_TMP"
export SYSTEMTAP_DIR=$CASE_TMP/stapdir
script='probe begin { println("cached run"); exit() }'
$STAP -v -e "$script" 2> err1; echo "first status $?"
$STAP -v -e "$script" 2> err2; echo "second status $?"
$STAP -v -D MAXSTRINGLEN=64 -e "$script" 2> err3; echo "third status $?"
grep -q "using cached" err1 || echo "first run compiled"
grep -q "^Pass 4: using cached " err2 && echo "second run used the cache"
grep -q "using cached" err3 || echo "-D changes the key"
before=$(find stapdir -name '*.bo' | wc -l)
$STAP -v --disable-cache -e 'probe begin { println("uncached run"); exit() }' 2> err4
echo "fourth status $?"
grep -q "using cached" err4 || echo "--disable-cache compiled"
[ "$(find stapdir -name '*.bo' | wc -l)" = "$before" ] && echo "--disable-cache stored nothing"
cat err1 err2 err3 err4 >&2
