#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test blkfloor has, ending with "N passed, N failed".
#
#   1. what the guests run: the CLI and its C tests (-Wall -Wextra
#      -Werror), the kselftest target (scripts/test-kselftest.sh), and for
#      each Debian kernel (6.1 and 6.12) the module built once with W=1
#      and sparse (C=1), warning-free; then each kernel's guest selftests
#      in QEMU start;
#   2. while they run, the host: unit tests of the CLI and the
#      classifier, drive-model tests, static checks (checkpatch --strict,
#      the YNL spec against the header), installing, and the harness's
#      own test (a half-run suite, an unlisted skip, a fake rig missing
#      its pieces must fail: scripts/test-harness.sh);
#   3. the installed kselftest suite, run in the newest kernel's guest
#      after its selftests, result for result against them; tests of the
#      CLI alone (selftests/one-kernel) run on one kernel each, shared
#      out between the kernels by time.
#
# Results are counted leaf by leaf, nested ones included, with every KTAP
# plan checked (scripts/ktap-count.py). Then every log must read cleanly
# with the kernel's own KTAP parser (tools/testing/kunit/kunit_parser.py,
# scripts/ktap-parse-check.py), and every skip must be one that
# selftests/skips-allowed lists for that kernel (scripts/skip-check.py):
# in the rig a missing piece is a failure, not a skip. The end shows each
# suite's time and CPU and the ten slowest guest tests.
#
# check.sh rig (make check-rig) runs what is too slow for make check, with
# the same counting and checks: the real rig broken on purpose, nine
# guests of the newest kernel (scripts/test-rig.sh). CI runs both.
# check.sh lava (make check-lava) runs the LAVA job (selftests/lava/) with
# LAVA's own dispatcher on a QEMU device here: the kselftest tarball, the
# job's files (scripts/lava-build.sh), lava-run and its per-test results
# (scripts/lava-run.sh). It installs lava-dispatcher first (129 Debian
# packages), which make check does not need.
#
# Each suite prints KTAP. CHECK_KERNELS="6.1.0-57-amd64 ..." overrides the
# kernels; CHECK_TESTS="basic/* run/*" selects guest tests;
# CHECK_KSFT_TESTS="basic/001 ..." the tests the installed kselftest suite
# runs in a guest; CHECK_GUEST_TIMEOUT (3600 s) and CHECK_TEST_TIMEOUT (300 s per test) are
# raised for slow kernels (make check-debug). The kernels' guest suites
# run side by side (CHECK_JOBS, default 2; each guest's log is printed
# whole when it is done); CHECK_JOBS=1 runs them one after the other,
# their logs streaming. CHECK_SHARDS=N runs each kernel's busy tests in N
# guests (default 1: on two cores, two per kernel finish sooner but
# starve the tests that measure; Documentation/testing.rst), and
# CHECK_WAIT_SHARD=1 (the default; 0 for none) those that mostly wait or
# that measure in one more, ahead of the others (nice -5).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
# (check, rig: make check-rig, or lava: make check-lava)
mode=${1:-check}
case $mode in
check) target=check logdir=$top/build/check ;;
rig) target=check-rig logdir=$top/build/check-rig ;;
lava) target=check-lava logdir=$top/build/check-lava ;;
*) echo "usage: $0 [rig|lava]" >&2; exit 2 ;;
esac
mkdir -p "$logdir"

passed=0 failed=0 skipped=0 first_bg=
failures=()
logs=() wlogs=() times=()
declare -A bg_pids=()

# count FILE SUITE: add up the KTAP results of one suite, nested ones
# included, with its plans checked (scripts/ktap-count.py).
count() {
	local p f s line first=1
	while IFS= read -r line; do
		if [ $first = 1 ]; then
			read -r p f s <<<"$line"
			passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
			first=0
		else
			failures+=("$line")
		fi
	done < <(python3 scripts/ktap-count.py "$1" "$2" ||
		 { echo "0 1 0"; echo "$2: cannot read its KTAP log $1"; })
}

# suite NAME CMD...: run CMD, tee its KTAP to the log, count it. A command
# that fails without printing a "not ok" line counts as one failure.
# SUITE_WHERE names the kernel a guest suite ran on (for the skip check;
# default: host).
suite_log() { echo "$logdir/$(echo "$1" | tr ' /' '__').log"; }
# ktap_text: a suite's output with the phrases at which the kernel's
# KTAP reader stops reading a log reworded (selftests/ktap-text.sed, as
# run-guest.sh and run-vm.sh do for what they quote): whatever a suite
# prints (a compiler, a quoted console, a test's data), its log reads to
# the end.
ktap_text() {
	sed -u -f "$top/selftests/ktap-text.sed"
}
suite() {
	local name=$1 log rc start=$SECONDS; shift
	log=$(suite_log "$name")
	echo "# ---- $name"
	( "$@"; rc=$?; times > "$log.cpu"; exit $rc ) 2>&1 | ktap_text | tee "$log"
	rc=${PIPESTATUS[0]}
	suite_done "$name" "$log" "$rc" $((SECONDS - start))
}
# cpu_of FILE: the CPU seconds (user + system) of a suite's processes, from
# the `times` of the subshell that ran it (its second line: the children,
# QEMU included for a guest suite); "?" if there is none.
cpu_of() {
	local line
	line=$(sed -n 2p "$1" 2>/dev/null)
	[ -n "$line" ] || { echo "?"; return; }
	awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
	       printf "%.0f\n", s }' <<<"$line"
}
# suite_done NAME LOG RC SECS: a suite's end line, its time and its count.
suite_done() {
	local name=$1 log=$2 rc=$3 f0=$failed cpu
	cpu=$(cpu_of "$log.cpu")
	rm -f "$log.cpu"
	echo "# ---- $name: exit $rc, $4 s, CPU $cpu s"
	logs+=("$log")
	wlogs+=("${SUITE_WHERE:-host}:$log")
	times+=("$4 $name (CPU $cpu s)")
	count "$log" "$name"
	if [ "$rc" != 0 ] && [ "$failed" = "$f0" ]; then
		failed=$((failed + 1))
		failures+=("$name: exited $rc without a failed test result (see $log)")
	fi
}
# suite_bg NAME CMD...: start a suite in the background, its output only to
# its log; suite_join NAME then waits for it, prints its log whole and
# counts it as suite does.
suite_bg() {
	local name=$1 log; shift
	log=$(suite_log "$name")
	echo "# ---- $name: started beside the others, $SECONDS s in"
	case $name in guest*) [ -n "$first_bg" ] || first_bg=$SECONDS ;; esac
	( start=$SECONDS; "$@" 2>&1 | ktap_text > "$log"; rc=${PIPESTATUS[0]}
	  echo $((SECONDS - start)) > "$log.secs"; times > "$log.cpu"; exit $rc ) &
	bg_pids[$log]=$!
}
suite_join() {
	local name=$1 log rc secs l n i=0
	log=$(suite_log "$name")
	# a line a minute meanwhile: how far each suite still running is
	# (polled each second with read -t, which starts no program: a join
	# that the guests wait for returns within a second)
	[ -n "${napfd:-}" ] || exec {napfd}<> <(:)
	while kill -0 "${bg_pids[$log]}" 2>/dev/null; do
		read -rt 1 -u "$napfd" _ || :
		i=$((i + 1))
		[ $((i % 60)) = 0 ] || continue
		for l in "${!bg_pids[@]}"; do
			kill -0 "${bg_pids[$l]}" 2>/dev/null || continue
			n=${l##*/}
			n=${n%.log}
			echo "# ---- ${n//_/ }: $(grep -c '^\(not \)\?ok [0-9]* [a-z]*/' "$l") tests done"
		done
	done
	wait "${bg_pids[$log]}"
	rc=$?
	read -r secs < "$log.secs" 2>/dev/null || secs=0
	rm -f "$log.secs"
	echo "# ---- $name"
	cat "$log"
	suite_done "$name" "$log" "$rc" "$secs"
}

# single NAME CMD...: one check as a one-test KTAP suite.
single() {
	local name=$1; shift
	echo "KTAP version 1"
	echo "1..1"
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	if [ $rc = 0 ]; then echo "ok 1 $name"; else echo "not ok 1 $name"; fi
}

# finish: what the kernel's tools read, no green by skipping, the times
# and the one line; exits with the verdict.
finish() {
	local l k
	suite "KTAP parser" python3 scripts/ktap-parse-check.py "${logs[@]}"
	suite "skips" python3 scripts/skip-check.py selftests/skips-allowed "${wlogs[@]}"

	echo
	echo "# make $target took $SECONDS s${first_bg:+, the first guest started $first_bg s in}"
	echo "# time per suite (s; CPU: of its processes, user and system):"
	printf '%s\n' "${times[@]}" | sort -rn | sed 's/^/#   /'
	echo "# the ten slowest guest tests (s; the guest's CPU time meanwhile):"
	for l in "$logdir"/guest_*.log; do
		[ -f "$l" ] || continue
		k=${l##*/guest_}
		k=${k%.log}
		sed -n "s|^# \([a-z]*/[0-9]*\): took \([0-9]*\) s, guest CPU \([0-9.]*\) s$|\2 \1 (${k%%_part_*}; CPU \3 s)|p" "$l"
	done | sort -rn | head -10 | sed 's/^/#   /'
	# how much the host starved the measurements, and which passes stand on
	# a starved window
	l=$(ls "$logdir"/guest_*.log 2>/dev/null)
	[ -z "$l" ] || python3 scripts/starved.py $l
	echo
	if [ ${#failures[@]} -gt 0 ]; then
		echo "# failures:"
		printf '#   %s\n' "${failures[@]}"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
}

echo "# blkfloor make $target, $(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null)"
extra=()
[ "$mode" != lava ] || extra=(lava-dispatcher)
scripts/deps.sh "${extra[@]}" || { echo "check: installing dependencies failed" >&2; echo "0 passed, 1 failed"; exit 1; }
make -s ksrc || { echo "0 passed, 1 failed"; exit 1; }

if [ -z "${CHECK_KERNELS:-}" ]; then
	k61=$(ls -d /lib/modules/6.1.*-amd64 2>/dev/null | xargs -n1 basename | sort -V | tail -1)
	k612=$(ls -d /lib/modules/6.12.*+deb12-amd64 2>/dev/null | xargs -n1 basename | sort -V | tail -1)
	CHECK_KERNELS="$k61 $k612"
	# Both kernels, always: a check that silently ran on one is not green.
	for want in 6.1 6.12; do
		case " $CHECK_KERNELS " in
		*" $want."*) ;;
		*) failures+=("no Debian $want kernel installed (make deps): its guest tests did not run")
		   failed=$((failed + 1)) ;;
		esac
	done
fi

# ---- make check-rig ---------------------------------------------------
# The rig's own breakages (scripts/test-rig.sh: nine guests broken on
# purpose, several waiting out a timeout), on the newest kernel: the CLI
# and the test programs the broken rig's tests run, that kernel's module.
if [ "$mode" = rig ]; then
	newest=$(printf '%s\n' $CHECK_KERNELS | sort -V | tail -1)
	if ! make -s -C user all >"$logdir/user-build.log" 2>&1 ||
	   ! make -s -C selftests >>"$logdir/user-build.log" 2>&1; then
		cat "$logdir/user-build.log"
		failures+=("user, selftests: the CLI or the test programs do not build")
		failed=$((failed + 1))
	fi
	suite "build $newest" single "module builds on $newest" scripts/build-module.sh "$newest"
	SUITE_WHERE=$newest suite "rig $newest" scripts/test-rig.sh "$newest"
	finish
fi

# ---- make check-lava --------------------------------------------------
# The kselftest tarball (scripts/test-kselftest.sh builds and checks it),
# the job's three files for Debian's 6.12 kernel, then the job itself.
if [ "$mode" = lava ]; then
	k612=$(printf '%s\n' $CHECK_KERNELS | grep '^6\.12\.' | sort -V | tail -1)
	make -s -C user all >"$logdir/user-build.log" 2>&1 ||
		{ cat "$logdir/user-build.log"; failures+=("user: the CLI does not build"); failed=$((failed + 1)); }
	suite "kselftest target" scripts/test-kselftest.sh
	suite "build $k612" single "module builds on $k612" scripts/build-module.sh "$k612"
	suite "LAVA files" single "kernel, ramdisk and kselftest tarball for $k612 (scripts/lava-build.sh)" \
		scripts/lava-build.sh "$k612"
	SUITE_WHERE=$k612 suite "lava-run $k612" scripts/lava-run.sh
	suite "LAVA results" python3 scripts/lava-results.py --self-test
	finish
fi

# ---- what the guests run ---------------------------------------------
# The CLI and the C test programs (the guests run them from the checkout),
# the installed kselftest suite (the newest kernel's guest runs it after
# its selftests), each kernel's module: built first, then both guests
# start and the host's suites run beside them.
# Each kernel's module builds (in a copy of its own: build/KVER/src) beside
# the CLI and the test programs; its guests start once its build is
# joined.
for kver in $CHECK_KERNELS; do
	# (one build: W=1 with sparse over every file, C=1)
	suite_bg "build $kver W=1 C=1" single "module builds warning-free with W=1 and sparse (C=1) on $kver" \
		scripts/build-module.sh "$kver" C=1
done
user_built=0
make -s -C user clean >/dev/null
# (-j: the guests wait for it)
if make -s -j"$(nproc)" -C user all tests >"$logdir/user-build.log" 2>&1; then
	user_built=1
else
	cat "$logdir/user-build.log"
	failures+=("user: build with -Wall -Wextra -Werror failed")
	failed=$((failed + 1))
fi

# ---- guests -------------------------------------------------------------
if ! make -s -j"$(nproc)" -C selftests >"$logdir/selftests-build.log" 2>&1; then
	cat "$logdir/selftests-build.log"
	failures+=("selftests: C programs do not build")
	failed=$((failed + 1))
fi
# The kselftest target (scripts/test-kselftest.sh: the installed suite,
# from a copy of selftests/ as now built) beside the first kernel's guests;
# joined before the newest kernel's guests start, whose busy guest runs
# the installed suite after its tests.
suite_bg "kselftest target" scripts/test-kselftest.sh
newest=$(printf '%s\n' $CHECK_KERNELS | sort -V | tail -1)
# The installed kselftest suite runs in the newest kernel's guest, after
# run-guest.sh, its output in a shared directory (no third boot). (With
# CHECK_TESTS, only when CHECK_KSFT_TESTS names tests that ran.)
ksft=0
if [ -n "$newest" ] && { [ -z "${CHECK_TESTS:-}" ] || [ -n "${CHECK_KSFT_TESTS:-}" ]; }; then
	ksft=1
fi
ksftdir=$logdir/ksft
# The tests that measure (a rate, a curve's class) and check how long the
# host kept the guest waiting for a CPU (lib.sh's host_mark, host_quiet and
# sustain_*): they go to the wait shard, whose guest runs ahead of the
# others on the host's CPUs (nice -5), so that four guests on two cores
# do not starve what they measure.
mapfile -t measuring < <(grep -lE '\<(host_mark|host_quiet|sustain_classify|sustain_expect|expect_class)\>' \
	selftests/tests/*/[0-9][0-9][0-9] | sed 's|^selftests/tests/||')
if [ ${#measuring[@]} = 0 ]; then
	failures+=("scripts/check.sh: no guest test measures (its grep for lib.sh's host_mark and sustain_* found none)")
	failed=$((failed + 1))
fi
# Tests of the CLI alone (selftests/one-kernel) run on one kernel each,
# shared out between the kernels by their times (scripts/guest-shards.py
# --kernels); every other test runs on every kernel.
declare -A one_kernel=()
all_tests=() multi_tests=()
for t in selftests/tests/*/[0-9][0-9][0-9]; do all_tests+=("${t#selftests/tests/}"); done
if [ -z "${CHECK_TESTS:-}" ]; then
	mapfile -t one < <(sed 's/[[:space:]]*#.*//; /^$/d' selftests/one-kernel)
	for t in "${all_tests[@]}"; do
		printf '%s\n' "${one[@]}" | grep -qx "$t" || multi_tests+=("$t")
	done
	# (those the installed suite compares with run on the newest kernel)
	mapfile -t ksft_tests < <(if [ -n "${CHECK_KSFT_TESTS:-}" ]; then
		printf '%s\n' $CHECK_KSFT_TESTS; else scripts/test-kselftest-guest.sh --tests; fi)
	pinned=()
	for t in "${one[@]}"; do
		printf '%s\n' "${ksft_tests[@]}" | grep -qx "$t" && pinned+=("$t")
	done
	# Busy and waiting tests each shared out on their own (each kernel
	# runs them in two guests); the newest kernel's busy guest runs the
	# installed suite after its tests: it starts that much ahead.
	pre=0
	[ $ksft = 0 ] || pre=$(printf '%s\n' "${ksft_tests[@]}" |
		awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { s += $2 } END { print s + 0 }' \
		- scripts/guest-test-times)
	mapfile -t kvers < <(printf '%s\n' $CHECK_KERNELS | sort -rV)
	mapfile -t share < <(scripts/guest-shards.py --kernels --measures "${measuring[*]}" \
		--first "${pinned[*]}" --preload "$pre" "${#kvers[@]}" \
		scripts/guest-test-times "${one[@]}" 2>/dev/null)
	for i in "${!kvers[@]}"; do one_kernel[${kvers[$i]}]=${share[$i]:-}; done
	if [ "$(echo "${one_kernel[@]}" | wc -w)" != ${#one[@]} ]; then
		failures+=("selftests/one-kernel: not every test shared out to a kernel (scripts/guest-shards.py)")
		failed=$((failed + 1))
	fi
fi
# Each kernel's tests run in CHECK_SHARDS guests (default 1) side by side,
# shared out by the time each took (scripts/guest-test-times; LPT, in
# scripts/guest-shards.py), each guest with its own disks; its suite is
# "guest KVER" alone, "guest KVER part I of N" when shared out. With
# CHECK_WAIT_SHARD=1 (the default) the tests that mostly wait (drive
# models at a drive's pace; guest CPU under 0.4 of their time) or measure
# (below) run in one more guest of that kernel, beside the others, and
# after them the busy tests the LPT gives it (so that it does not end
# minutes before the busy guest). (CHECK_TESTS with a wildcard runs in one
# guest per kernel.)
started=() mainlog=()
for kver in $CHECK_KERNELS; do
	suite_join "build $kver W=1 C=1"
	[ "$kver" != "$newest" ] || { suite_join "kselftest target"; ksft_joined=1; }
	if [ ! -f "build/$kver/blkfloor.ko" ]; then
		failures+=("$kver: no module, guest tests not run")
		failed=$((failed + 1))
		continue
	fi
	parts=("${CHECK_TESTS:-}")
	case ${CHECK_TESTS:-} in
	*[][*?]*) ;;
	*)	if [ -n "${CHECK_TESTS:-}" ]; then read -ra sel <<<"$CHECK_TESTS"
		else mapfile -t sel < <(printf '%s\n' "${multi_tests[@]}" ${one_kernel[$kver]:-} | LC_ALL=C sort); fi
		waitopt=()
		# (the wait shard takes busy tests too, after its own, so that
		# it ends with the busy ones; the newest kernel's first busy
		# guest runs the installed suite too: it starts that far ahead)
		[ "${CHECK_WAIT_SHARD:-1}" = 0 ] || waitopt=(--wait-shard --measures "${measuring[*]}")
		[ "${CHECK_WAIT_SHARD:-1}" = 0 ] || [ "$kver" != "$newest" ] || [ $ksft = 0 ] ||
			waitopt+=(--preload "${pre:-0}")
		mapfile -t parts < <(scripts/guest-shards.py "${waitopt[@]}" "${CHECK_SHARDS:-1}" \
			scripts/guest-test-times "${sel[@]}" 2>/dev/null)
		[ ${#parts[@]} -gt 0 ] || parts=("${sel[*]}") ;;
	esac
	for i in "${!parts[@]}"; do
		name="guest $kver"
		[ ${#parts[@]} = 1 ] || name+=" part $((i + 1)) of ${#parts[@]}"
		prio=()
		case ${parts[$i]} in
		"wait: "*) parts[i]=${parts[$i]#wait: }; prio=(nice -n -5) ;;
		esac
		[ "$kver" != "$newest" ] || mainlog+=("$(suite_log "$name")")
		share=() then=
		if [ "$kver" = "$newest" ] && [ $ksft = 1 ] && [ "$i" = 0 ]; then
			rm -rf "$ksftdir"
			mkdir -p "$ksftdir"
			share=(--share "$ksftdir")
			# shellcheck disable=SC2086
			then="; rc=\$?; { $(scripts/test-kselftest-guest.sh --command ${CHECK_KSFT_TESTS:-}); } > $ksftdir/raw 2>&1; exit \$rc"
		fi
		run=suite
		[ "${CHECK_JOBS:-2}" -le 1 ] || { run=suite_bg; started+=("$kver|$name"); }
		# shellcheck disable=SC2086
		SUITE_WHERE=$kver $run "$name" "${prio[@]}" selftests/vm/run-vm.sh --kver "$kver" \
			--timeout "${CHECK_GUEST_TIMEOUT:-3600}" "${share[@]}" \
			--usb 512M:discard --uas 512M:discard --nvme 64M -- \
			selftests/run-guest.sh -t "${CHECK_TEST_TIMEOUT:-300}" ${parts[$i]} "$then"
	done
done
[ -n "${ksft_joined:-}" ] || suite_join "kselftest target"
# ---- host, while the guests run ----------------------------------------
if [ $user_built = 1 ]; then
	for t in user/tests/test_*; do
		[ -x "$t" ] && [ "${t%.c}" = "$t" ] || continue
		suite "host ${t#user/tests/}" "$t"
	done
fi
if [ -f selftests/vm/test_drivemodel.py ]; then
	suite "drive models" python3 selftests/vm/test_drivemodel.py --ktap
fi
suite "host unit tests under ASan and UBSan" scripts/test-user-sanitize.sh
suite "static checks" scripts/static-checks.sh
suite "docs" scripts/check-docs.sh
suite "install" scripts/test-install.sh
# LAVA's own schema is Debian's lava-common, for Debian's python3.
suite "LAVA definitions" /usr/bin/python3 scripts/lava-check.py
# selftests/config holds what the tests say they need; a missing option fails
suite "selftests config" python3 scripts/config-check.py
suite "selftests config check" python3 scripts/config-check.py --self-test
suite "skip check" python3 scripts/skip-check.py --self-test
suite "kselftest comparison" scripts/test-kselftest-guest.sh --self-test
suite "shards of the guest tests" python3 scripts/guest-shards.py --self-test
suite "spec schema and structs" python3 selftests/kmod/spec_check.py
# The regression set of simulated curves (classification.rst): its score is printed,
# never judged; it fails only if the classifier cannot be run on it or the
# frozen labels changed.
suite "regression set (simulated curves)" single regression_sim \
	python3 user/tests/regression-sim/score.py --blkfloor user/blkfloor

# The harness itself: a half-run suite, a skip not allowed, a fake rig
# missing its pieces fail (the real rig broken on purpose: make check-rig).
suite "harness" scripts/test-harness.sh

for j in "${started[@]}"; do
	SUITE_WHERE=${j%%|*} suite_join "${j#*|}"
done

# The installed kselftest suite, run in the newest kernel's guest above:
# the same results as that kernel's run (CHECK_KSFT_TESTS="GROUP/NNN ...").
if [ $ksft = 1 ] && [ -f "build/$newest/blkfloor.ko" ]; then
	# shellcheck disable=SC2086
	# (its tests ran in any part: compared with all parts' results)
	cat "${mainlog[@]}" > "$logdir/guest-all_$newest.txt" 2>/dev/null
	SUITE_WHERE=$newest suite "kselftest install in a guest $newest" scripts/test-kselftest-guest.sh \
		--from "$ksftdir/raw" "$newest" "$logdir/guest-all_$newest.txt" ${CHECK_KSFT_TESTS:-}
fi

finish
