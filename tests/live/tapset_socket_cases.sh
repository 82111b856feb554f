# Shared bodies of the tapset_socket_*, tapset_udp_* and
# tapset_netdev_more_* live cases: the same script and workload on trace
# events and system calls (STAP_KFUNC_MECHANISM=none) and on kernel
# functions (the test guest).

# The UDP workload, as the -c command: a receiver bound to 127.0.0.1:47555
# and a sender bound to 127.0.0.1:47556.  The sender sends 100, 200 and
# 300 bytes with sendto (unconnected), connects, sends 20+30 bytes in one
# sendmsg, then disconnects (connect to AF_UNSPEC).  The receiver takes
# the first three with recvfrom(4096), the last with recvmsg(4096).  A
# socket(AF_INET, SOCK_STREAM, IPPROTO_UDP) fails with EPROTONOSUPPORT.
# Then a TCP socket sets TCP_NODELAY (level 6) and an IPv6 TCP socket
# IPV6_V6ONLY (level 41, option 26).  What it prints goes to a file, which
# udp_workload_report shows after the session's output.
udp_rport=47555
udp_sport=47556
udp_workload_file=$CASE_TMP/udp_workload.py
udp_workload_out=$CASE_TMP/udp_workload.out
cat >"$udp_workload_file" <<EOF
import ctypes, socket, sys
sys.stdout = open("$udp_workload_out", "w")
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", $udp_rport))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", $udp_sport))
for n in (100, 200, 300):
    s.sendto(b"x" * n, ("127.0.0.1", $udp_rport))
got = [len(r.recvfrom(4096)[0]) for _ in range(3)]
s.connect(("127.0.0.1", $udp_rport))
s.sendmsg([b"a" * 20, b"b" * 30])
got.append(len(r.recvmsg(4096)[0]))
unspec = (ctypes.c_char * 16)()
libc = ctypes.CDLL(None, use_errno=True)
print("disconnect", libc.connect(s.fileno(), unspec, 16))
s.close(); r.close()
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_UDP)
except OSError as e:
    print("bad socket errno", e.errno)
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1); t.close()
t6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
t6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1); t6.close()
print("received", got)
EOF
udp_workload="/usr/bin/python3 $udp_workload_file"
udp_workload_report() { cat "$udp_workload_out"; }

# socket.*: what the workload's sockets did, in order, with their names.
tapset_socket() {
  local script='
probe socket.create {
  if (pid() == target())
    printf("%s %s %s %s req %d\n", name, sock_fam_num2str(family),
           sock_type_num2str(type), sock_prot_num2str(protocol), requester)
}
probe socket.create.return {
  if (pid() == target())
    printf("%s %s %s err %d success %d\n", name, sock_fam_num2str(family),
           sock_type_num2str(type), err, success)
}
probe socket.sendmsg, socket.recvmsg {
  if (pid() == target() && protocol == 17)
    printf("%s %d %s %s %s %s\n", name, size, sock_fam_num2str(family),
           sock_type_num2str(type), sock_prot_num2str(protocol), sock_state_num2str(state))
}
probe socket.send, socket.receive {
  if (pid() == target() && protocol == 17)
    printf("%s %d success %d %s\n", name, size, success, sock_state_num2str(state))
}
probe socket.close {
  if (pid() == target())
    printf("%s %s %s %s %s\n", name, sock_fam_num2str(family), sock_type_num2str(type),
           sock_prot_num2str(protocol), sock_state_num2str(state))
}
global closes
probe socket.close.return { if (pid() == target()) closes++ }
probe end {
  printf("close.return %d\n", closes)
  printf("%s %s %d %d\n", sock_prot_num2str(136), sock_fam_num2str(99), sock_prot_str2num("UDP"), sock_type_str2num("NOPE"))
  printf("[%s] [%s] [%s]\n", msg_flags_num2str(0x4041), msg_flags_num2str(0), sock_flags_num2str(0x1c))
}'
  "$STAP" -e "$script" -c "$udp_workload"
  udp_workload_report
}

# udp.*: sizes, addresses and ports of the workload's datagrams.
tapset_udp() {
  local script='
probe udp.sendmsg, udp.recvmsg {
  if (pid() == target())
    printf("%s %d %s:%d -> %s:%d family %d sock %d\n", name, size, saddr, sport, daddr, dport, family, sock != 0)
}
probe udp.sendmsg.return, udp.recvmsg.return {
  if (pid() == target())
    printf("%s.return %d %s:%d -> %s:%d\n", name, size, saddr, sport, daddr, dport)
}
probe udp.disconnect {
  if (pid() == target())
    printf("%s flags %d %s:%d -> %s:%d\n", name, flags, saddr, sport, daddr, dport)
}
probe udp.disconnect.return {
  if (pid() == target())
    printf("%s.return %d %s:%d -> %s:%d\n", name, ret, saddr, sport, daddr, dport)
}
global opts, rets
probe tcp.setsockopt {
  if (pid() == target())
    opts[sprintf("%s family %d level %d %s optlen %d", name, family, level, optstr, optlen)]++
}
probe tcp.setsockopt.return { if (pid() == target()) rets[name, ret]++ }
probe end {
  foreach (o+ in opts) printf("%s: %d\n", o, opts[o])
  foreach ([n+, r] in rets) printf("%s.return %d: %d\n", n, r, rets[n, r])
}'
  "$STAP" -e "$script" -c "$udp_workload"
  udp_workload_report
}

# netdev.hard_transmit, netdev.rx: the workload's datagrams on lo, each
# an Ethernet frame of 14 + 20 + 8 bytes of headers and its payload.
# With "rx", also that they came back through netif_rx (the event does;
# loopback calls __netif_rx, which the function form does not see).
tapset_netdev_more() {
  local rx_probe='' rx_line=''
  if [ "${1:-}" = rx ]; then
    rx_probe='global rx
probe netdev.rx { if (dev_name == "lo" && protocol == 8 && netdev != 0) rx++ }'
    rx_line='printf("rx %d\n", rx >= 4)'
  fi
  local script='global tx
probe netdev.hard_transmit {
  if (dev_name == "lo" && protocol == 8 && truesize >= length) tx[length]++
}
'"$rx_probe"'
probe end {
  foreach (len in tx+) if (len == 142 || len == 242 || len == 342 || len == 92) printf("tx %d: %d\n", len, tx[len])
  '"$rx_line"'
}'
  "$STAP" -e "$script" -c "$udp_workload"
  udp_workload_report
}

# netdev's configuration probes on a dummy device (kernel functions
# only): created (register), MTU 1500 -> 1400, MAC set to
# 02:00:00:00:00:01, promiscuous on and off through a packet socket's
# membership, SIOCGIFMTU asked of it, its statistics read by ip.
netdev_dev=stapdummy0
netdev_workload_file=$CASE_TMP/netdev_workload.sh
cat >"$netdev_workload_file" <<EOF
ip link add $netdev_dev type dummy || exit 1
ip link set $netdev_dev mtu 1400
ip link set $netdev_dev address 02:00:00:00:00:01
/usr/bin/python3 -c '
import fcntl, socket, struct
idx = socket.if_nametoindex("$netdev_dev")
p = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
mreq = struct.pack("iHH8s", idx, 1, 0, b"")  # PACKET_MR_PROMISC
p.setsockopt(263, 1, mreq)                   # SOL_PACKET, PACKET_ADD_MEMBERSHIP
p.setsockopt(263, 2, mreq)                   # PACKET_DROP_MEMBERSHIP
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r = fcntl.ioctl(u, 0x8921, struct.pack("16s16x", b"$netdev_dev"))  # SIOCGIFMTU
print("mtu", struct.unpack("16si12x", r)[1])' >"$CASE_TMP/netdev_workload.out"
ip -s link show $netdev_dev >/dev/null
EOF

# Fails (with the reason as its output) where no dummy device can be made.
# The module is loaded first: the kernel's own request for it runs
# modprobe outside the test guest's chroot, where it finds no modules.
tapset_netdev_config() {
  modprobe dummy numdummies=0 2>/dev/null
  if ! ip link add stapprobe0 type dummy 2>"$CASE_TMP/dummy.err"; then
    echo "no dummy network device here: $(cat "$CASE_TMP/dummy.err")"
    return 1
  fi
  ip link del stapprobe0
  trap 'ip link del '"$netdev_dev"' 2>/dev/null' EXIT
  local script='global stats
probe netdev.register { if (dev_name == "'$netdev_dev'") printf("register %s\n", dev_name) }
probe netdev.change_mtu { if (dev_name == "'$netdev_dev'") printf("change_mtu %d -> %d\n", old_mtu, new_mtu) }
probe netdev.change_mac { if (dev_name == "'$netdev_dev'") printf("change_mac len %d to %s (from another %d)\n", mac_len, new_mac, old_mac != new_mac) }
probe netdev.set_promiscuity { if (dev_name == "'$netdev_dev'") printf("set_promiscuity enable %d disable %d inc %d\n", enable, disable, inc) }
probe netdev.ioctl { if (cmd == 0x8921 && execname() == "python3") printf("ioctl 0x%x %s\n", cmd, arg) }
probe netdev.get_stats { if (dev_name == "'$netdev_dev'") stats = 1 }
probe end { printf("get_stats %d\n", stats) }'
  "$STAP" -e "$script" -c "sh $netdev_workload_file"
  cat "$CASE_TMP/netdev_workload.out"
}
