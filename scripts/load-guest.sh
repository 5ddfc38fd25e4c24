#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# load-guest.sh [-k KVER] [-t SECONDS] [-l LOG] [TEST...]: "another guest"
# on this machine, for timing make check (or any measurement) beside one:
# QEMU guests, the same rig as make check's, one after the other, each
# running the guest selftests (TESTs, default all) once, for SECONDS
# (default 3600) or until this script is killed (SIGTERM; QEMU goes with
# it). The passes' KTAP logs go to LOG (default build/load-guest.log),
# each after a line "# load pass N". A failure in the load is not a
# failure of anything: the load only has to keep two guest CPUs busy as a
# test run does.
#
# Documentation/testing.rst, "How long it takes", lists make check's
# times beside it: scripts/load-guest.sh & make check; kill %1
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
kver=$(ls /lib/modules | sort -V | tail -1) secs=3600 log=$PWD/build/load-guest.log
while getopts k:t:l: o; do
	case $o in
	k) kver=$OPTARG ;;
	t) secs=$OPTARG ;;
	l) log=$OPTARG ;;
	*) echo "usage: $0 [-k KVER] [-t SECONDS] [-l LOG] [TEST...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $secs in ''|*[!0-9]*) echo "load-guest.sh: -t takes whole seconds" >&2; exit 2 ;; esac
[ -f "build/$kver/blkfloor.ko" ] || scripts/build-module.sh "$kver" >/dev/null ||
	{ echo "load-guest.sh: no module for $kver" >&2; exit 1; }
# (a clean clone has no kernel source yet: the test programs need its
# kselftest headers, the guests its YNL CLI)
make -s ksrc >/dev/null && make -s -C user >/dev/null && make -s -C selftests >/dev/null ||
	{ echo "load-guest.sh: the kernel source, the CLI or the test programs are not there" >&2; exit 1; }
mkdir -p "${log%/*}"
: > "$log"
# A fresh guest each pass: the suite runs once a boot (some tests unplug
# the rig's disks).
vm=
trap '[ -z "$vm" ] || { kill "$vm" 2>/dev/null; wait "$vm"; }; exit 0' TERM INT
end=$((SECONDS + secs)) n=0
while [ $SECONDS -lt $end ]; do
	n=$((n + 1))
	echo "# load pass $n" >> "$log"
	selftests/vm/run-vm.sh --kver "$kver" --timeout $((end - SECONDS + 900)) \
		--usb 512M:discard --uas 512M:discard --nvme 64M -- \
		selftests/run-guest.sh -t 300 "$@" >> "$log" 2>&1 &
	vm=$!
	wait "$vm"
done
