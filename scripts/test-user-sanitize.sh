#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CLI's unit tests again, built with AddressSanitizer (leaks included)
# and UndefinedBehaviorSanitizer, in a copy of the tree so that the normal
# build is left alone. One KTAP result per test program; a sanitizer report
# fails it (UBSan halts on the first error). A first result shows that
# LeakSanitizer sees a leak inside a harness test at all (the harness ends
# each forked test with _exit(): user/tests/lsan.h): a planted 4 KiB leak
# in a TEST and in a TEST_F must fail, the same tests without it pass.
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
   ! CFLAGS="-O1 -g" make -s -C "$tmp/user" KSFT="$ksft" CC="$cc" tests \
	>"$tmp/build.log" 2>&1; then
	echo "1..1"
	sed 's/^/# /' "$tmp/build.log"
	echo "not ok 1 the unit tests build with -fsanitize=address,undefined"
	exit 1
fi
tests=()
for t in "$tmp"/user/tests/test_*; do
	[ -x "$t" ] && [ "${t%.c}" = "$t" ] && tests+=("$t")
done
echo "1..$((${#tests[@]} + 1))"
i=1 rc=0

# plant LEAK: a harness program with a TEST and a TEST_F, each leaking
# 4 KiB when LEAK is 1, built as the unit tests are; prints its results.
plant() {
	mkdir -p "$tmp/plant"
	cat > "$tmp/plant/leak.c" <<EOF_C
#include <stdlib.h>
#include "kselftest_harness.h"
static void *leak(void)
{
	char *p = malloc(4096);

	if (p)
		p[0] = 1;
	return $1 ? NULL : p;
}
TEST(plain) { void *p = leak(); free(p); }
FIXTURE(fx) { int x; };
FIXTURE_SETUP(fx) { self->x = 0; }
FIXTURE_TEARDOWN(fx) { }
TEST_F(fx, leaks) { void *p = leak(); free(p); }
TEST_HARNESS_MAIN
EOF_C
	$cc -O1 -g -I"$ksft" -include "$tmp/user/tests/lsan.h" \
		-o "$tmp/plant/leak$1" "$tmp/plant/leak.c" &&
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$tmp/plant/leak$1" 2>&1
}
leaky=$(plant 1)
clean=$(plant 0)
st=$?
printf '%s\n' "$leaky" | grep -E 'ok [0-9]|leak of|SUMMARY' | sed 's/^/# leaking: /'
if printf '%s\n' "$leaky" | grep -qx 'not ok 1 global.plain' &&
   printf '%s\n' "$leaky" | grep -qx 'not ok 2 fx.leaks' && [ $st = 0 ]; then
	echo "ok 1 LeakSanitizer fails a harness TEST and TEST_F that leak 4 KiB"
else
	printf '%s\n' "$clean" | sed 's/^/# not leaking: /'
	echo "not ok 1 LeakSanitizer fails a harness TEST and TEST_F that leak 4 KiB"
	rc=1
fi
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
