#! needs: kfunc
#! needs: command python3
#! timeout: 300
# tty.* on kernel functions (the test guest) over a pseudo-terminal pair:
# open (ptmx and its slave), init (the pair's allocation), two window
# sizes set through the slave and the master, a write and a read on each
# side, the line discipline receiving what the master wrote, polls and
# both releases.  A pts number reads N.  ptmx opens through ptmx_open,
# not tty_open (only its release is seen); the opens of /dev/tty that
# Python makes at start are left out.  tty.write's buffer is "", as in
# stap (its alias asks kernel_buffer_quoted for at most 0 characters).
cat >"$CASE_TMP/pty.py" <<'PY'
import fcntl, os, select, struct, termios
m, s = os.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 640, 480))
os.write(s, b"hello\n")
select.select([m], [], [], 5)
os.read(m, 100)
os.write(m, b"typed\n")
select.select([s], [], [], 5)
os.read(s, 100)
os.close(s)
os.close(m)
PY
"$STAP" -e '
function n:string (f:string) { return f =~ "^[0-9]+$" ? "N" : f }
global lines, received
probe tty.open, tty.release { if (pid() == target() && file_name != "tty") lines[sprintf("%s %s", probefunc(), n(file_name))]++ }
probe tty.init { if (pid() == target()) lines[sprintf("init %s %s [%s]", driver_name, name, module)]++ }
probe tty.resize {
  if (pid() == target())
    lines[sprintf("resize %s -> %dx%d %dx%d", name =~ "pts" ? "pts" : name, new_row, new_col, new_xpixel, new_ypixel)]++
}
probe tty.write, tty.read {
  if (pid() == target())
    lines[sprintf("%s %s %s nr>=6 %d", probefunc(), n(file_name), driver_name, nr >= 6)]++
}
probe tty.write { if (pid() == target()) lines[sprintf("write buffer %s", buffer)]++ }
probe tty.poll { if (pid() == target()) lines[sprintf("poll %s", n(file_name))] = 1 }
probe tty.receive {
  if (substr(cp, 0, 7) == "\"typed\\" && driver_name == "\"pty_slave\"") received++
}
probe end {
  foreach (l+ in lines) printf("%s: %d\n", l, lines[l])
  printf("received by the slave %d\n", received > 0)
}' -c "python3 $CASE_TMP/pty.py"
