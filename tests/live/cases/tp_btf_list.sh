# stap -l and -L over kernel.tracepoint: the names BTF has, each argument
# with its name and C type; a pattern nothing matches is stap's error.
"$STAP" -l 'kernel.tracepoint("sched_process_e*")'
"$STAP" -L 'kernel.tracepoint("sched_process_exec")'
"$STAP" -p2 -e 'probe kernel.tracepoint("no_such_tracepoint_x") {}' 2>&1 | head -1
