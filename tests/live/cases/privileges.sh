#! needs: command setpriv
# Without the privileges BPF needs, pass 5 says which are missing before
# it creates anything (no -o file is left), instead of the kernel's bare
# "Operation not permitted"; CAP_BPF with CAP_PERFMON is enough for a
# user who is not root.
cd "$CASE_TMP"
chmod 777 "$CASE_TMP"
as_nobody() { SYSTEMTAP_DIR="$CASE_TMP/cache" setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
echo "== no capabilities"
as_nobody $STAP -e 'probe begin { println("hi"); exit() }' -o "$CASE_TMP/out.txt" 2>&1
echo "status $?"
[ -e "$CASE_TMP/out.txt" ] && echo "the output file was left"
echo "== CAP_BPF only"
as_nobody --inh-caps=+bpf --ambient-caps=+bpf $STAP -e 'probe begin { exit() }' 2>&1
echo "status $?"
echo "== CAP_BPF and CAP_PERFMON"
as_nobody --inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon $STAP -e 'probe begin { println("hi"); exit() }' 2>&1
echo "status $?"
