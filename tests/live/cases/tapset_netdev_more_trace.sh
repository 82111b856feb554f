# netdev.hard_transmit and netdev.rx on their events (net:net_dev_start_xmit,
# net:netif_rx), forced so that a kernel that can probe functions runs
# them too: the workload's four datagrams leave on lo as frames of 142,
# 242, 342 and 92 bytes (payload and 42 of headers), and come back
# through netif_rx.
export STAP_KFUNC_MECHANISM=none
. "$(dirname "$0")/../tapset_socket_cases.sh"
tapset_netdev_more rx
