# The user-memory readers of every width, the *_warn readers and the *2
# aliases in kernel context, on a file name of known bytes
# ("./x\ty\001\303\251..."): signed and unsigned values as stap's
# uconversions.stp gives them, 0 and a WARNING (stderr, here sorted after
# the output) for an address that cannot be read.
cd "$CASE_TMP" || exit 1
name=$'x\ty\001\xc3\xa9"\\z'
printf '#!/bin/bash\nexec cat %q 2>/dev/null\n' "./$name" > run.sh
chmod +x run.sh
$STAP -e '
global done
probe kernel.trace("syscalls:sys_enter_openat") {
  if (pid() != target() || !isinstr(user_string($filename, ""), "./x") || done++) next
  a = $filename
  printf("8:  %d %d %d %d\n", user_int8(a), user_uint8(a + 6), user_int8(a + 6), user_char(a + 6))
  printf("16: %d %d %d %d\n", user_int16(a + 6), user_uint16(a + 6), user_ushort(a + 6), user_short(a + 6))
  printf("32: %d %d %d\n", user_int32(a + 4), user_uint32(a + 4), user_int(a + 4))
  printf("64: %d %d %d %d\n", user_int64(a), user_uint64(a), user_long(a), user_ulong(a))
  printf("0:  %d %d %d %d\n", user_int8(0), user_uint32(0), user_int64(0), user_ulong(0))
  printf("warn: %d %d %d %d %d %d\n", user_char_warn(0), user_short_warn(0), user_ushort_warn(0),
         user_int_warn(0), user_long_warn(0), user_ulong_warn(a))
  printf("strings: [%s] [%s] [%s] [%s] [%s]\n", user_string_warn(0), user_string_warn(8, "dflt"),
         user_string_n_warn(a, 3), user_string2(0, "e2"), user_string_n2(a, 2, "e3"))
  printf("kernel: [%s]\n", kernel_string2(0, "k2"))
}' -c ./run.sh 2>warnings
LC_ALL=C sort warnings
