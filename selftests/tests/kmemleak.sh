#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmemleak: after the whole suite, no unreferenced object was allocated by blkfloor
#
# Run by run-guest.sh after the numbered tests, on kernels built with
# CONFIG_DEBUG_KMEMLEAK (make check-debug); elsewhere it is not listed.
. "$(dirname "$0")/../lib.sh"
require_guest
km=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -e $km ] || skip "kernel without kmemleak"
# The module stays loaded: kmemleak names the allocating function only
# while its module is there (the runs it keeps are referenced from its
# list, so they are not reported). Objects younger than 5 s are not
# reported, and a report needs two scans.
load_blkfloor
sleep 6
echo scan > $km
sleep 1
echo scan > $km
report=$(cat $km)
total=$(printf '%s\n' "$report" | grep -c '^unreferenced object')
ours=$(printf '%s\n' "$report" | awk '
	/^unreferenced object/ { if (obj != "" && hit) { print obj; n++ } obj = $0; hit = 0; next }
	/\[blkfloor\]/ { hit = 1 }
	{ obj = obj "\n" $0 }
	END { if (obj != "" && hit) print obj }')
diag "kmemleak: $total unreferenced objects in all, $(printf '%s' "$ours" | grep -c '^unreferenced object') allocated by blkfloor"
# Allocated by a blkfloor process (CLI, tests) or kthread, for the record.
printf '%s\n' "$report" | grep -E '^ *comm "(blkfloor|abi_test|nlfuzz|nlop)' |
	sort | uniq -c | sed 's/^/# others from: /' 
if [ -n "$ours" ]; then
	printf '%s\n' "$ours" | head -60 | sed 's/^/#   /'
	fail "blkfloor leaked memory"
fi
exit 0
