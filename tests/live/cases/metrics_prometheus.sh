#! needs: command prometheus promtool
#! timeout: 90
# --metrics with the real consumers: GET /metrics while the script runs
# (the workload's exact count, a histogram, a probe prometheus body's
# lines), promtool's parser and linter on that text, then a Prometheus
# server on loopback that scrapes the endpoint and answers a query of its
# HTTP API with the script's counter.
cd "$CASE_TMP"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
get() { python3 - "$1" <<'PY'
import sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode(), end="")
except Exception as e:
    print("GET failed:", e, file=sys.stderr); sys.exit(1)
PY
}
port=$(free_port); prom_port=$(free_port)
cat > metrics.stp <<'STP'
global getpid_calls, sizes, by_name, by_program
probe kernel.trace("syscalls:sys_enter_getpid") {
  if (execname() != "getpid_loop") next
  getpid_calls++
  by_program[execname(), 1]++
  sizes <<< 5; sizes <<< 300
  by_name["quote\"d"] = 2
}
probe end {
  print(@hist_log(sizes))
  foreach ([program, one] in by_program) printf("%s %d\n", program, one)
}
probe prometheus {
  $value .= "# TYPE script_quoted gauge\n# HELP script_quoted an array the script formats\n"
  @prometheus_dump_array1(by_name, "script_quoted", "name")
}
STP
"$STAP" -T 80 --metrics=127.0.0.1:$port metrics.stp >stap.out 2>stap.err &
stap_pid=$!
for i in $(seq 100); do get "http://127.0.0.1:$port/metrics" >/dev/null 2>&1 && break; sleep 0.1; done
"$LIVE/getpid_loop" 7
get "http://127.0.0.1:$port/metrics" >scrape.txt
grep -E '^(stap_getpid_calls|stap_sizes_bucket|stap_sizes_count|stap_by_|script_quoted)' scrape.txt
tail -1 scrape.txt
promtool check metrics <scrape.txt
echo "promtool status $?"

cat > prometheus.yml <<YML
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: stap
    static_configs: [ { targets: ["127.0.0.1:$port"] } ]
YML
prometheus --config.file=prometheus.yml --storage.tsdb.path=data \
  --web.listen-address=127.0.0.1:$prom_port >prometheus.log 2>&1 &
prom_pid=$!
answer=
for i in $(seq 300); do
  answer=$(get "http://127.0.0.1:$prom_port/api/v1/query?query=stap_getpid_calls" 2>/dev/null |
    python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
  [ -n "$answer" ] && break
  sleep 0.1
done
echo "prometheus query stap_getpid_calls: $answer"
kill $prom_pid; wait $prom_pid 2>/dev/null
[ -n "$answer" ] || tail -20 prometheus.log >&2
kill -INT $stap_pid; wait $stap_pid
echo "stap status $?"
# After the run the port is closed.
get "http://127.0.0.1:$port/metrics" >/dev/null 2>&1 || echo "endpoint closed"
cat stap.err >&2
