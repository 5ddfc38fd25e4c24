#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-bare.sh KVER: build make bench's bare in-kernel submitter
# (selftests/bench/bare) against one installed kernel with W=1, in its own
# per-kernel copy, leaving build/KVER/bare/blkfloor_bare.ko. Fails on any
# compiler warning. Used by scripts/bench.sh and scripts/profile-io.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
kver=$1
kdir=/lib/modules/$kver/build
bare=$PWD/build/$kver/bare
[ -d "$kdir" ] || { echo "build-bare: no headers for $kver ($kdir)" >&2; exit 1; }
rm -rf "$bare"
mkdir -p "$bare"
cp selftests/bench/bare/Kbuild selftests/bench/bare/*.[ch] "$bare/"
if ! make -C "$kdir" M="$bare" W=1 modules >"$bare/build.log" 2>&1 ||
   grep -E 'warning:|error:' "$bare/build.log" >&2; then
	echo "build-bare: blkfloor_bare does not build cleanly for $kver:" >&2
	cat "$bare/build.log" >&2
	exit 1
fi
