# Functions of socket.stp, scsi.stp, kprocess.stp and rcu.stp on real
# kernel values, in system-call probes of a Python target: a loopback TCP
# connection whose client has SO_KEEPALIVE (TCP_KEEPIDLE 1000 s: its
# keepalive timer is queued) and whose accepted end has not (nothing
# queued there): timer_pending of each keepalive timer (sk->sk_timer;
# Debian's 6.1 has it as icsk_keepalive_timer, from a stable backport
# that left sk_timer unused by TCP); _get_sock_addr
# of each descriptor's file equals the socket the file keeps
# (private_data); rcu_dereference of the task's real_parent; _IS_ERR of a
# failed openat's return (-ENOENT) and of a successful one's.
# _get_sock_addr and _IS_ERR are private since stap 3.0: --compatible=2.9.
cat > "$CASE_TMP/w.py" <<'PY'
import os, socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.create_connection(l.getsockname())
a, _ = l.accept()
c.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1000)
try: os.open("/nonexistent/stap-case", os.O_RDONLY)
except OSError: pass
os.close(os.open("/dev/./null", os.O_RDONLY))
try: os.getpgid(20000000 + c.fileno() * 100 + a.fileno())
except OSError: pass
PY
"$STAP" --compatible=2.9 -e '
@define ka_timer(sk) %( @choose_defined(&@cast(@sk, "inet_connection_sock", "kernel")->icsk_keepalive_timer,
                                        &@cast(@sk, "sock", "kernel")->sk_timer) %)
probe syscall.getpgid {
  if (pid() != target() || $pid < 20000000) next
  cfd = ($pid - 20000000) / 100
  afd = ($pid - 20000000) % 100
  cs = __socket_of_fd(cfd)
  as = __socket_of_fd(afd)
  printf("keepalive socket: timer_pending %d\n", timer_pending(@ka_timer(@cast(cs, "socket", "kernel")->sk)))
  printf("plain socket: timer_pending %d\n", timer_pending(@ka_timer(@cast(as, "socket", "kernel")->sk)))
  printf("_get_sock_addr is the file'"'"'s socket: %d %d\n", _get_sock_addr(__socket_fd_file(cfd)) == cs,
         _get_sock_addr(__socket_fd_file(afd)) == as)
  p = @cast(task_current(), "task_struct", "kernel")->real_parent
  printf("rcu_dereference(real_parent): %d\n", rcu_dereference(p) == p)
}
probe syscall.openat.return {
  if (pid() != target()) next
  f = user_string($filename)
  if (f == "/nonexistent/stap-case") printf("failed open: ret %d, _IS_ERR %d\n", retval, _IS_ERR(retval))
  if (f == "/dev/./null") printf("open: _IS_ERR %d\n", _IS_ERR(retval))
}' -c "python3 $CASE_TMP/w.py"
