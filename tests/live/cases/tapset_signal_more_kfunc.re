^syskill SIGCONT \(18\) to sleep: sig_pid is the child 1, task's pid 1$
^syskill returns 0$
^systkill SIGWINCH \(28\) to sleep: sig_pid is the child 1, task's pid 1$
^systkill returns 0$
^systgkill SIGURG \(23\) to sleep: sig_pid is the child 1, task's pid 1$
^tgid is the child 1$
^systgkill returns 0$
^syskill SIGTERM \(15\) to sleep: sig_pid is the child 1, task's pid 1$
^syskill returns 0$
^do_action SIGUSR1 handler an address mask 0$
^do_action returns 0$
^do_action SIGUSR2 handler ignored mask 0$
^do_action returns 0$
^procmask how 0 sigset 1,10 oldsigset_addr 0$
^procmask returns 0, blocked: HUP 1 USR1 1 USR2 0$
^pending set 1 size 8$
^pending returns 0$
^send_sig_queue SIGALRM to the target 1$
^check_ignored SIGCONT sleep, SIGWINCH sleep, SIGURG sleep, SIGTERM sleep$
^check_ignored\.return while killing: 1 1 1 0$
^checkperm: SIGCONT=0 SIGWINCH=0 SIGURG=0 SIGTERM=0$
