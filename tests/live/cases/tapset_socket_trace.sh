#! needs: tracepoint sock:sock_send_length
# socket.* on their event forms (sock:sock_send_length/sock_recv_length
# for the returns, the socket system calls for the rest), forced so that
# a kernel that can probe functions runs them too: the UDP workload of
# tapset_socket_cases.sh, each send and receive with its size, each
# socket created and closed with its names, a socket() that fails.
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/../tapset_socket_cases.sh"
tapset_socket
