^return 1$
^count 1 1$
^f_pos at entry 0$
^name hostname$
^return=0x[0-9a-f]+$
^file=0xffff[0-9a-f]+ buf=0x[0-9a-f]+ count=0x[0-9a-f]+ pos=0xffff[0-9a-f]+$
