# tz_gmtoff(), tz_name() and tz_ctime() from the runtime's time zone at
# start, in the interpreter and in kernel context (a POSIX TZ string:
# no zone database needed).
export TZ=ABC-2
"$STAP" -e '
probe begin { printf("begin %d %s %s\n", tz_gmtoff(), tz_name(), tz_ctime(0)) }
probe syscall.getpid {
  if (pid() != target()) next
  printf("kernel %d %s %s\n", tz_gmtoff(), tz_name(), tz_ctime(86400))
  exit()
}' -c "$LIVE/getpid_loop 3"
