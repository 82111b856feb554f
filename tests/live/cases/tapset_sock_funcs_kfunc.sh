#! needs: kfunc
#! timeout: 120
# _get_sock_size over a real kernel struct iovec array, and
# _get_sock_addr of a socket's file, on kernel functions (the test
# guest): security_socket_sendmsg sees each send's msghdr, whose
# msg_iter points at the kernel's copy of the user's iovec (iov until
# 6.3, __iov since).  A Python target sends 20+30 and 10+20+30 bytes
# with sendmsg over UDP on loopback (several segments: an iovec iterator;
# one segment would be a ubuf).  _get_sock_addr of the socket's file is
# the socket.  Both are private since stap 3.0: --compatible=2.9.
cat > "$CASE_TMP/w.py" <<'PY'
import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendmsg([b"a" * 20, b"b" * 30], [], 0, r.getsockname())
s.sendmsg([b"a" * 10, b"b" * 20, b"c" * 30], [], 0, r.getsockname())
PY
"$STAP" --compatible=2.9 -e '
probe kernel.function("security_socket_sendmsg") {
  if (pid() != target()) next
  n = $msg->msg_iter->nr_segs
  if (n < 2) next
  iov = @choose_defined($msg->msg_iter->__iov, $msg->msg_iter->iov)
  printf("%d segments: _get_sock_size %d, count %d, _get_sock_addr is the socket %d\n", n,
         _get_sock_size(iov, n), $msg->msg_iter->count, _get_sock_addr($sock->file) == $sock)
  printf("first segment only: %d; null array: %d\n", _get_sock_size(iov, 1), _get_sock_size(0, n))
}' -c "python3 $CASE_TMP/w.py"
