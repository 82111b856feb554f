# --prologue-searching=never places a process .function probe at the
# function's first instruction, =always (and -P) after its prologue, as
# stap does; a bad WHEN is refused.  Page offsets of uaddr() compare the
# places across runs (ASLR moves whole pages).
at() {
  $STAP "$@" -c "$LIVE/getpid_loop 1" \
    -e 'probe process.function("main") { printf("%d\n", uaddr() & 0xfff) }'
}
never=$(at --prologue-searching=never) || exit 1
always=$(at --prologue-searching=always) || exit 1
short=$(at -P) || exit 1
[ "$always" -gt "$never" ] && echo "always after never: yes" || echo "always $always never $never"
[ "$short" = "$always" ] && echo "-P is always: yes" || echo "-P $short always $always"
$STAP --prologue-searching=sometimes -p1 -e 'probe begin {}' 2>&1
echo "status $?"
