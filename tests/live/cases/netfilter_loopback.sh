#! needs: netfilter
# netfilter hooks over loopback: stap's tapset variables of UDP packets
# sent over IPv4 and IPv6 (the two probes of one hook both run, the second
# at the next free priority); TCP flags of a refused connection (SYN out,
# RST+ACK back in); under -g `$verdict = nf_drop` makes the send fail with
# EPERM while other ports pass; without -g the write is refused in pass 2;
# ARP hooks are refused at attach, naming the families the BPF link takes.
"$STAP" -e 'probe netfilter.ipv4.local_out, netfilter.ip.local_out {
  if (dport == 39911)
    printf("%s %s family=%d %s -> %s:%d proto=%d len=%d out=%s hook=%d data=%s\n", pp(), pf,
           family, saddr, daddr, dport, protocol, length, outdev_name, $hooknum,
           substr(data_hex, strlen(data_hex) - 12, 12))
}' -c 'bash -c "echo -n hello4 > /dev/udp/127.0.0.1/39911; echo -n hello6 > /dev/udp/::1/39911"' | sort
echo "stap exit ${PIPESTATUS[0]}"
"$STAP" -e 'probe netfilter.ipv4.local_out { if (dport == 39912) printf("out syn=%d ack=%d rst=%d\n", syn, ack, rst) }
probe netfilter.ipv4.local_in { if (sport == 39912) printf("in syn=%d ack=%d rst=%d\n", syn, ack, rst) }' \
  -c 'bash -c "echo > /dev/tcp/127.0.0.1/39912" 2>/dev/null'
drop='global dropped, passed
probe netfilter.ipv4.local_out {
  if (dport == 39913) { $verdict = nf_drop; dropped++ }
  else if (dport == 39914) passed++
}
probe end { printf("dropped %d passed %d\n", dropped, passed) }'
"$STAP" -g -e "$drop" -c 'bash -c "echo a > /dev/udp/127.0.0.1/39913; echo a > /dev/udp/127.0.0.1/39914; echo sent"' \
  2>"$CASE_TMP/err"
grep -o 'Operation not permitted' "$CASE_TMP/err"
"$STAP" -p2 -e "$drop" 2>&1 | grep -o 'write to netfilter verdict requires guru mode; need stap -g'
"$STAP" -L 'netfilter.hook("NF_INET_LOCAL_IN").pf("NFPROTO_IPV4")'
"$STAP" -e 'probe netfilter.arp.in { println(ar_op) } probe timer.s(5) { exit() }' 2>"$CASE_TMP/err"
echo "arp exit $?"
head -1 "$CASE_TMP/err"
