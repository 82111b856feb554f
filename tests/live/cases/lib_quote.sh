# The quoting readers in kernel context on a file name of known bytes
# (tab, \001, UTF-8 e-acute, '"', '\\'), each compared with the known text
# and with string_quoted() of the same bytes in a begin probe: stap's
# _stp_text_str rules in both contexts.  Faults give the address.
cd "$CASE_TMP" || exit 1
name=$'x\ty\001\xc3\xa9"\\z'
printf '#!/bin/bash\nexec cat %q 2>/dev/null\n' "./$name" > run.sh
chmod +x run.sh
$STAP -e '
global done
probe begin {
  printf("user:   %s\n", string_quoted("./x\ty\001\303\251\"\\z"))
  printf("user:   %s\n", text_strn("./x\ty\001\303\251\"\\z", 10, 1))
}
probe kernel.trace("syscalls:sys_enter_openat") {
  if (pid() != target() || !isinstr(user_string($filename, ""), "./x") || done++) next
  a = $filename
  printf("kernel: %s\n", user_string_quoted(a))
  printf("kernel: %s\n", text_strn(user_string(a), 10, 1))
  printf("n:      %s %s %s\n", user_string_n_quoted(a, 5), user_string_n_quoted(a, 20, 8), user_string_n2_quoted(a, 4, 64))
  printf("buffer: %s %s\n", user_buffer_quoted(a, 6, 64), user_buffer_quoted(a, 12, 64))
  printf("cut:    %s %s\n", user_buffer_quoted(a, 12, 12), user_buffer_quoted(a, 12, 0))
  printf("kernel_string_quoted: %s\n", kernel_string_quoted(0))
  printf("faults: %s %s %s %s\n", user_string_quoted(0), user_string_n_quoted(a - a + 16, 4), user_buffer_quoted(8, 4, 64), user_buffer_quoted(8, 4, 3))
  printf("text:   %s|%s\n", text_str(user_string(a)), string_quoted(user_string_n(a, 3)))
  try { println(user_buffer_quoted_error(8, 4, 64)) } catch (e) { printf("error:  %s\n", e) }
}' -c ./run.sh 2>&1
