#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of make check-ab (scripts/check-ab.sh): runs on the
# emulated UAS disk with the uas module swapped between them.
# Usage: ab-guest.sh OUTDIR STEP...; a STEP is NAME:MODULE:LOAD, MODULE
# "stock" (modprobe uas) or the path of a uas.ko (insmod), LOAD "w" (1 MiB
# writes, QD4) or "r" (4 KiB random reads, QD1); each run is 2 s in
# 250 ms intervals, its trace OUTDIR/NAME.trace. The module is swapped
# only when a step names another one than the step before.
out=$1
shift
steps=("$@")
set --		# lib.sh reads its own arguments (NAME=VALUE)
. selftests/lib.sh
modprobe blkfloor || exit 1
loaded=
disk=

use_uas() {
	local i
	[ "$loaded" = "$1" ] && return 0
	rmmod uas 2>/dev/null
	if [ "$1" = stock ]; then modprobe uas; else insmod "$1"; fi || return 1
	loaded=$1
	# the disk is probed again on the new module
	for i in $(seq 60); do
		disk=$(rig_disk uas)
		[ -n "$disk" ] && [ -b "$disk" ] && return 0
		sleep 0.5
	done
	echo "ab-guest: no UAS disk after loading $1" >&2
	return 1
}

for step in "${steps[@]}"; do
	IFS=: read -r name mod load <<<"$step"
	use_uas "$mod" || exit 1
	case $load in
	w) args=(--rw write --bs 1MiB --qd 4 --yes-destroy-data) ;;
	r) args=(--rw randread --bs 4K --qd 1) ;;
	*) echo "ab-guest: load $load?" >&2; exit 2 ;;
	esac
	user/blkfloor run "$disk" "${args[@]}" --time 2s --interval 250ms \
		--quiet --trace "$out/$name.trace" >/dev/null ||
		{ echo "ab-guest: run $name failed" >&2; exit 1; }
done
