#! needs: kfunc
#! timeout: 300
# netdev.hard_transmit on its kernel function (dev_hard_start_xmit: the
# test guest) over the UDP workload on lo, and the configuration probes
# (register, change_mtu, change_mac, set_promiscuity, ioctl, get_stats)
# on a dummy device the case creates and removes.
. "$(dirname "$0")/../tapset_socket_cases.sh"
tapset_netdev_more
tapset_netdev_config
