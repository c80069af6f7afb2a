#!/bin/bash
# build.sh - rebuild testdata/hog/hog and the two captures made from it
# (testdata/hog-4to1.data, testdata/hog-1to1.data; see testdata/README.md).
# The binary lives at /tmp/perfsift-hog/hog, the path the captures name.
set -e
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/perfsift-hog
cd /tmp/perfsift-hog
gcc -O1 -fno-omit-frame-pointer -g -o hog "$here/hog.c"
cp hog "$here/hog"
export HOME=$(mktemp -d)
perf record -q -g -F 999 -o "$here/../hog-4to1.data" -- ./hog 4 1 5000 >/dev/null
perf record -q -g -F 999 -o "$here/../hog-1to1.data" -- ./hog 1 1 12500 >/dev/null
rm -rf "$HOME" "$here"/../hog-*.data.old
