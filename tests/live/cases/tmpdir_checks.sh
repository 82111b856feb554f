# A TMPDIR stap could not use is refused before pass 1, with stap's
# messages: one that cannot hold a directory, one with characters a shell
# would trip on; a good one leaves nothing behind.
TMPDIR=/dev/null/BADTMPDIR $STAP -p1 -e 'probe begin { exit() }' 2>&1
echo "status $?"
mkdir -p "$CASE_TMP/with space"
TMPDIR="$CASE_TMP/with space" $STAP -p1 -e 'probe begin { exit() }' 2>&1 | sed "s|$CASE_TMP|TMP|"
echo "status ${PIPESTATUS[0]}"
mkdir -p "$CASE_TMP/good"
TMPDIR="$CASE_TMP/good" $STAP -p1 -e 'probe begin { exit() }' >/dev/null
echo "status $? left $(ls -A "$CASE_TMP/good" | wc -l)"
