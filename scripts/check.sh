#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test blkfloor has, ending with "N passed, N failed".
#
#   1. host: unit tests of the CLI and the classifier, drive-model tests,
#      static checks (checkpatch --strict, the YNL spec against the header);
#   2. for each Debian kernel (6.1 and 6.12): the module built with W=1 and
#      with sparse (C=1), warning-free; then the guest selftests in QEMU.
#
# Each suite prints KTAP. CHECK_KERNELS="6.1.0-57-amd64 ..." overrides the
# kernels; CHECK_TESTS="basic/* run/*" selects guest tests;
# CHECK_GUEST_TIMEOUT (2400 s) and CHECK_TEST_TIMEOUT (300 s per test) are
# raised for slow kernels (make check-debug).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
logdir=$top/build/check
mkdir -p "$logdir"

passed=0 failed=0 skipped=0
failures=()

# count FILE SUITE: add up the top-level KTAP results of one suite.
count() {
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$1" | head -1)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$1" | head -1)
	f=$(grep -cE '^not ok [0-9]+' "$1" | head -1)
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
	while read -r line; do
		failures+=("$2: $line")
	done < <(grep -E '^not ok [0-9]+' "$1")
}

# suite NAME CMD...: run CMD, tee its KTAP to the log, count it. A command
# that fails without printing a "not ok" line counts as one failure.
suite() {
	local name=$1 log rc start=$SECONDS; shift
	log=$logdir/$(echo "$name" | tr ' /' '__').log
	echo "# ---- $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "# ---- $name: exit $rc, $((SECONDS - start)) s"
	count "$log" "$name"
	if [ "$rc" != 0 ] && ! grep -qE '^not ok [0-9]+' "$log"; then
		failed=$((failed + 1))
		failures+=("$name: exited $rc without a test result (see $log)")
	fi
}

# single NAME CMD...: one check as a one-test KTAP suite.
single() {
	local name=$1; shift
	echo "TAP version 13"
	echo "1..1"
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	if [ $rc = 0 ]; then echo "ok 1 $name"; else echo "not ok 1 $name"; fi
}

echo "# blkfloor make check, $(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null)"
scripts/deps.sh || { echo "check: installing dependencies failed" >&2; echo "0 passed, 1 failed"; exit 1; }
make -s ksrc || { echo "0 passed, 1 failed"; exit 1; }

if [ -z "${CHECK_KERNELS:-}" ]; then
	k61=$(ls -d /lib/modules/6.1.*-amd64 2>/dev/null | xargs -n1 basename | sort -V | tail -1)
	k612=$(ls -d /lib/modules/6.12.*+deb12-amd64 2>/dev/null | xargs -n1 basename | sort -V | tail -1)
	CHECK_KERNELS="$k61 $k612"
fi

# ---- host ---------------------------------------------------------------
make -s -C user clean >/dev/null
if make -s -C user all tests >"$logdir/user-build.log" 2>&1; then
	for t in user/tests/test_*; do
		[ -x "$t" ] && [ "${t%.c}" = "$t" ] || continue
		suite "host ${t#user/tests/}" "$t"
	done
else
	cat "$logdir/user-build.log"
	failures+=("user: build with -Wall -Wextra -Werror failed")
	failed=$((failed + 1))
fi


if [ -f selftests/vm/test_drivemodel.py ]; then
	suite "drive models" python3 selftests/vm/test_drivemodel.py --ktap
fi
suite "static checks" scripts/static-checks.sh
suite "docs" scripts/check-docs.sh
suite "install" scripts/test-install.sh
suite "spec renders the uapi header" python3 selftests/kmod/spec_check.py

# ---- guests -------------------------------------------------------------
if ! make -s -C selftests >"$logdir/selftests-build.log" 2>&1; then
	cat "$logdir/selftests-build.log"
	failures+=("selftests: C programs do not build")
	failed=$((failed + 1))
fi
for kver in $CHECK_KERNELS; do
	suite "build $kver W=1" single "module builds with W=1 on $kver" \
		scripts/build-module.sh "$kver"
	suite "sparse $kver" single "module is sparse-clean (C=1) on $kver" \
		scripts/build-module.sh "$kver" C=1
	if [ ! -f "build/$kver/blkfloor.ko" ]; then
		failures+=("$kver: no module, guest tests not run")
		failed=$((failed + 1))
		continue
	fi
	# shellcheck disable=SC2086
	suite "guest $kver" selftests/vm/run-vm.sh --kver "$kver" \
		--timeout "${CHECK_GUEST_TIMEOUT:-2400}" \
		--usb 512M:discard --uas 512M:discard -- \
		selftests/run-guest.sh -t "${CHECK_TEST_TIMEOUT:-300}" ${CHECK_TESTS:-}
done

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failures:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
