# A bare process.function/.plt/.library(...).plt point under -c probes the
# command's program, and under -x the process's executable, as in stap;
# -l lists that program's points; without -c/-x the point asks for one.
"$STAP" -e 'global plt, lib
probe process.plt("getenv") { plt++ }
probe process.library("*").plt("free") { lib++ }
probe end { printf("ls: plt %d library plt %d\n", plt > 0, lib > 0) }' -c 'ls -d /'
"$STAP" -e 'global fn, calls
probe process.function("main") { fn++ }
probe process.plt("syscall") { calls++ }
probe end { printf("getpid_loop: main %d syscall plt %d\n", fn, calls) }' -c "$LIVE/getpid_loop 7"
live=$(realpath "$LIVE")
"$STAP" -l 'process.plt("getenv")' -c ls
"$STAP" -l 'process.function("main")' -c "$LIVE/getpid_loop 1" | sed -e "s|$live|LIVE|" -e 's/@.*")$/")/'
"$LIVE/getpid_loop" wait 1 < <(sleep 3) &
loop=$!
sleep 0.5
"$STAP" -l 'process.function("main")' -x $loop | sed -e "s|$live|LIVE|" -e 's/@.*")$/")/'
kill $loop 2>/dev/null
wait $loop 2>/dev/null
"$STAP" -p2 -e 'probe process.plt("getenv") {}' 2>&1 | grep -o 'a bare process.plt probe needs the program[^@]*-x'
