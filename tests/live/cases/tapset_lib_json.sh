# json.stp and json.stpm: metadata.json and data.json served as procfs
# files; both must parse (python3's json module), the metadata list every
# metric declared, and each read of data.json run the json_data probe
# again (the read counter goes 1, 2).
#! needs: command python3
#! timeout: 60
cd "$CASE_TMP"
dir=/var/tmp/systemtap-$(id -un)/live_json
cat > json.stp <<'STP'
global reads
probe json_data {
  reads++
  @json_output_data_start
  @json_output_numeric_value("reads", reads)
  @json_output_string_value("name", "foo")
  @json_output_array_numeric_value("cpus", "0", "count", 10 * reads)
  @json_output_array_string_value("cpus", "0", "state", "up")
  @json_output_array_numeric_value("cpus", "1", "count", 20 * reads)
  @json_output_array_string_value("cpus", "1", "state", "down")
  @json_output_data_end
}
probe begin {
  json_set_prefix("live")
  json_add_numeric_metric("reads", "data reads", "count")
  json_add_string_metric("name", "")
  json_add_array("cpus", "per cpu")
  json_add_array_numeric_metric("cpus", "count", "events", "count")
  json_add_array_string_metric("cpus", "state", "")
}
probe procfs("stop").write { exit() }
STP
$STAP -m live_json json.stp > out 2> err &
pid=$!
for _ in $(seq 400); do [ -p "$dir/stop" ] && break; sleep 0.05; done
cat "$dir/metadata.json" > meta
cat "$dir/data.json" > data1
cat "$dir/data.json" > data2
echo x > "$dir/stop"
wait $pid; echo "status $?"
# json.tool says whether it parses; the metric lists are then sorted by
# name, as their order is the hash's.
norm='import json, sys
def n(v):
    if isinstance(v, dict): return {k: n(x) for k, x in v.items()}
    if isinstance(v, list): return sorted((n(x) for x in v), key=lambda x: x.get("name", "") if isinstance(x, dict) else "")
    return v
print(json.dumps(n(json.load(sys.stdin)), sort_keys=True, separators=(",", ":")))'
for f in meta data1 data2; do python3 -m json.tool $f > /dev/null && python3 -c "$norm" < $f || cat $f; done
cat out err
