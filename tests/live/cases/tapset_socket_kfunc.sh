#! needs: kfunc
#! timeout: 300
# socket.* on kernel functions (security_socket_sendmsg, sock_sendmsg,
# sock_recvmsg, __sock_create, __sock_release: the test guest), over the
# workload of tapset_socket_trace.  One line more than there: __sock_create releases
# the socket of the failing socket() call (no ops yet: family and
# protocol UNDEF), which the event form (close) never sees.  And four
# fewer: Debian's 6.1 inlines sock_sendmsg into sendto's and sendmsg's
# system calls, so socket.send (sock_sendmsg.return) sees none of the
# workload's sends, as in stap, which cannot probe an inlined copy's
# return either; socket.sendmsg sees them all (security_socket_sendmsg).
. "$(dirname "$0")/../tapset_socket_cases.sh"
tapset_socket
