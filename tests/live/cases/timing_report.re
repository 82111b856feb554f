^begin$
^calls=5$
^----- probe hit report: $
^kernel\.trace\("syscalls:sys_enter_getpid"\), \(@CASES@/timing_report\.stp:6:1\), hits: [0-9]+, nsecs: [0-9]+min/[0-9]+avg/[0-9]+max, variance: [0-9]+, from: kernel\.trace\("syscalls:sys_enter_getpid"\) from: syscall\.getpid, index: [0-9]+$
^kernel\.trace\("syscalls:sys_enter_getpid"\), \(@CASES@/timing_report\.stp:7:1\), hits: [0-9]+, .*, from: kernel\.trace\("syscalls:sys_enter_getpid"\), index: [0-9]+$
^begin, \(@CASES@/timing_report\.stp:9:1\), hits: 1, nsecs: [0-9]+min/[0-9]+avg/[0-9]+max, variance: 0, from: begin, index: [0-9]+$
^end, \(@CASES@/timing_report\.stp:10:1\), hits: 1, .*, from: end, index: [0-9]+$
!never
!timer
