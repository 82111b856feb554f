# --metrics refused with a clear message and exit status 1, before any
# probe ran: a port another program holds, an address not of this host, a
# malformed spec.  Nothing is left behind (the runner checks).
python3 - "$STAP" <<'PY'
import socket, subprocess, sys
held = socket.socket(); held.bind(("127.0.0.1", 0)); held.listen()
port = held.getsockname()[1]
run = subprocess.run([sys.argv[1], "--metrics=%d" % port, "-e", 'probe begin { printf("began\\n"); exit() }'],
                     capture_output=True, text=True)
print(run.stdout + run.stderr.replace(":%d:" % port, ":PORT:"), end="")
print("in use: status", run.returncode)
PY
$STAP --metrics=192.0.2.1:9 -e 'probe begin { printf("began\n"); exit() }' 2>&1
echo "not this host: status $?"
$STAP --metrics=70000 -e 'probe begin { exit() }' 2>&1
echo "bad port: status $?"
$STAPBPF --metrics=x:y nothing.bo 2>&1 | head -1
