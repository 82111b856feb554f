^kernel\.tracepoint\("sched_process_exec"\) sched_process_exec$
^exec (/usr)?/bin/cat pid 1 old 1 same 1 system \[\]$
^parms p=0x[0-9a-f]+ old_pid=0x[0-9a-f]+ bprm=0x[0-9a-f]+$
^defined 1 0$
