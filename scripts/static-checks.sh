#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks as one KTAP suite: checkpatch --strict on every kernel
# source, the netlink code generated from the YNL spec up to date, the
# module's comments within bounds (scripts/comment-share.py), shell
# scripts parse, make profile's and make bench's host parts work
# (selftests/bench/test_profile.py, test_report.py), and user/'s layers
# hold: no include cycle, no folder including from a layer above it
# (scripts/user-layers.py).
cd "$(dirname "$0")/.."
cp=build/ksrc/scripts/checkpatch.pl
files=(kmod/*.c kmod/*.h include/uapi/linux/*.h)
spec=Documentation/netlink/specs/blkfloor.yaml
checks=$((${#files[@]} + 6))
echo "KTAP version 1"
echo "1..$checks"
n=0 rc=0
result() { # ok? name
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
}
for f in "${files[@]}"; do
	out=$(perl "$cp" --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES -f "$f" 2>&1)
	r=$?
	[ $r != 0 ] && printf '%s\n' "$out" | sed 's/^/# /'
	result $r "checkpatch --strict $f"
done
# The netlink code generated from the spec (make nlgen) is committed: it
# must be exactly what ynl-gen-c makes of the spec today.
out=$(scripts/nlgen.sh --check 2>&1)
r=$?
[ $r != 0 ] && printf '%s\n' "$out" | sed 's/^/# /'
result $r "uapi header and kmod/nl_spec.[ch] are ynl-gen-c's output for $spec"
# Comments a maintainer keeps: no .c file of the module above loop.c's
# share of comments (19 % of its characters in 6.12), kerneldoc apart; no
# comment anywhere in it quoting a selftest or a benchmark run.
out=$(python3 scripts/comment-share.py --max 19 kmod/*.c &&
      python3 scripts/comment-share.py --max 100 kmod/*.h include/uapi/linux/*.h)
r=$?
[ $r != 0 ] && printf '%s\n' "$out" | sed 's/^/# /'
result $r "kmod: comments at most 19 % of a .c file (kerneldoc apart), none quoting a test or a benchmark (scripts/comment-share.py)"
bad=0
for s in scripts/*.sh selftests/*.sh selftests/vm/*.sh selftests/tests/*/[0-9][0-9][0-9]; do
	[ -f "$s" ] || continue
	bash -n "$s" || { echo "# $s does not parse"; bad=1; }
done
result $bad "shell scripts parse"
out=$(python3 selftests/bench/test_profile.py 2>&1)
r=$?
[ $r != 0 ] && printf '%s\n' "$out" | sed 's/^/# /'
result $r "make profile: plugin builds, report charges blocks per I/O"
out=$(python3 selftests/bench/test_report.py 2>&1)
r=$?
[ $r != 0 ] && printf '%s\n' "$out" | sed 's/^/# /'
result $r "make bench: report ratios against bare-stamped, like-for-like writes, latency biases"
out=$(python3 scripts/user-layers.py 2>&1)
r=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
result $r "user/: no include cycle, no include from a layer above (scripts/user-layers.py)"
exit $rc
