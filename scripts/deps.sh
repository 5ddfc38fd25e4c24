#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what blkfloor needs to build and test, from Debian's packages.
# Idempotent and quiet when everything is already there. Arguments name
# extra packages a caller needs (scripts/debug-kernel.sh: a kernel build).
set -euo pipefail

pkgs=(qemu-system-x86 qemu-utils busybox-static kmod cpio xz-utils zstd
      libnl-3-dev libnl-genl-3-dev pkg-config fio sparse gcc make bc
      linux-image-amd64 linux-headers-amd64 linux-source-6.12
      python3 python3-yaml python3-jsonschema python3-docutils librsvg2-bin
      dkms
      # what the selftests run: genl and ip (basic/001, netns), groff (the
      # man page), dmsetup (dm-flakey), rsync (kselftest install), and
      # what the guests use from the host's root
      iproute2 groff dmsetup rsync util-linux procps
      # LAVA's own job schema (scripts/lava-check.py; lava-dispatcher,
      # 129 packages with lvm2, mdadm and gawk, only for make check-lava,
      # which names it as an extra package)
      lava-common
      "$@")

need=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		need+=("$p")
done

# The newest 6.12 kernel line from bookworm's backports-in-main.
if ! compgen -G '/boot/vmlinuz-6.12.*+deb12-amd64' >/dev/null ||
   ! compgen -G '/usr/src/linux-headers-6.12.*+deb12-amd64' >/dev/null; then
	need+=(K612)
fi

[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages (${need[*]}); run 'make deps' as root" >&2
	exit 1
fi

echo "deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
if [[ " ${need[*]} " == *" K612 "* ]]; then
	v=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' |
	    awk '{print $1}' | sed 's/linux-image-//' | sort -V | tail -1)
	[ -n "$v" ] || { echo "deps: no linux-image-6.12.*+deb12-amd64 in apt" >&2; exit 1; }
	need=("${need[@]/K612/}")
	need+=("linux-image-$v" "linux-headers-$v")
fi
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
