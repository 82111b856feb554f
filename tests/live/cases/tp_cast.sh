# @cast in tracepoint probes, on this host (no kernel.function needed):
# members read through a pointer field agree with the event's own fields
# (timer_list's expires/function, an sk_buff's length, queue, the 2-bit
# ip_summed bitfield, its device's name char array through kernel_string),
# & is the member's address, and $ / $$ pretty-print.
# The traffic: one TCP connection over loopback.
traffic='import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); c.send(b"x" * 100)
a, _ = s.accept(); a.recv(100)'
"$STAP" -e 'global timers, xmits
probe kernel.trace("timer:timer_start") {
  if (timers++) next
  t = $timer
  printf("timer expires %d function %d offset %d\n",
         @cast(t, "timer_list")->expires == $expires,
         @cast(t, "struct timer_list", "kernel")->function == $function,
         &@cast(t, "timer_list")->expires - t)
  println(@cast(t, "timer_list")$$)
  printf("defined %d %d\n", @defined(@cast(t, "timer_list")->nope),
         @defined(@cast(t, "timer_list")->flags))
}
probe kernel.trace("net:net_dev_start_xmit") {
  if (pid() != target() || xmits++) next
  skb = $skbaddr
  printf("skb len %d queue %d ip_summed %d dev %d\n",
         @cast(skb, "sk_buff")->len == $len,
         @cast(skb, "sk_buff")->queue_mapping == $queue_mapping,
         @cast(skb, "sk_buff")->ip_summed == $ip_summed,
         kernel_string(@cast(skb, "sk_buff")->dev->name) == $name)
  # Pretty-printed: a char quoted as by %#c, a char array as a quoted string.
  printf("chars %s %s\n", @cast(@cast(skb, "sk_buff")->dev->name, "char")$,
         @cast(skb, "sk_buff")->dev->name$)
}' -c "python3 -c '$traffic'" 2>"$CASE_TMP/err"
echo "status $?"
cat "$CASE_TMP/err" >&2
