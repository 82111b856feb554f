^timer expires 1 function 1 offset 16$
^\{\.entry=\{\.next=0x[0-9a-f]+, \.pprev=0x[0-9a-f]+\}, \.expires=[0-9]+, \.function=0x[0-9a-f]+, \.flags=[0-9]+\}$
^defined 0 1$
^skb len 1 queue 1 ip_summed 1 dev 1$
^chars 'l' "lo"$
^status 0$
