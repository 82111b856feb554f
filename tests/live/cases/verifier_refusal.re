^ERROR: the kernel's verifier refused probe kernel\.trace\("syscalls:sys_enter_getpid"\)( at <input>:1)?: invalid read from stack .*\(Permission denied\); -vvv shows its whole log$
^status 1$
^the verifier's log is shown$
!^begin$
!^status 0$
