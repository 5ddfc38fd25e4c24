#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kselftest-guest.sh KVER LOG [TEST...]: the installed kselftest suite
# (build/kselftest/install, from scripts/test-kselftest.sh) gives the same
# results as run-guest.sh did in LOG, as one KTAP suite. A guest boots KVER
# with the same disks as make check's, the module installed and the CLI in
# $PATH, and runs DIR/run_kselftest.sh for TESTs (GROUP/NNN; default a
# quick set that covers the nested harness, both USB disks and null_blk)
# from the installed copy, with nothing of the checkout in its
# environment: each test's result (pass, skip, fail) must equal LOG's.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
kver=$1 main=$2
shift 2
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(basic/001 abi/001 cli/001 cli/005 run/003)
inst=$top/build/kselftest/install
col=drivers/block/blkfloor

echo "KTAP version 1"
echo "1..$(( ${#tests[@]} + 1 ))"
if [ ! -x "$inst/run_kselftest.sh" ]; then
	echo "not ok 1 the installed suite runs in a guest: no $inst (scripts/test-kselftest.sh)"
	for i in "${!tests[@]}"; do echo "not ok $((i + 2)) ${tests[$i]}: not run"; done
	exit 1
fi
args=()
for t in "${tests[@]}"; do args+=(-t "$col:${t/\//-}"); done
log=$top/build/check/kselftest-guest.raw
# (| cat: kselftest's runner appends each test's output to /dev/stdout,
# which cannot be opened a second time when it is the guest's virtio port:
# the output was lost.)
selftests/vm/run-vm.sh --kver "$kver" --timeout 1800 \
	--usb 512M:discard --uas 512M:discard -- \
	"cd / && env -u BLKFLOOR_TOP PATH=$top/user:\$PATH $inst/run_kselftest.sh ${args[*]} 2>&1 | cat" \
	> "$log" 2>&1
st=$?
sed 's/^/# /' "$log"
rc=0
if [ $st != 0 ] && ! grep -qE '^(not )?ok [0-9]+ selftests: ' "$log"; then
	echo "not ok 1 the installed suite runs in a guest ($kver): exit $st, no result"
	rc=1
else
	echo "ok 1 the installed suite runs in a guest ($kver): run_kselftest.sh exit $st"
fi
# status LINE: pass, skip or fail
status() {
	case $1 in
	"not ok"*) echo fail ;;
	*"# SKIP"*) echo skip ;;
	ok*) echo pass ;;
	*) echo missing ;;
	esac
}
n=1
for t in "${tests[@]}"; do
	n=$((n + 1))
	a=$(status "$(grep -E "^(not )?ok [0-9]+ $t " "$main" | tail -1)")
	b=$(status "$(grep -E "^(not )?ok [0-9]+ selftests: $col: ${t/\//-}( |$)" "$log" | tail -1)")
	if [ "$a" = "$b" ] && [ "$a" != missing ]; then
		echo "ok $n $t: $a in make check's run and in the installed suite"
	else
		echo "not ok $n $t: $a in make check's run, $b in the installed suite"
		rc=1
	fi
done
exit $rc
