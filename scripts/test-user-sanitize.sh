#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CLI's unit tests again, built with AddressSanitizer (leaks included)
# and UndefinedBehaviorSanitizer, in a copy of the tree so that the normal
# build is left alone. One KTAP result per test program; a sanitizer report
# fails it (UBSan halts on the first error).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
ksft=${KSFT:-$top/build/ksrc/tools/testing/selftests}
tmp=$(mktemp -d /tmp/blkfloor-san.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "KTAP version 1"
if [ ! -f "$ksft/kselftest_harness.h" ]; then
	echo "1..0 # SKIP no kselftest_harness.h under $ksft (make ksrc)"
	exit 4
fi
cp -r user include kmod "$tmp/"
cc="gcc -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if ! make -s -C "$tmp/user" clean >/dev/null 2>&1 ||
   ! make -s -C "$tmp/user" KSFT="$ksft" CC="$cc" tests >"$tmp/build.log" 2>&1; then
	echo "1..1"
	sed 's/^/# /' "$tmp/build.log"
	echo "not ok 1 the unit tests build with -fsanitize=address,undefined"
	exit 1
fi
tests=()
for t in "$tmp"/user/tests/test_*; do
	[ -x "$t" ] && [ "${t%.c}" = "$t" ] && tests+=("$t")
done
echo "1..${#tests[@]}"
i=0 rc=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	name=${t##*/}
	if (cd "$tmp/user" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	    UBSAN_OPTIONS=print_stacktrace=1 "$t") >"$tmp/$name.log" 2>&1; then
		echo "ok $i $name under ASan and UBSan"
	else
		grep -E 'ERROR: |runtime error|^not ok|SUMMARY' "$tmp/$name.log" |
			head -20 | sed 's/^/# /'
		echo "not ok $i $name under ASan and UBSan"
		rc=1
	fi
done
exit $rc
