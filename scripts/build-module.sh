#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KVER [C=1]: build kmod/ against one installed kernel with
# W=1 (and sparse when C=1 is given), leaving build/KVER/blkfloor.ko and the
# build log in build/KVER/build.log. Fails on any compiler or sparse warning.
#
# The sources are copied to build/KVER/src first, so builds for different
# kernels (or a build while someone edits kmod/) never share object files.
set -euo pipefail
cd "$(dirname "$0")/.."
kver=$1; shift
kdir=/lib/modules/$kver/build
out=$PWD/build/$kver
[ -d "$kdir" ] || { echo "build-module: no headers for $kver ($kdir)" >&2; exit 1; }
rm -rf "$out/src"
mkdir -p "$out/src/kmod" "$out/src/include/uapi/linux"
cp kmod/Kbuild kmod/*.c kmod/*.h "$out/src/kmod/"
cp include/uapi/linux/*.h "$out/src/include/uapi/linux/"
if ! make -C "$kdir" M="$out/src/kmod" CONFIG_BLKFLOOR=m W=1 "$@" modules \
	>"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	echo "build-module: build failed for $kver" >&2
	exit 1
fi
if grep -E 'warning:|error:|: sparse:' "$out/build.log" >&2; then
	echo "build-module: warnings building for $kver (see above)" >&2
	exit 1
fi
cp "$out/src/kmod/blkfloor.ko" "$out/blkfloor.ko"
