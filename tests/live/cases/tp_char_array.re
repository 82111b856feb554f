^prev_comm=getpid_loop pid ok 1$
