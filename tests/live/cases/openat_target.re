^/etc/hostname$
