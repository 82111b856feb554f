^getpid_loop getpid_loop child ok 1$
