#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [-t TIMEOUT] [PATTERN...]: run the guest selftests (inside
# the test guest) and print one KTAP suite. PATTERNs select tests by
# GROUP/NNN glob (default: all). Exits non-zero if any test failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
timeout=300
[ "${1:-}" = -t ] && { timeout=$2; shift 2; }
pats=("$@")
[ ${#pats[@]} -eq 0 ] && pats=('*')

tests=()
for t in "$here"/tests/*/[0-9][0-9][0-9]; do
	id=${t#"$here"/tests/}
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053
		[[ $id == $p ]] && { tests+=("$t"); break; }
	done
done

# With kmemleak (make check-debug), a last test looks for what the whole
# run leaked.
if [ -e /sys/kernel/debug/kmemleak ] ||
   { mount -t debugfs none /sys/kernel/debug 2>/dev/null; [ -e /sys/kernel/debug/kmemleak ]; }; then
	tests+=("$here/tests/kmemleak.sh")
fi

echo "TAP version 13"
echo "# blkfloor selftests on $(uname -r)"
echo "1..${#tests[@]}"
n=0 failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	id=${t#"$here"/tests/}
	id=${id%.sh}
	desc=$(sed -n '3s/^# *//p' "$t")
	start=$SECONDS
	out=$(timeout -k 10 "$timeout" "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	[ $rc = 124 ] && echo "# timed out after ${timeout}s"
	took="($((SECONDS - start))s)"
	case $rc in
	0) echo "ok $n $id $desc $took" ;;
	4) reason=$(printf '%s\n' "$out" | sed -n 's/^# SKIP: //p' | tail -1)
	   echo "ok $n $id $desc # SKIP ${reason:-skipped}" ;;
	*) echo "not ok $n $id $desc (exit $rc) $took"; failed=1 ;;
	esac
done
exit $failed
