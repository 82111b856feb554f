#! needs: kfunc
#! timeout: 300
# socket.* on kernel functions (sock_sendmsg, sock_recvmsg, __sock_create,
# __sock_release: the test guest), over the workload of
# tapset_socket_trace.  One line more than there: __sock_create releases
# the socket of the failing socket() call (no ops yet: family and
# protocol UNDEF), which the event form (close) never sees.
. "$(dirname "$0")/../tapset_socket_cases.sh"
tapset_socket
