#!/bin/sh
# deps.sh - `make deps`: install the Debian packages perfsift needs to build
# and test that are not installed yet (apt-get update once, only if needed).
set -e
PKGS="gcc clang make pkg-config libtraceevent-dev libjansson-dev libsqlite3-dev
      libelf-dev libdw-dev libzstd-dev libiberty-dev zlib1g-dev g++ binutils libc6-dbg linux-perf python3 python3-jsonschema python3-pyside2.qtsql jq xz-utils bc time chromium libxml2-utils
      libclang-rt-14-dev strace zstd"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "deps: all installed"
    exit 0
fi
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
