#!/usr/bin/env bash
# --metrics under load: the time one GET /metrics takes for a script with a
# 10,000-key array, and how much a traced workload slows while a scraper
# asks as fast as it can (a real Prometheus asks every 15 s or so).
# A program that prints figures, not a test.
#   tests/bench/bench_metrics.sh BUILD_DIR [KEYS]
set -euo pipefail
build=$(realpath "${1:-build}")
keys=${2:-10000}
loop=$build/tests/live/getpid_loop
[ "$(id -u)" -eq 0 ] || { echo "bench_metrics: needs root" >&2; exit 1; }
work=$(mktemp -d /tmp/stap-bench-metrics.XXXXXX)
trap 'kill $stap_pid 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SYSTEMTAP_DIR=$work/cache
"$build/stap" -D MAXMAPENTRIES=$((keys * 2)) -D MAXACTION=$((keys * 10)) --metrics=127.0.0.1:$port -e "
global big, hits
probe begin { for (i = 0; i < $keys; i++) big[i, \"key\"] = i }
probe kernel.trace(\"syscalls:sys_enter_getpid\") { hits++ }" >/dev/null &
stap_pid=$!
python3 - "$port" "$loop" "$keys" <<'PY'
import statistics, subprocess, sys, threading, time, urllib.request
port, loop, keys = sys.argv[1], sys.argv[2], int(sys.argv[3])
url = "http://127.0.0.1:%s/metrics" % port
def scrape():
    t = time.perf_counter()
    body = urllib.request.urlopen(url, timeout=30).read()
    return time.perf_counter() - t, body
for _ in range(200):
    try:
        _, body = scrape()
        if body.count(b"\nstap_big{") >= keys: break
    except OSError:
        pass
    time.sleep(0.05)
times = [scrape()[0] for _ in range(20)]
print("keys %d: one scrape %.1f ms (median of 20), %d bytes" % (keys, statistics.median(times) * 1e3, len(body)))
def workload():
    t = time.perf_counter()
    subprocess.run([loop, "5000000"], check=True)
    return time.perf_counter() - t
quiet = statistics.median(workload() for _ in range(3))
stop = threading.Event()
count = [0]
def scraper():
    while not stop.is_set():
        scrape(); count[0] += 1
thread = threading.Thread(target=scraper); thread.start()
busy = statistics.median(workload() for _ in range(3))
stop.set(); thread.join()
print("5M traced getpid calls: %.0f ms alone, %.0f ms while scraping nonstop (%d scrapes): %+.1f%%"
      % (quiet * 1e3, busy * 1e3, count[0], (busy / quiet - 1) * 100))
PY
