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
# environment. It prints the command and the tests it runs; each test
# passes only when it passed in both, is a skip when both skipped, and
# fails otherwise: a failure in the installed suite fails whatever LOG
# says (a test failing in both runs is a failure here too), and so does
# a runner whose plan does not match its results.
#
# test-kselftest-guest.sh --command [TEST...]: print the guest command
# that runs the installed suite, to run it in a guest booted for something
# else (make check runs it in the newest kernel's guest, after run-guest.sh,
# with its output in a shared directory: no third boot);
# test-kselftest-guest.sh --tests: the default TESTs, one per line;
# test-kselftest-guest.sh --from RAW KVER LOG [TEST...]: compare that
# command's output, RAW, with LOG instead of booting a guest;
# test-kselftest-guest.sh --self-test: the comparison on made-up runs.
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
# status LINE: pass, skip or fail
status() {
	case $1 in
	"not ok"*) echo fail ;;
	*"# SKIP"*) echo skip ;;
	ok*) echo pass ;;
	*) echo missing ;;
	esac
}
# compare RAW MAIN ST KVER: the KTAP of the installed suite's results
# (RAW: run_kselftest.sh's output, ST its exit status) beside make check's
# (MAIN). A test passes when it passed in the installed suite and in
# make check's run; one both skipped is a skip, with the installed
# suite's reason (judged by skips-allowed as any skip); anything else
# fails: a failure in the installed suite whatever make check's run gave,
# a result missing from either, a pass in one and not the other. The
# runner's plan must match its results.
compare() {
	local log=$1 main=$2 st=$3 kver=$4 plan n=1 rc=0 got t a b why
	sed 's/^/# /' "$log"
	echo "# the installed suite in a guest of $kver: run_kselftest.sh exit $st"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -1)
	got=$(grep -cE '^(not )?ok [0-9]+ selftests: ' "$log")
	if [ "$plan" != ${#tests[@]} ] || [ "$got" != ${#tests[@]} ]; then
		echo "# the runner planned ${plan:-no} tests and gave $got results, for ${#tests[@]} tests"
		echo "not ok 1 installed suite runs"
		rc=1
	else
		echo "ok 1 installed suite runs"
	fi
	for t in "${tests[@]}"; do
		n=$((n + 1))
		a=$(status "$(grep -E "^(not )?ok [0-9]+ $t( |$)" "$main" | tail -1)")
		b=$(status "$(grep -E "^(not )?ok [0-9]+ selftests: $col: ${t/\//-}( |$)" "$log" | tail -1)")
		echo "# $t: $b in the installed suite, $a in make check's run"
		if [ "$b" = pass ] && [ "$a" = pass ]; then
			echo "ok $n $t"
		elif [ "$b" = skip ] && [ "$a" = skip ]; then
			why=$(grep -E "^(not )?ok [0-9]+ $t # SKIP" "$main" | tail -1 | sed 's/.*# SKIP *//')
			echo "ok $n $t # SKIP ${why:-skipped}"
		else
			echo "not ok $n $t"
			rc=1
		fi
	done
	return $rc
}
# --self-test: made-up runs of both, one KTAP result each
self_test() {
	local d n=0 bad=0 r
	st_dir=$(mktemp -d)
	trap 'rm -rf "$st_dir"' EXIT
	d=$st_dir
	tests=(a/001 a/002 a/003)
	printf 'ok 1 a/001\nnot ok 2 a/002\nok 3 a/003 # SKIP no disk\n' > "$d/main"
	# case NAME WANT RAW: compare gives exit status WANT (0 or 1) and,
	# for the passing cases, these results
	case_() {
		n=$((n + 1))
		printf '%b' "$3" > "$d/raw"
		compare "$d/raw" "$d/main" 0 test > "$d/out"
		r=$?
		sed 's/^/# /' "$d/out"
		if [ $r = "$2" ]; then echo "ok $n $1"; else echo "not ok $n $1"; bad=1; fi
	}
	R="TAP version 13\n1..3\n"
	P="selftests: $col:"
	echo "KTAP version 1"
	echo "1..5"
	case_ "a test that fails in both runs fails" 1 "$R""ok 1 $P a-001\nnot ok 2 $P a-002\nok 3 $P a-003 # SKIP\n"
	tests=(a/001 a/003)
	printf 'ok 1 a/001\nok 2 a/003 # SKIP no disk\n' > "$d/main"
	case_ "a pass in both and a skip in both pass (the skip as a skip)" 0 "TAP version 13\n1..2\nok 1 $P a-001\nok 2 $P a-003 # SKIP\n"
	grep -qx 'ok 3 a/003 # SKIP no disk' "$d/out" || { echo "# the skip is not reported as one"; bad=1; }
	case_ "a skip in the installed suite where make check passed fails" 1 "TAP version 13\n1..2\nok 1 $P a-001 # SKIP\nok 2 $P a-003 # SKIP\n"
	case_ "a test missing from the installed run fails" 1 "TAP version 13\n1..2\nok 1 $P a-001\n"
	printf 'ok 1 a/003 # SKIP no disk\n' > "$d/main"
	case_ "a test missing from make check's run fails" 1 "TAP version 13\n1..2\nok 1 $P a-001\nok 2 $P a-003 # SKIP\n"
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	self_test
	exit
fi
from=
[ "${1:-}" = --from ] && { from=$2; shift 2; }
kver=$1 main=$2
shift 2
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=("${default_tests[@]}")

echo "KTAP version 1"
echo "1..$(( ${#tests[@]} + 1 ))"
# What it runs, exactly (make check: in the newest kernel's guest, after
# run-guest.sh): this command, these tests, of the installed suite's all.
echo "# the installed suite runs: $(ksft_command "${tests[@]}")"
echo "# ${#tests[@]} of its $( [ -x "$inst/run_kselftest.sh" ] && "$inst/run_kselftest.sh" -l 2>/dev/null | wc -l) tests: ${tests[*]}"
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
compare "$log" "$main" "$st" "$kver"
