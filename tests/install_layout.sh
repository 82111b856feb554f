#!/usr/bin/env bash
# The installed layout finds its tapsets relative to the binary:
# <prefix>/bin/stap reads <prefix>/share/stap-bpf/tapset.  Installs the
# build into a scratch prefix, moves the source tree's tapsets out of
# reach by pointing nothing at them, and elaborates a script that needs a
# tapset alias (oneshot) and a tapset function (ansi_reset_color).
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/share/stap-bpf/tapset/oneshot.stp"
# A tapset only the installed copy has proves which directory was read.
cat > "$prefix/share/stap-bpf/tapset/install_probe.stp" <<'STP'
function installed_marker:long () { return 42 }
STP
out=$(env -u STAP_BPF_TAPSETS "$prefix/bin/stap" -p2 -e 'probe oneshot { ansi_reset_color(); println(installed_marker()) }')
echo "$out" | grep -q '^installed_marker:long ()' || { echo "FAIL: installed tapset not used"; echo "$out"; exit 1; }
echo "$out" | grep -q '^ansi_reset_color:unknown ()' || { echo "FAIL: ansi tapset function missing"; echo "$out"; exit 1; }
echo "installed layout: PASS"
