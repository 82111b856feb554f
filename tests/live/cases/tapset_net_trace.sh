# netdev.receive/transmit, tcp.receive and tcp.recvmsg.return on their
# trace-event forms (net:netif_receive_skb, net:net_dev_queue,
# sock:sock_recv_length: the host cannot probe kernel functions), over a
# TCP connection on loopback: the client sends 3000 bytes to port 47391,
# the server reads them all and closes.
# Forced, so that a kernel that can probe functions runs the events too.
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/../tapset_cases.sh"
script='global nsyn, nfin, data, lo_rx, lo_tx, proto_ip, got, ends, ports_ok
probe tcp.receive {
  if (dport != '$port' && sport != '$port') next
  if (saddr != "127.0.0.1" || daddr != "127.0.0.1" || family != 2 || protocol != 6) next
  if (syn && !ack && dport == '$port') nsyn++
  if (fin) nfin++
  if (psh && ack) data++
}
probe netdev.receive { if (dev_name == "lo" && length > 0 && truesize >= length) { lo_rx = 1; if (protocol == 8) proto_ip = 1 } }
probe netdev.transmit { if (dev_name == "lo" && length > 0) lo_tx = 1 }
probe tcp.recvmsg.return {
  if (pid() != target() || sport != '$port') next
  if (size > 0) got += size
  if (size == 0) ends++
  if (saddr == "127.0.0.1" && daddr == "127.0.0.1" && dport != '$port' && dport > 0) ports_ok = 1
}
probe end {
  printf("syn to server %d, fins %d, data %d\n", nsyn > 0, nfin >= 2, data > 0)
  printf("lo receive %d (IPv4 %d), lo transmit %d\n", lo_rx, proto_ip, lo_tx)
  printf("server recvmsg %d bytes, %d at end, ports %d\n", got, ends, ports_ok)
}'
"$STAP" -e "$script" -c "/usr/bin/python3 -c \"$tcp_workload\""
