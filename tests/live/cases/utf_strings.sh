# UTF-16 and UTF-32 strings as UTF-8 (kernel_string_utf16/32 and
# user_string_utf16/32, their err_msg and quoted forms), and the
# user_*_error readers, on a workload's known buffers: a surrogate pair,
# a lone surrogate and a character past U+10FFFF (stap's errors, caught),
# a truncation at MAXSTRINGLEN (the character that does not fit ends the
# string), faults; in begin (kernel memory, read by the runtime) the same
# conversion of a task's comm as in a kernel probe.
cd "$CASE_TMP"
cat > utf.stp <<'STP'
probe begin {
  c = &@cast(pid2task(target()), "task_struct", "kernel")->comm
  printf("begin [%s] %s\n", kernel_string_utf16(c), kernel_string_quoted_utf16(c))
  try { println(kernel_string_utf32(c)) } catch (e) { println(substr(e, 0, 36)) }
  try { println(kernel_string_utf16(0)) } catch (e) { println(e) }
  printf("%s %s\n", kernel_string_utf32(0, "fallback"), kernel_string_quoted_utf32(0))
  system("touch ready")
}
probe syscall.write {
  if (pid() != target()) next
  if (count == 14) {
    c = &@cast(task_current(), "task_struct", "kernel")->comm
    printf("kernel [%s] %s\n", kernel_string_utf16(c), kernel_string_quoted_utf16(c))
    printf("utf16 [%s] %s\n", user_string_utf16(buf_uaddr), user_string_quoted_utf16(buf_uaddr))
    printf("pair cut [%s]\n", user_string_utf16(buf_uaddr + 8, "?"))
  }
  if (count == 20) printf("utf32 [%s] [%s]\n", user_string_utf32(buf_uaddr), user_string2_utf32(buf_uaddr, "?"))
  if (count == 6) {
    try { println(user_string_utf16(buf_uaddr)) } catch (e) { println(substr(e, 0, 35)) }
    printf("%s\n", user_string_utf16(buf_uaddr, "fallback"))
  }
  if (count == 8) { try { println(user_string_utf32(buf_uaddr)) } catch (e) { println(substr(e, 0, 38)) } }
  if (count == 4) {
    printf("%d %d %d %d\n", user_char_error(buf_uaddr), user_uint8_error(buf_uaddr),
           user_short_error(buf_uaddr), user_ushort_error(buf_uaddr))
    printf("%d %d %d\n", user_int_error(buf_uaddr), user_int32_error(buf_uaddr), user_uint16_error(buf_uaddr + 2))
    try { println(user_long_error(0)) } catch (e) { println(e) }
    try { println(user_string_utf32(8)) } catch (e) { println(e) }
    printf("%s %s\n", user_string_utf16(0, "none"), user_string_quoted_utf32(0))
    exit()
  }
}
STP
# The workload writes once its stdin closes: after begin has run (it
# touches "ready"), so the probes are attached (a fixed sleep would race
# a slow start).
mkfifo go
"$LIVE/utf_writes" wait < go &
pid=$!
exec 3> go
"$STAP" -x $pid utf.stp > out 2>&1 3>&- &
stap_pid=$!
for _ in $(seq 300); do [ -e ready ] && break; sleep 0.1; done
exec 3>&-
wait $stap_pid
status=$?
cat out
echo "status $status"
wait $pid
# At MAXSTRINGLEN 8: h é € take 6 bytes, the 4 of U+1D11E do not fit.
"$STAP" -D MAXSTRINGLEN=8 -c "$LIVE/utf_writes" -e 'probe syscall.write {
  if (pid() == target() && count == 20) println(user_string_utf32(buf_uaddr)) }' 2>&1
echo "status $?"
