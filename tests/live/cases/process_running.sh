#! timeout: 120
# process.begin and .thread.begin for what runs before the script, as stap
# reports it at its start: once per process (thread), after the begin
# probes, with pid(), tid(), ppid(), execname() and uid() its own:
#  - process("P").begin: a P process started before the script;
#  - process(PID).begin and .thread.begin: that process, each thread but
#    the leader once;
#  - -x PID: the target and its children, not the runtime's process;
#  - -c: only the command's own .begin, when it execs (its held child is
#    not reported as running);
#  - a body that needs a kernel probe, or asks what user context answers
#    for the runtime's own task (user_mode(), user_string() ...), runs for
#    new processes only, and a warning says why.
T=$LIVE/threads_sleep
$T 4 60 > "$CASE_TMP/ready" & threads=$!
sleep 60 & sleeper=$!
for _ in $(seq 100); do grep -q ready "$CASE_TMP/ready" && break; sleep 0.1; done
sleep_path=$(readlink -f "$(command -v sleep)")

"$STAP" -e 'probe begin { println("begin probe") }
probe process("'$sleep_path'").begin {
  if (pid() == '$sleeper') printf("P: sleep %d, its parent %s, uid %d\n", pid() == tid(), ppid() == '$$' ? "this shell" : "another", uid())
}
probe timer.ms(200) { exit() }'

"$STAP" -e 'global threads
probe process('$threads').begin { printf("PID: %s, pid matches %d\n", execname(), pid() == '$threads') }
probe process('$threads').thread.begin { if (pid() == '$threads' && tid() != pid()) threads[tid()]++ }
probe timer.ms(200) {
  n = 0; once = 1
  foreach (t in threads) { n++; if (threads[t] != 1) once = 0 }
  printf("PID: %d threads, each once %d\n", n, once)
  exit()
}'

"$STAP" -e 'probe process.begin { printf("-x: %s\n", execname()) } probe timer.ms(200) { exit() }' -x $threads
"$STAP" -e 'probe process.begin { printf("-c: %s\n", execname()) }' -c true

"$STAP" -e 'probe process.begin { if (task_current() != 0) printf("kernel body: %s\n", execname()) }' \
  -c true 2>"$CASE_TMP/err"
grep -o 'runs for the processes that start after the script, not for those already running' "$CASE_TMP/err"
"$STAP" -e 'probe process.begin { if (!user_mode()) printf("user_mode body: %s\n", execname()) }' \
  -c true 2>"$CASE_TMP/err"
grep -o "user_mode() answers for the runtime's own task" "$CASE_TMP/err"
kill $threads $sleeper 2>/dev/null
wait $threads $sleeper 2>/dev/null
exit 0
