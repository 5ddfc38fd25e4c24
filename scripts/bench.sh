#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: blkfloor's in-kernel engine side by side with a bare in-kernel
# submitter (selftests/bench/bare) and fio (io_uring, libaio) on null_blk
# with no memory backing and immediate completion, in a QEMU guest of each
# Debian kernel; then interval precision, memory per run, and the
# classifier's speed. Prints one report, also kept in build/bench/.
#
#   BENCH_KERNELS="6.1.0-57-amd64 ..."  kernels (default: newest 6.1 and
#                                       6.12 with headers installed)
#   BENCH_TIME=2        seconds per measured run
#   BENCH_ROUNDS=5      interleaved rounds (A B C A B C ...): best and median
#   BENCH_SKIP=...      guest parts to skip: tput,softirq,precision,
#                       latency,memory
#   BENCH_PRECISION_RUNS=5  runs of the 10 ms interval precision test
#   BENCH_TIMEOUT=1800  guest timeout, seconds
#   BENCH_ICOUNT=0      under TCG, the guest clock counts instructions
#                       (run-vm.sh --icount): figures then measure the work
#                       per I/O and do not move with the host's load.
#                       Empty: the guest clock follows the host's.
#   BENCH_ICOUNT_SLEEP=off  with BENCH_ICOUNT: an idle guest's clock jumps
#                       to its next timer (off) or follows real time (on),
#                       so that guest timers fire late when the host is
#                       slow to wake QEMU (run-vm.sh --icount-sleep).
#
# Documentation/performance.rst explains the method and holds the results.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
out=build/bench
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- kmod include selftests/bench 2>/dev/null ||
	commit="$commit (with uncommitted changes)"
time_s=${BENCH_TIME:-2}
rounds=${BENCH_ROUNDS:-5}
skip=${BENCH_SKIP:-}
timeout=${BENCH_TIMEOUT:-1800}
icount=${BENCH_ICOUNT-0}
icount_sleep=${BENCH_ICOUNT_SLEEP:-off}
prec_runs=${BENCH_PRECISION_RUNS:-5}
vmargs=()
if [ -n "$icount" ] && [ "$(cat build/vm/accel 2>/dev/null)" != kvm ]; then
	# One vCPU: 6.1 hangs bringing up a second one under icount (6.12
	# does not), and the engines are measured alike on both kernels.
	vmargs=(--icount "$icount" --icount-sleep "$icount_sleep" --smp 1)
fi

if [ -z "${BENCH_KERNELS:-}" ]; then
	k61=$(ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | awk -F/ '{print $4}' | sort -V | tail -1)
	k612=$(ls -d /lib/modules/6.12.*+deb12-amd64/build 2>/dev/null | awk -F/ '{print $4}' | sort -V | tail -1)
	BENCH_KERNELS="$k61 $k612"
fi
command -v fio >/dev/null || { echo "bench: fio is not installed (make deps)" >&2; exit 1; }

echo "# blkfloor make bench, $(date -u +%FT%TZ), commit $commit"
echo "# kernels: $BENCH_KERNELS; $time_s s per run, $rounds rounds"
if [ ${#vmargs[@]} -gt 0 ]; then
	echo "# guest clock: QEMU -icount shift=$icount,sleep=$icount_sleep (2^$icount ns per guest instruction; times are guest instructions, not host time; idle: $([ "$icount_sleep" = off ] && echo 'jumps to the next guest timer' || echo 'follows real time')), 1 vCPU"
else
	echo "# guest clock: the host's (figures move with the host's load)"
fi
load0=$(uptime)
echo "# host load (uptime): $load0"
# The latency part reads blkfloor's p50 the way users do, from the CLI.
cli=()
if ! make -s cli >"$out/cli-build.log" 2>&1; then
	echo "# the CLI does not build (see $out/cli-build.log): no blkfloor latency figures"
	cli=(--cli /nonexistent)
fi
results=()
for k in $BENCH_KERNELS; do
	kdir=/lib/modules/$k/build
	[ -d "$kdir" ] || { echo "bench: no headers for $k" >&2; exit 1; }

	# blkfloor.ko; without it, bare and fio are still measured.
	noblk=()
	if ! scripts/build-module.sh "$k" >/dev/null 2>"$out/build-$k.log"; then
		echo "# $k: blkfloor.ko does not build (see $out/build-$k.log)"
		noblk=(--no-blkfloor "blkfloor.ko does not build for $k")
	fi

	# The bare submitter, built in its own per-kernel copy.
	bare=build/$k/bare
	scripts/build-bare.sh "$k" || exit 1

	res=$out/$stamp-$k.jsonl
	: > "$res"
	echo "# ---- $k: booting the guest"
	selftests/vm/run-vm.sh --kver "$k" --share "$top/$out" "${vmargs[@]}" \
		--timeout "$timeout" -- \
		"python3 selftests/bench/guest.py --out '$top/$res' \
		 --bare '$top/$bare/blkfloor_bare.ko' --time $time_s \
		 --rounds $rounds --skip '$skip' \
		 --precision-runs $prec_runs ${cli[*]@Q} ${noblk[*]@Q}"
	rc=$?
	[ $rc = 0 ] || echo "# $k: the guest exited $rc (results so far are kept)"
	results+=("$res")
done

echo "# ---- classifier speed"
classify="not available (user/tests/tool_bench_classify was not built)"
# The user tests need the kselftest headers from the kernel source (ksrc).
if make -s ksrc >"$out/user-build.log" 2>&1 &&
   make -s -C user tests >>"$out/user-build.log" 2>&1 &&
   [ -x user/tests/tool_bench_classify ]; then
	classify=$(user/tests/tool_bench_classify 2>&1)
fi

report=$out/$stamp.txt
{
	echo "blkfloor make bench, commit $commit, $(date -u +%FT%TZ)"
	echo "host load at the start: $load0"
	echo "host load at the end:   $(uptime)"
	echo
	python3 selftests/bench/report.py "${results[@]}"
	echo "classifier, 10^6 samples: $classify"
} > "$report"
echo
cat "$report"
echo "# report kept in $report (raw results: ${results[*]})"
