# irq_handler.entry/.exit during direct writes to a file (the disk's
# interrupts), checked against /proc/interrupts read before and after:
# each irq the tapset saw is one the kernel lists, under the name the
# tapset read from the handler's struct irqaction (dev_name), with no
# more hits than the kernel counted; exits match entries; the handlers
# have symbols; the busiest irq's handler returned IRQ_HANDLED.
#! needs: command dd
script='global n, x, handled, sym
probe irq_handler.entry { n[irq, kernel_string(dev_name)]++; sym[irq] = symname(handler) }
probe irq_handler.exit { x[irq, kernel_string(dev_name)]++; if (ret & 1) handled[irq]++ }
probe end {
  foreach ([i, name] in n)
    printf("irq %d %s %d %d %d %s\n", i, name, n[i, name], x[i, name], handled[i], sym[i])
}'
count() { # irq -> total over CPUs, from a /proc/interrupts copy
  awk -v irq="$1:" '$1 == irq { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' "$2"
}
cat /proc/interrupts >"$CASE_TMP/before"
"$STAP" -e "$script" -c "dd if=/dev/zero of=$CASE_TMP/f bs=4k count=300 oflag=direct status=none" >"$CASE_TMP/out" || exit
cat /proc/interrupts >"$CASE_TMP/after"
seen=0 named=1 within=1 paired=1 symbols=1 busiest=0 most=0
while read -r _ irq name entries exits handled sym; do
  seen=1
  line=$(awk -v irq="$irq:" '$1 == irq' "$CASE_TMP/after")
  case "$line" in *" $name"|*" $name,"*) ;; *) named=0; echo "irq $irq: '$name' not in: $line" ;; esac
  delta=$(( $(count "$irq" "$CASE_TMP/after") - $(count "$irq" "$CASE_TMP/before") ))
  [ "$entries" -le "$delta" ] || { within=0; echo "irq $irq: $entries entries, kernel counted $delta"; }
  [ $((entries - exits)) -ge -1 ] && [ $((entries - exits)) -le 1 ] || paired=0
  case "$sym" in ""|0x*) symbols=0 ;; esac
  [ "$entries" -gt "$most" ] && { most=$entries; busiest=$handled; }
done <"$CASE_TMP/out"
echo "irqs seen: $seen"
echo "every dev_name is the kernel's name of its irq: $named"
echo "no irq hit more than the kernel counted: $within"
echo "exits match entries: $paired"
echo "handlers have symbols: $symbols"
echo "the busiest irq's handler returned IRQ_HANDLED: $([ "$busiest" -gt 0 ] && echo 1 || echo 0)"
