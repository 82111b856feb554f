#! needs: tracepoint sock:sock_send_length
# udp.* and tcp.setsockopt on their event forms (sock:sock_*_length, the
# system calls sendto/sendmsg, recvfrom/recvmsg, connect, setsockopt),
# forced so that a kernel that can probe functions runs them too: the
# sizes, addresses and ports of the datagrams of tapset_socket_cases.sh,
# its disconnect, and its two options.
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/../tapset_socket_cases.sh"
tapset_udp
