#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build uas.ko variants out of tree for a real driver A/B (make check-ab):
# drivers/usb/storage/uas.c and the headers beside it from Debian's
# linux-source-6.12, patched with sed, against the headers of KVER.
#   v0  unchanged: a rebuild, which must never be a regression
#   v1  max_hw_sectors = 64 for every device (32 KiB requests)
#   v2  udelay(400) per command queued
#   v3  DID_ERROR on 1 completed command in 300 (the SCSI midlayer
#       retries it)
# Usage: scripts/uas-variants.sh KVER OUTDIR   (OUTDIR/vN/uas.ko)
set -e
kver=${1:?usage: $0 KVER OUTDIR}
out=${2:?usage: $0 KVER OUTDIR}
tar=/usr/src/linux-source-6.12.tar.xz
kdir=/lib/modules/$kver/build
[ -r "$tar" ] || { echo "uas-variants: $tar missing (apt-get install linux-source-6.12)" >&2; exit 1; }
[ -d "$kdir" ] || { echo "uas-variants: $kdir missing (linux-headers-$kver)" >&2; exit 1; }
mkdir -p "$out" && out=$(cd "$out" && pwd)	# kbuild's M= is absolute
stamp=$out/.stamp-$kver-$(sha1sum "$0" | cut -c1-12)
[ -e "$stamp" ] && exit 0
rm -rf "$out"
mkdir -p "$out/src"
tar -xf "$tar" -C "$out/src" --strip-components=1 --wildcards \
	'*/drivers/usb/storage/uas.c' '*/drivers/usb/storage/*.h'
for v in v0 v1 v2 v3; do
	d=$out/$v
	mkdir -p "$d"
	cp "$out"/src/drivers/usb/storage/{uas.c,*.h} "$d/"
	echo 'obj-m := uas.o' > "$d/Kbuild"
done
# each patch must change the source, or the variant would be a rebuild
patch_uas() { # variant sed-script
	local f=$out/$1/uas.c
	sed -i "$2" "$f"
	cmp -s "$f" "$out/src/drivers/usb/storage/uas.c" &&
		{ echo "uas-variants: $1: the patch no longer applies" >&2; exit 1; }
	return 0
}
patch_uas v1 's/if (devinfo->flags & US_FL_MAX_SECTORS_64)/if (1)/'
patch_uas v2 's|^#include <linux/blkdev.h>|&\n#include <linux/delay.h>|;
	/^static int uas_queuecommand_lck(struct scsi_cmnd \*cmnd)$/,/Re-check scsi_block_requests/ s|\t/\* Re-check scsi_block_requests|\tudelay(400);\n&|'
patch_uas v3 '/^static void uas_sense(struct urb \*urb, struct scsi_cmnd \*cmnd)$/,/^}/ s|^\tcmnd->result = sense_iu->status;$|&\n\t{\n\t\tstatic atomic_t n;\n\n\t\tif (!cmnd->result \&\& atomic_inc_return(\&n) % 300 == 0)\n\t\t\tset_host_byte(cmnd, DID_ERROR);\n\t}|'
grep -q 'udelay(400)' "$out/v2/uas.c" || { echo "uas-variants: v2 not patched" >&2; exit 1; }
grep -q 'DID_ERROR);' "$out/v3/uas.c" || { echo "uas-variants: v3 not patched" >&2; exit 1; }
for v in v0 v1 v2 v3; do
	make -s -C "$kdir" M="$out/$v" modules >"$out/$v/build.log" 2>&1 ||
		{ cat "$out/$v/build.log" >&2; exit 1; }
done
touch "$stamp"
