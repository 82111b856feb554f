#! needs: stapbpf
# -p4 -m NAME writes NAME.bo (and says so); stapbpf runs it without the
# compiler, with -o and -x.
cd "$CASE_TMP"
export SYSTEMTAP_DIR=$CASE_TMP/stapdir
$STAP -p4 -m live_obj -e 'probe begin { printf("from the object, target %d\n", target()); exit() }'
echo "p4 status $?"
[ -s live_obj.bo ] && echo "live_obj.bo written"
$STAPBPF live_obj.bo
echo "stapbpf status $?"
$STAPBPF -x 4242 -o out.txt live_obj.bo
echo "stapbpf -o status $?"
cat out.txt
