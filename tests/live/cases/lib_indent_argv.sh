# indent(), thread_indent(), indent_depth() (tapsets/indent.stp: script
# code with global arrays, so the same in a begin probe and in a kernel
# probe) and argc/argv (tapsets/argv.stp, filled before begin probes from
# the script's arguments, or from -G argv_N=...).
cat > "$CASE_TMP/t.stp" <<'EOS'
global seen
probe begin {
  printf("%s|%s|%d|%d\n", substr(indent(1), 6, 10), substr(indent(1), 6, 10), indent_depth(-1), indent_depth(-1))
  printf("[%s]\n", substr(thread_indent(2), 0, 1))
  printf("argc=%d argv[1]=%s argv[2]=%s argv[3]=[%s]\n", argc, argv[1], argv[2], argv[3])
}
probe kernel.trace("sched:sched_process_exit") {
  if (pid() != target() || seen++) next
  printf("k: %s|%s|%d|%d\n", substr(indent(1), 6, 10), substr(indent(1), 6, 10), indent_depth(-1), indent_depth(-1))
  t = thread_indent(1)
  printf("k: %d %s\n", isinstr(t, sprintf(" cat(%d):", tid())), substr(t, strlen(t) - 1, 1) == ":" ? "nodepth" : "depth")
  printf("k: argc=%d argv[1]=%s\n", argc, argv[1])
}
EOS
$STAP "$CASE_TMP/t.stp" -c 'cat /dev/null' hello "two words"
$STAP -G argc=1 -G argv_1=fromG -e 'probe begin { printf("argc=%d argv[1]=%s argv[2]=[%s]\n", argc, argv[1], argv[2]); exit() }' x y
