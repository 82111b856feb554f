# user_* readers in a begin probe read the runtime's own memory, as
# stap's begin probes read stapio's: here its argument area, found from
# task_current()'s mm.  The runtime's argv is [stap, -T, 60, -e, script,
# $1, $2]: $1 is the text under test, $2 empty, so that a UTF-16 read of
# $1 (ten bytes) ends at their two NULs.  Faults are kernel context's: a
# value, a warning or an error, as each reader says.
"$STAP" -T 60 -e '
function skip(a) { while (user_char(a)) a++; return a + 1 }
probe begin {
  mm = @cast(task_current(), "task_struct")->mm
  a = mm->arg_start
  printf("argv0 %d\n", user_string(a) == user_string_n(a, 200))
  for (i = 0; i < 5; i++) a = skip(a)
  printf("end %d\n", skip(skip(a)) == mm->arg_end)
  println(user_string(a))
  println(user_string_n(a, 3))
  println(user_string_quoted(a))
  println(user_string_n_quoted(a, 4, 128))
  println(user_string_n_quoted(a, 40, 10))
  println(user_buffer_quoted(a, 12, 100))
  println(user_buffer_quoted(a, 12, 0), "|")
  printf("%d %d %d %d\n", user_char(a), user_uint8(a + 1), user_short(a), user_int32(a))
  printf("%x %x\n", user_ushort_warn(a + 1), user_uint64(a))
  println(user_string_utf16(a))
  println(user_string(16, "fallback"))
  println(user_string_warn(16, "warned"))
  println(user_string_quoted(16), " ", user_buffer_quoted(16, 4, 5))
  printf("%d %d\n", user_long(16), user_int_warn(16))
  try { println(user_string(16)) } catch (e) { println(e) }
  try { println(user_long_error(16)) } catch (e) { println(e) }
  try { println(user_buffer_quoted_error(16, 4, 8)) } catch (e) { println(e) }
  exit()
}' 'hé "w"	x!' '' 2>&1
echo "status $?"
