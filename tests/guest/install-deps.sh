#!/usr/bin/env bash
# Installs the Debian 12 host packages the test guest needs (tests/guest/run_in_guest.sh),
# only those missing. Idempotent and quick when everything is present.
# The guest kernel itself is not installed: run_in_guest.sh fetches it with
# `apt-get download` into its cache.
set -euo pipefail
packages=(qemu-system-x86 busybox-static cpio kmod zstd xz-utils gzip coreutils util-linux)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "guest install-deps: missing packages: ${missing[*]}; run as root (or with sudo)" >&2
  exit 1
fi
echo "guest install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
