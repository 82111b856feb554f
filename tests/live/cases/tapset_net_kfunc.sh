#! needs: kfunc
#! timeout: 300
# netdev.receive/transmit, tcp.receive, tcp.sendmsg and tcp.recvmsg[.return]
# on kernel functions (the test guest), over a TCP connection on
# loopback: the client sends 3000 bytes to port 47391, the server reads
# them all and closes.
. "$(dirname "$0")/../tapset_cases.sh"
script='global nsyn, nfin, data, lo_rx, lo_tx, proto_ip, got, ends, ports_ok, sent, asked
probe tcp.receive {
  if (dport != '$port' && sport != '$port') next
  if (saddr != "127.0.0.1" || daddr != "127.0.0.1" || family != 2 || protocol != 6) next
  if (syn && !ack && dport == '$port') nsyn++
  if (fin) nfin++
  if (psh && ack) data++
}
probe netdev.receive { if (dev_name == "lo" && length > 0 && truesize >= length) { lo_rx = 1; if (protocol == 8) proto_ip = 1 } }
probe netdev.transmit { if (dev_name == "lo" && length > 0) lo_tx = 1 }
probe tcp.sendmsg {
  if (pid() == target() && dport == '$port' && saddr == "127.0.0.1" && daddr == "127.0.0.1" && family == 2) sent += size
}
probe tcp.recvmsg { if (pid() == target() && sport == '$port' && size > 0) asked = 1 }
probe tcp.recvmsg.return {
  if (pid() != target() || sport != '$port') next
  if (size > 0) got += size
  if (size == 0) ends++
  if (saddr == "127.0.0.1" && daddr == "127.0.0.1" && dport != '$port' && dport > 0) ports_ok = 1
}
probe end {
  printf("syn to server %d, fins %d, data %d\n", nsyn > 0, nfin >= 2, data > 0)
  printf("lo receive %d (IPv4 %d), lo transmit %d\n", lo_rx, proto_ip, lo_tx)
  printf("client sendmsg %d bytes; server recvmsg asked %d, got %d bytes, %d at end, ports %d\n",
         sent, asked, got, ends, ports_ok)
}'
"$STAP" -e "$script" -c "/usr/bin/python3 -c \"$tcp_workload\""
