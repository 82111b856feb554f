# softirq.entry/.exit: a loopback TCP transfer by the target raises
# NET_RX (vector 3), run in the sender's own context when it re-enables
# bottom halves; the tick raises TIMER (1).  Exits match entries per
# vector (within one: a handler running as the probes attach or detach);
# h, vec and action are 0 on kernels since 2.6.37, as in stap.
#! needs: command python3
cat >"$CASE_TMP/tcp.py" <<'PY'
import socket, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
for i in range(20):
    c.sendall(b'x' * 1000); a.recv(65536)
c.close(); a.close(); time.sleep(0.2)
PY
python=$(python3 -c 'import sys; print(sys.executable)')
script='global n, x, rx_target, nonzero
probe softirq.entry {
  n[vec_nr]++
  if (vec_nr == 3 && pid() == target()) rx_target++
  if (h || vec || action) nonzero++
}
probe softirq.exit { x[vec_nr]++; if (h || vec || action) nonzero++ }
probe end {
  printf("TIMER ran: %d\n", n[1] > 0)
  printf("NET_RX ran in the target: %d\n", rx_target > 0)
  ok = 1
  foreach (v in n) if (n[v] - x[v] > 1 || x[v] - n[v] > 1) ok = 0
  printf("exits match entries: %d\n", ok)
  printf("h, vec, action nonzero: %d\n", nonzero)
}'
"$STAP" -e "$script" -c "$python $CASE_TMP/tcp.py"
