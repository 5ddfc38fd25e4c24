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
#
# test-kselftest-guest.sh --command [TEST...]: print the guest command
# that runs the installed suite, to run it in a guest booted for something
# else (make check runs it in the newest kernel's guest, after run-guest.sh,
# with its output in a shared directory: no third boot);
# test-kselftest-guest.sh --tests: the default TESTs, one per line;
# test-kselftest-guest.sh --from RAW KVER LOG [TEST...]: compare that
# command's output, RAW, with LOG instead of booting a guest.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
inst=$top/build/kselftest/install
col=drivers/block/blkfloor
# (Not cli/005 since the installed suite runs in the same guest after
# run-guest.sh: model/009's USB relink leaves the BOT disk not as cli/005
# expects it. To fix in model/009's cleanup; fault/027 stands in, an
# installed helper, nlop, included.)
default_tests=(basic/001 abi/001 cli/001 fault/027 run/003 run/006)
# ksft_command TEST...: the guest's shell command.
ksft_command() {
	local args=() t
	for t in "$@"; do args+=(-t "$col:${t/\//-}"); done
	# (| cat: kselftest's runner appends each test's output to
	# /dev/stdout, which cannot be opened a second time when it is the
	# guest's virtio port: the output was lost.)
	echo "cd / && env -u BLKFLOOR_TOP PATH=$top/user:\$PATH $inst/run_kselftest.sh ${args[*]} 2>&1 | cat"
}
# (--tests: print the default tests, one per line)
if [ "${1:-}" = --tests ]; then
	printf '%s\n' "${default_tests[@]}"
	exit 0
fi
if [ "${1:-}" = --command ]; then
	shift
	tests=("$@")
	[ ${#tests[@]} -gt 0 ] || tests=("${default_tests[@]}")
	ksft_command "${tests[@]}"
	exit 0
fi
from=
[ "${1:-}" = --from ] && { from=$2; shift 2; }
kver=$1 main=$2
shift 2
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("${default_tests[@]}")

echo "KTAP version 1"
echo "1..$(( ${#tests[@]} + 1 ))"
if [ ! -x "$inst/run_kselftest.sh" ]; then
	echo "# no $inst (scripts/test-kselftest.sh): the installed suite did not run"
	echo "not ok 1 installed suite runs"
	for i in "${!tests[@]}"; do echo "not ok $((i + 2)) ${tests[$i]}"; done
	exit 1
fi
if [ -n "$from" ]; then
	log=$from
	# (the guest ran it after run-guest.sh; its status is not kept)
	st=0
	[ -s "$log" ] || st=1
else
	log=$top/build/check/kselftest-guest.raw
	selftests/vm/run-vm.sh --kver "$kver" --timeout 1800 \
		--usb 512M:discard --uas 512M:discard -- \
		"$(ksft_command "${tests[@]}")" > "$log" 2>&1
	st=$?
fi
sed 's/^/# /' "$log"
rc=0
echo "# the installed suite in a guest of $kver: run_kselftest.sh exit $st"
if [ $st != 0 ] && ! grep -qE '^(not )?ok [0-9]+ selftests: ' "$log"; then
	echo "# no result from the installed suite"
	echo "not ok 1 installed suite runs"
	rc=1
else
	echo "ok 1 installed suite runs"
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
	a=$(status "$(grep -E "^(not )?ok [0-9]+ $t( |$)" "$main" | tail -1)")
	b=$(status "$(grep -E "^(not )?ok [0-9]+ selftests: $col: ${t/\//-}( |$)" "$log" | tail -1)")
	echo "# $t: $a in make check's run, $b in the installed suite"
	if [ "$a" = "$b" ] && [ "$a" != missing ]; then
		echo "ok $n $t"
	else
		echo "not ok $n $t"
		rc=1
	fi
done
exit $rc
