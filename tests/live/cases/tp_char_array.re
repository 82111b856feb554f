^prev_comm=sleep_switches pid ok 1$
