#! needs: bpf-lsm
# stap 5.6's lsm.* aliases (tapsets/lsm.stp): lsm.file_open's `file` is the
# hook's file (its name read through @cast) and the context's first slot
# ($ctx); lsm.socket_create's family and type are those of the target
# shell's UDP socket.
"$STAP" -e 'global opened, same_ctx, socks
probe lsm.file_open {
  if (pid() != target() && ppid() != target()) next
  if (kernel_string(@cast(file, "file", "kernel")->f_path->dentry->d_name->name) == "hostname") {
    opened++
    same_ctx = kernel_long($ctx) == file
  }
}
probe lsm.socket_create { if (pid() == target() && family == 2 && type == 2) socks++ }
probe end { printf("opened %d ctx %d udp sockets %d\n", opened, same_ctx, socks) }' \
  -c "bash -c 'cat /etc/hostname > /dev/null; echo x > /dev/udp/127.0.0.1/39930'"
"$STAP" -L lsm.socket_create
"$STAP" -l 'lsm.*' | wc -l
