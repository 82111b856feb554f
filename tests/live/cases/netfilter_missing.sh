#! needs: no-netfilter
# A kernel without BPF netfilter programs (before 6.4, as the test guest's
# 6.1): netfilter probes stop in pass 3 with the kernel feature they need,
# exit 1, and leave nothing behind.
"$STAP" -e 'probe netfilter.ipv4.local_in { println(saddr) } probe timer.s(5) { exit() }' \
  2>"$CASE_TMP/err"
echo "stap exit $?"
grep -o 'netfilter probes need BPF netfilter programs (BPF_PROG_TYPE_NETFILTER, Linux 6.4 or later with CONFIG_NETFILTER_BPF_LINK)' "$CASE_TMP/err"
