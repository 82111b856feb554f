^ERROR: cannot attach probe process\(".*/victim"\)\.function\("main@.*getpid_loop\.c:[0-9]+"\) with uprobe(\.multi)? in .*/victim: No such file or directory$
^status 1$
!^(x|main)$
