#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-harness.sh: the test harness never reports green by accident, as one
# KTAP suite. make check's own counting (scripts/ktap-count.py) and the
# guest runner (selftests/run-guest.sh) are fed what a broken run looks
# like, and each must come out as a failure:
#   - a suite that stops half way (fewer results than its plan), a suite
#     with no plan, a failed case nested in a passing test, and nested
#     skips counted as skips;
#   - a test pattern that selects no test;
#   - a broken rig (QEMU guest with no host-agent port and one disk fewer
#     than it was told to expect: run-vm.sh's BLKFLOOR_RIG_BREAK): the rig
#     check and a test that needs both disks fail, a test that needs the
#     agent fails, and the whole run exits non-zero. HARNESS_KVER picks
#     the kernel (default: the newest installed); "none" leaves this out.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kver=${HARNESS_KVER:-$(ls -d /lib/modules/*/build 2>/dev/null | awk -F/ '{ print $4 }' | sort -V | tail -1)}

echo "TAP version 13"
echo "1..6"
n=0 rc=0
result() { # status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# counts LOG: "passed failed skipped" as make check counts them
counts() { python3 scripts/ktap-count.py "$1" t | sed -n 1p; }

printf 'TAP version 13\n1..3\nok 1 a\nok 2 b\n' > "$tmp/short"
printf 'TAP version 13\nok 1 a\n' > "$tmp/noplan"
[ "$(counts "$tmp/short")" = "2 1 0" ] && [ "$(counts "$tmp/noplan")" = "1 1 0" ]
result $? "a suite with fewer results than its plan, or no plan, counts as failed"

printf 'TAP version 13\n1..2\n  1..3\n  ok 1 x\n  ok 2 y # SKIP why\n  not ok 3 z\nok 1 nested\nok 2 b # SKIP q\n' > "$tmp/nested"
printf 'TAP version 13\n1..1\n  1..2\n  ok 1 x\nok 1 nested\n' > "$tmp/nestshort"
[ "$(counts "$tmp/nested")" = "1 1 2" ] && [ "$(counts "$tmp/nestshort")" = "1 1 0" ]
result $? "nested results are counted (a pass, a skip, a failure under a passing parent) and their plan checked"

out=$(selftests/run-guest.sh 'no-such-group/*' 2>&1)
st=$?
diag "$out"
printf '%s\n' "$out" > "$tmp/nomatch"
[ $st != 0 ] && [ "$(counts "$tmp/nomatch")" = "0 1 0" ]
result $? "a test pattern that selects no test fails the run"

if [ "$kver" = none ] || [ ! -f "build/$kver/blkfloor.ko" ]; then
	n=$((n + 3))
	echo "ok $((n - 2)) broken rig: the rig check fails # SKIP no module built for ${kver:-any kernel}"
	echo "ok $((n - 1)) broken rig: tests needing the missing disk and the agent fail # SKIP no module"
	echo "ok $n broken rig: the run exits non-zero # SKIP no module"
	exit $rc
fi
BLKFLOOR_RIG_BREAK=agent,disk selftests/vm/run-vm.sh --kver "$kver" \
	--timeout 600 --uas 64M -- selftests/run-guest.sh -t 120 cli/005 model/004 \
	> "$tmp/broken" 2>&1
st=$?
diag "$(cat "$tmp/broken")"
grep -q '^not ok 1 rig: .*no host agent port' "$tmp/broken" &&
	grep -q '^not ok 1 rig: .*1 of 2 disks' "$tmp/broken"
result $? "broken rig ($kver): the rig check fails (no agent port, 1 of 2 disks)"
grep -qE '^not ok [0-9]+ cli/005 ' "$tmp/broken" &&
	grep -qE '^not ok [0-9]+ model/004 ' "$tmp/broken" &&
	grep -q 'rig fault: no emulated usb disk' "$tmp/broken" &&
	grep -q 'rig fault: no host agent port' "$tmp/broken"
result $? "broken rig: a test needing the missing disk and one needing the agent fail (not skip)"
[ $st != 0 ] && [ "$(counts "$tmp/broken" | awk '{ print $2 }')" -ge 3 ]
result $? "broken rig: the run exits non-zero ($st) and counts 3 failures"
exit $rc
