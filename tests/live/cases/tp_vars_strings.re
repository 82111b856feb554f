^prev_comm="sleep_switches" prev_pid=0x[0-9a-f]+ prev_prio=0x[0-9a-f]+ prev_state=0x[0-9a-f]+ next_comm="[^"]*" next_pid=0x[0-9a-f]+ next_prio=0x[0-9a-f]+$
