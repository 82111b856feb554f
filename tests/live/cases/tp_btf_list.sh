# stap -l and -L over kernel.tracepoint: the names BTF has, each argument
# with its name and C type; a pattern nothing matches is stap's error.
"$STAP" -l 'kernel.tracepoint("sched_process_e*")'
"$STAP" -L 'kernel.tracepoint("sched_process_exec")'
# One event of a shared class (block_rq_completion): before 6.4 only the
# class's __bpf_trace_ function names the arguments.
"$STAP" -L 'kernel.tracepoint("block_rq_complete")'
"$STAP" -p2 -e 'probe kernel.tracepoint("no_such_tracepoint_x") {}' 2>&1 | head -1
