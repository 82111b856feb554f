#!/usr/bin/env bash
# Installs the Debian 12 packages this project needs, only those missing.
# Idempotent and quick when everything is present.
#   scripts/install-deps.sh          build and test dependencies, and the
#                                     test guest's host tools
#   scripts/install-deps.sh --guest  only the test guest's host tools
set -euo pipefail
guest_packages=(qemu-system-x86 busybox-static cpio kmod zstd xz-utils gzip coreutils util-linux e2fsprogs)
build_packages=(
  build-essential cmake ninja-build pkg-config
  llvm-19-dev clang-19 libclang-rt-19-dev
  libbpf-dev libelf-dev libdw-dev zlib1g-dev libzstd-dev linux-libc-dev
  libfmt-dev catch2 nlohmann-json3-dev libcpp-httplib-dev
  libprotobuf-dev protobuf-compiler golang-github-google-pprof-dev  # --pprof: profile.proto, protoc
  liblzma-dev systemtap-sdt-dev
  groff-base man-db dpkg-dev
  python3  # the live tests read JSON output with its parser
  prometheus  # a real Prometheus server and promtool scrape --metrics in the live tests
  golang-go  # `go tool pprof` reads --pprof's profiles in the live tests
)
if [ "${1:-}" = "--guest" ]; then
  packages=("${guest_packages[@]}")
else
  packages=("${build_packages[@]}" "${guest_packages[@]}")
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}; run as root (or with sudo)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
