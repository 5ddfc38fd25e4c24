#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [-t TIMEOUT] [PATTERN...]: run the selftests and print one
# KTAP suite. PATTERNs select tests by GROUP/NNN glob (default: all); a
# pattern that selects no test is a failed result, not an empty pass.
# Inside the QEMU rig, a first result checks the rig itself (the host
# agent's port, every disk run-vm.sh attached). A test that prints its own
# KTAP (abi/001, the kselftest harness) has its results nested as a
# subtest, indented by two spaces. Exits non-zero if anything failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
timeout=300
[ "${1:-}" = -t ] && { timeout=$2; shift 2; }
pats=("$@")
[ ${#pats[@]} -eq 0 ] && pats=('*')

tests=()
declare -A hit=()
for t in "$here"/tests/*/[0-9][0-9][0-9]; do
	id=${t#"$here"/tests/}
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053
		[[ $id == $p ]] || continue
		hit[$p]=1
		[[ " ${tests[*]} " == *" $t "* ]] || tests+=("$t")
	done
done
nomatch=()
for p in "${pats[@]}"; do
	[ -n "${hit[$p]:-}" ] || nomatch+=("$p")
done

# With kmemleak (make check-debug), a last test looks for what the whole
# run leaked.
# (In the rig only: elsewhere the machine's own leaks are not ours.)
if [ -n "${BLKFLOOR_VM_DIR:-}" ] && [ ${#tests[@]} -gt 0 ] &&
   { [ -e /sys/kernel/debug/kmemleak ] ||
     { mount -t debugfs none /sys/kernel/debug 2>/dev/null; [ -e /sys/kernel/debug/kmemleak ]; }; }; then
	tests+=("$here/tests/kmemleak.sh")
fi

rigcheck=0
[ -n "${BLKFLOOR_VM_DIR:-}" ] && rigcheck=1

echo "TAP version 13"
echo "# blkfloor selftests on $(uname -r)"
echo "1..$(( rigcheck + ${#nomatch[@]} + ${#tests[@]} ))"
n=0 failed=0

if [ $rigcheck = 1 ]; then
	n=$((n + 1))
	bad=${BLKFLOOR_RIG_FAULT:-}
	# (guest-init's findings, then what may have changed since boot)
	[ -n "${BLKFLOOR_RIG:-}" ] && [ -e "$BLKFLOOR_RIG" ] || [[ $bad == *"agent port"* ]] ||
		bad="${bad:+$bad; }no host agent port"
	have=$(ls -d /sys/block/sd* 2>/dev/null | wc -l)
	[ "$have" -ge "${BLKFLOOR_RIG_DISKS:-0}" ] || [[ $bad == *" disks appeared"* ]] ||
		bad="${bad:+$bad; }$have of ${BLKFLOOR_RIG_DISKS} disks"
	if [ -z "$bad" ]; then
		echo "ok $n rig: host agent port, $have of ${BLKFLOOR_RIG_DISKS:-0} disks"
	else
		echo "# rig fault: $bad"
		echo "not ok $n rig: $bad"
		failed=1
	fi
fi
for p in "${nomatch[@]}"; do
	n=$((n + 1))
	echo "not ok $n pattern '$p' selects no test"
	failed=1
done

# show OUTPUT: a test's output as diagnostics, or, when it is a KTAP
# document of its own (a plan line), as a nested subtest.
show() {
	if printf '%s\n' "$1" | grep -qE '^1\.\.[0-9]+$'; then
		echo "  # Subtest: $2"
		printf '%s\n' "$1" | awk '
			/^TAP version/ { print "  KTAP version 1"; next }
			/^(1\.\.[0-9]+|(not )?ok [0-9]+)/ { print "  " $0; next }
			/^#/ { print "  " $0; next }
			{ print "  # " $0 }'
	else
		printf '%s\n' "$1" | sed 's/^/# /'
	fi
}

for t in "${tests[@]}"; do
	n=$((n + 1))
	id=${t#"$here"/tests/}
	id=${id%.sh}
	desc=$(sed -n '3s/^# *//p' "$t")
	start=$SECONDS
	out=$(timeout -k 10 "$timeout" "$t" 2>&1)
	rc=$?
	show "$out" "$id"
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
