#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: build a 6.12 kernel from linux-source-6.12 with KASAN,
# lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP, kmemleak and
# FAIL_MAKE_REQUEST, cache it under build/debug-kernel/, install its
# modules as /lib/modules/KVER (the guests run the host's root), and run
# the whole guest suite on it; --build-only stops after the install. Not
# part of make check: the first build takes a long time on two cores
# (later runs reuse the cached kernel).
set -euo pipefail
build_only=0
if [ "${1:-}" = --build-only ]; then
	build_only=1
fi
cd "$(dirname "$0")/.."
top=$PWD
scripts/deps.sh flex bison libelf-dev libssl-dev dwarves rsync
dir=$top/build/debug-kernel
src=$dir/linux
mkdir -p "$dir"

if [ ! -f "$src/Makefile" ]; then
	echo "debug-kernel: extracting linux-source-6.12" >&2
	rm -rf "$src" && mkdir -p "$src"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src" --strip-components=1
fi

# What the rig needs (9p root, virtio console, xhci + usb-storage + uas +
# sd, NVMe with its hwmon sensor for path/003; the io controller with
# blk-throttle for run/025), what the tests load as modules (and what they test: zoned devices
# are refused), and the debug options.
opts=(--set-str LOCALVERSION -blkfloor-debug
	-d LOCALVERSION_AUTO
	-e MODULES -e MODULE_UNLOAD -e BLOCK -e BLK_DEV_INITRD -e BLK_DEV_ZONED
	-e DEVTMPFS -e TMPFS -e CONFIGFS_FS -e DEBUG_FS -e OVERLAY_FS
	-e CGROUPS -e MEMCG -e BLK_CGROUP -e BLK_DEV_THROTTLING
	-e NET -e NET_9P -e NET_9P_VIRTIO -e 9P_FS -e 9P_FS_POSIX_ACL
	-e VIRTIO_PCI -e VIRTIO_CONSOLE -e PCI
	-e USB -e USB_XHCI_HCD -e USB_XHCI_PCI -e USB_STORAGE -e USB_UAS
	-e SCSI -e BLK_DEV_SD -e EXT4_FS -e BLK_DEV_NVME -e HWMON -e NVME_HWMON
	-m BLK_DEV_NULL_BLK -m SCSI_DEBUG -e MD -e BLK_DEV_DM -m DM_FLAKEY
	-e CRC32 -e LIBCRC32C -e CRYPTO_CRC32C
	-e BLK_DEV_INTEGRITY -e SCHED_DEBUG -e PREEMPT_DYNAMIC
	-e SOFTLOCKUP_DETECTOR
	-e KASAN -e KASAN_GENERIC -e KASAN_INLINE
	-e DEBUG_KERNEL -e PROVE_LOCKING -e DEBUG_ATOMIC_SLEEP
	-e DEBUG_KMEMLEAK -e DEBUG_KMEMLEAK_AUTO_SCAN
	--set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 16000
	-e FAULT_INJECTION -e FAIL_MAKE_REQUEST -e FAULT_INJECTION_DEBUG_FS
	-e DEBUG_INFO_NONE -d DEBUG_INFO_DWARF5 -d DEBUG_INFO_BTF
	-d DRM -d SOUND -d WLAN -d WIRELESS -d NETFILTER -d ETHERNET)
# The stamp holds the options it was made with: a changed list configures
# again (the rebuild is then incremental: Kbuild rebuilds only the files
# that use a changed option).
stamp=$(printf '%s\n' "${opts[@]}" | sha256sum | cut -d' ' -f1)

cd "$src"
if [ "$(cat "$dir/.config-done" 2>/dev/null)" != "$stamp" ]; then
	# A first configuration starts from defconfig; a changed list is
	# applied to the configuration the cached build was made with.
	if [ ! -f "$dir/.config-done" ] || [ ! -f .config ]; then
		make -s defconfig
		make -s kvm_guest.config
	fi
	scripts/config "${opts[@]}"
	make -s olddefconfig
	grep -q '^CONFIG_BLK_DEV_ZONED=y' .config ||
		{ echo "debug-kernel: the configuration lost BLK_DEV_ZONED" >&2; exit 1; }
	echo "$stamp" > "$dir/.config-done"
fi
echo "debug-kernel: building (this takes a while)" >&2
make -s -j"$(nproc)" bzImage modules
# Only known once the build has synced the config (LOCALVERSION).
kver=$(make -s kernelrelease)
if [ ! -f "/boot/vmlinuz-$kver" ] || [ arch/x86/boot/bzImage -nt "/boot/vmlinuz-$kver" ]; then
	make -s modules_install
	cp arch/x86/boot/bzImage "/boot/vmlinuz-$kver"
	# The module build needs a build directory under /lib/modules.
	ln -sfn "$src" "/lib/modules/$kver/build"
fi
cd "$top"
if [ "$build_only" = 1 ]; then
	echo "debug-kernel: $kver built and installed" >&2
	exit 0
fi
# KASAN, lockdep and kmemleak slow the guest down several times.
CHECK_KERNELS=$kver CHECK_GUEST_TIMEOUT=${CHECK_GUEST_TIMEOUT:-10800} \
	CHECK_TEST_TIMEOUT=${CHECK_TEST_TIMEOUT:-1200} scripts/check.sh
