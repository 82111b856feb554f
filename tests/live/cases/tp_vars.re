^syscalls sys_enter_getpid \[__syscall_nr=0x27\]$
^timer timer_start timer=0x[0-9a-f]+ function=0x[0-9a-f]+ expires=0x[0-9a-f]+ bucket_expiry=0x[0-9a-f]+ now=0x[0-9a-f]+ flags=0x[0-9a-f]+$
