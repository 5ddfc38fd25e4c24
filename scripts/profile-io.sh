#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# profile-io.sh: where an engine's guest instructions per I/O go, function
# by function, blkfloor beside the bare submitter on the same null_blk
# workload as make bench. Each engine runs alone in its own guest under
# QEMU's -icount (one vCPU, as make bench), with the tbcount TCG plugin
# (selftests/bench/tbprof) counting every block of guest code the vCPU
# runs, and writing its counts just before and just after the run (where
# the guest runs tbmark); selftests/bench/profile_report.py charges what
# ran between the two to the guest kernel's functions. Counts are exact and repeatable: no sampling, and no
# dependence on the host's load.
#
#   PROFILE_KVER=6.12.117+deb12-amd64   kernel (default: newest 6.12)
#   PROFILE_TEST=randread-4k-qd1        a make bench workload
#   PROFILE_ENGINES="blkfloor bare-seqplug"  engines, first against last
#   PROFILE_TIME=3                      seconds of guest time per run
#
# Prints the table; keeps it and the raw counts in build/profile/.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
kver=${PROFILE_KVER:-$(ls -d /lib/modules/6.12.*+deb12-amd64/build 2>/dev/null |
	awk -F/ '{print $4}' | sort -V | tail -1)}
test=${PROFILE_TEST:-randread-4k-qd1}
engines=${PROFILE_ENGINES:-blkfloor bare-seqplug}
time_s=${PROFILE_TIME:-3}
out=build/profile
mkdir -p "$out"
[ -n "$kver" ] && [ -d "/lib/modules/$kver/build" ] ||
	{ echo "profile: no kernel headers for '${kver}' (make deps)" >&2; exit 1; }

plugin=$top/$out/tbcount.so
mark=$top/$out/tbmark
gcc -Wall -Wextra -Werror -O2 -shared -fPIC -fvisibility=hidden \
	-o "$plugin" selftests/bench/tbprof/tbcount.c -lpthread || exit 1
gcc -Wall -Wextra -Werror -O2 -o "$mark" selftests/bench/tbprof/tbmark.c || exit 1
markaddr=$(sed -n 's/^#define TBMARK_ADDR[[:space:]]*\(0x[0-9a-f]*\).*/\1/p' \
	selftests/bench/tbprof/tbmark.c)
scripts/build-module.sh "$kver" >/dev/null || exit 1
scripts/build-bare.sh "$kver" || exit 1

stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=()
for e in $engines; do
	res=$top/$out/$stamp-$e-$test.json
	echo "# profile: $e, $test, $kver"
	selftests/vm/run-vm.sh --kver "$kver" --share "$top/$out" \
		--icount 0 --icount-sleep off --smp 1 \
		--plugin "$plugin,out=$res.blocks,mark=$markaddr" --timeout 1800 -- \
		"python3 selftests/bench/profile_guest.py --out '$res' --mark '$mark' \
		 --bare '$top/build/$kver/bare/blkfloor_bare.ko' \
		 --engine '$e' --test '$test' --time $time_s" || exit 1
	[ -s "$res.blocks.0" ] && [ -s "$res.blocks.1" ] ||
		{ echo "profile: no block counts at the marks from $e" >&2; exit 1; }
	results+=("$res")
done
# The modules as built for this profile: their lines match the counts.
kos=()
for m in build/$kver/blkfloor.ko build/$kver/bare/blkfloor_bare.ko; do
	cp "$m" "$out/$stamp-$(basename "$m")"
	kos+=(--ko "$out/$stamp-$(basename "$m")")
done
python3 selftests/bench/profile_report.py "${kos[@]}" "${results[@]}" |
	tee "$out/$stamp-$test.txt"
