#! needs: stapbpf
# --format=json on real events: every line of the output parses as JSON
# (python3's parser), and each record type carries what the script did:
# attached, printf, hist (log and linear bounds), map and stats of the
# globals at exit, error, warning, timing (-t), exit; stapbpf too.
cd "$CASE_TMP"
cat > json.stp <<'STP'
global calls, sizes, lin, last, zero, lat
probe kernel.trace("syscalls:sys_enter_getpid") {
  if (pid() != target()) next
  calls[execname(), 7]++
  sizes <<< 5
  lat[pid() > 0] <<< 100
  lin <<< 25; lin <<< -3; lin <<< 500
  printf("hit %d\n", @count(sizes))
  if (@count(sizes) == 2) printf("%d\n", 1 / zero)
}
probe end {
  warn("a warning")
  print(@hist_log(sizes))
  print(@hist_linear(lin, 0, 100, 10))
  last = "done"
}
STP
$STAP -t -DMAXERRORS=5 --format=json -c "$LIVE/getpid_loop 3" json.stp >run.json 2>run.err
echo "stap status $?"
check() {
  python3 - "$1" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
by = {}
for r in records:
    by.setdefault(r["type"], []).append(r)
print("types:", " ".join(sorted(by)))
print("first", records[0]["type"], "last", records[-1]["type"], "status", records[-1]["status"])
a = by["attached"][0]
print("attached", a["probes"], [(p["pp"], p["links"] > 0) for p in a["list"]])
print("printf", [r["data"] for r in by["printf"]])
print("error", [r["msg"] for r in by["error"]])
print("warnings", [r["msg"] for r in by["warning"]])
for h in by["hist"]:
    print("hist", h["name"], h["kind"], h["key"], h["buckets"])
for m in by["map"] + by["stats"]:
    print(m["type"], m["name"], m.get("keys"), m.get("entries", m.get("value")))
for t in by.get("timing", []):
    ok = t["min"] <= t["avg"] <= t["max"] and t["hits"] >= 1
    print("timing", t["pp"], t["location"].split("/")[-1], t["from"], ok)
PY
}
check run.json
grep -v "never-assigned\|source:\|\^\|run failed" run.err >&2
# Records the full buffer dropped are counted, never silent: 8 KiB
# records into a 1 MB buffer, and every one of the 20000 either printed or
# in the lost record's count.
$STAP -DMAXSTRINGLEN=4096 -s 1 --format=json -c "$LIVE/getpid_loop 20000" -e '
probe kernel.trace("syscalls:sys_enter_getpid") {
  if (pid() == target()) printf("%s%s\n", sprintf("%4095d", 1), sprintf("%4095d", 2))
}' >flood.json 2>flood.err
echo "flood status $?"
python3 - flood.json <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
printed = sum(1 for r in records if r["type"] == "printf")
lost = sum(r["records"] for r in records if r["type"] == "lost")
print("flood accounted", printed + lost == 20000, "lost record iff lost", any(r["type"] == "lost" for r in records) == (lost > 0))
PY
cat flood.err >&2
# The same object run by stapbpf, which has the option too.
$STAP -p4 -m json_obj json.stp >/dev/null 2>&1
$STAPBPF --format=json -c "$LIVE/getpid_loop 3" json_obj.bo >bpf.json 2>/dev/null
echo "stapbpf status $?"
python3 -c 'import json, sys; print("stapbpf records", len([json.loads(l) for l in open(sys.argv[1])]) > 5)' bpf.json
