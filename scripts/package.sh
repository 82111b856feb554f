#!/usr/bin/env bash
# Builds the Debian package (CPack DEB): stap, stapbpf, the tapsets, the
# manual pages and bash completion, with the runtime dependencies
# dpkg-shlibdeps finds in the shared libraries the binaries link.  The
# package conflicts with Debian's systemtap and systemtap-doc, which ship
# the same commands and pages.
#   scripts/package.sh [BUILD_DIR [OUT_DIR]]     (default: build build)
# Configures and builds BUILD_DIR when needed; prints the .deb's path.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C "$build" >/dev/null
mkdir -p "$out"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cpack --config "$build/CPackConfig.cmake" -B "$out" >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
rm -rf "$out/_CPack_Packages"
deb=$(sed -n 's/^CPack: - package: \(.*\.deb\) generated\.$/\1/p' "$log")
[ -f "$deb" ] || { echo "package.sh: cpack made no .deb" >&2; cat "$log" >&2; exit 1; }
echo "$deb"
