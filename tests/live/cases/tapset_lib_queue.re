^service about 200 ms$
^wait over service ok$
^queue length under 1: 1$
^utilization most$
^throughput positive 1$
^sleep: [0-9]+\.[0-9]{3} ops/s, 0\.[0-9]{3} qlen, [0-9]+ await, 2[0-9]{5} svctm, [0-9]+% wait, [4-9][0-9]% util$
