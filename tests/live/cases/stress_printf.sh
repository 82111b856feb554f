#! timeout: 120
# The stress run (tests/live/stress_printf.sh) in the live suite: it takes
# a couple of seconds.
bash "$(dirname "$0")/../stress_printf.sh" "$STAP" "$LIVE"
