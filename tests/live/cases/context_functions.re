^begin pp=begin target>0 1$
^pid=tid 1 target>0 1 ppid>0 1$
^uid=0 euid=0 gid=0 egid=0$
^execname=getpid_loop pexecname=(stap|stapio|stapbpf)$
^cpu ok 1$
^pp=kernel\.trace\("syscalls:sys_enter_getpid"\)$
^clock ok 1 1 1 1$
^end pp=end$
