# A glob in process("PATH") is a program per file it names, each once by
# its canonical path, as in stap: -l lists every one, and a probe runs in
# each of them; a glob that names nothing says so.
"$STAP" -l 'process("/usr/bin/l[sn]").plt("setlocale")'
"$STAP" -e 'global n
probe process("/usr/bin/l[sn]").plt("setlocale") { n[execname()]++ }
probe end { foreach (e in n+) printf("%s %d\n", e, n[e]) }' -c 'bash -c "ls -d / >/dev/null; ln --version >/dev/null"'
"$STAP" -p2 -e 'probe process("/no/such/dir*/x").function("main") {}' 2>&1 | grep -o '/no/such/dir\*/x: no such file'
