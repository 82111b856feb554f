# Sourced by the benchmarks that read the kernel's own timing of a
# tracer's BPF programs (kernel.bpf_stats_enabled must be 1).
# prog_stats PID: "run_time_ns run_cnt" summed over the BPF programs
# process PID holds (their fdinfo), so other tracers running meanwhile do
# not count.
prog_stats() {
  local f t=0 c=0 k v
  for f in /proc/"$1"/fd/*; do
    [[ $(readlink "$f") == *bpf-prog* ]] || continue
    while read -r k v; do
      case $k in run_time_ns:) t=$((t + v)) ;; run_cnt:) c=$((c + v)) ;; esac
    done < /proc/"$1"/fdinfo/"${f##*/}"
  done
  echo "$t $c"
}
