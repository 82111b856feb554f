#! needs: kfunc
#! timeout: 300
# udp.* and tcp.setsockopt on kernel functions (udp_sendmsg, udp_recvmsg,
# udp_disconnect, tcp_setsockopt, ipv6_setsockopt: the test guest), with
# the expected output of tapset_udp_trace.
. "$(dirname "$0")/../tapset_socket_cases.sh"
tapset_udp
