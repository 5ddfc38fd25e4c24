#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ksft-profile.sh [quick|full] [run_kselftest.sh options...]: run a profile
# of blkfloor's kselftests through the installed suite's run_kselftest.sh
# (this file sits in INSTALL_PATH/drivers/block/blkfloor/, as kselftest's
# install and gen_tar leave it): quick runs the tests listed in the file
# quick next to it (a 10-minute CI job), full the whole collection. The
# KTAP goes to stdout; the exit status is 1 if any test failed or the
# runner's results do not match its plan, else 0. Variables a test reads
# (BLKFLOOR_TEST_DEV, BLKFLOOR_TEST_DEV_ID, BLKFLOOR_USB_GADGET, ...) pass
# through the environment, or per test as kselftest's
# KSELFTEST_<TEST>_ARGS="NAME=VALUE ..." (lib.sh).
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
col=${here#"$root"/}
runner=$root/run_kselftest.sh
profile=${1:-quick}
[ $# -gt 0 ] && shift
if [ ! -x "$runner" ]; then
	echo "ksft-profile: no $runner: run this from an installed kselftest suite" >&2
	exit 2
fi
case $profile in
quick)
	tests=$(sed 's/#.*//' "$here/quick" | awk -v c="$col" 'NF { gsub("/", "-", $1); print "-t " c ":" $1 }')
	;;
full)
	tests="-c $col"
	;;
*)
	echo "usage: ksft-profile.sh [quick|full] [run_kselftest.sh options...]" >&2
	exit 2
	;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086
"$runner" $tests "$@" | tee "$out"
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | head -1)
n=$(grep -c '^\(not \)\{0,1\}ok [0-9]' "$out")
if grep -q '^not ok [0-9]' "$out" || [ -z "$plan" ] || [ "$n" != "$plan" ]; then
	exit 1
fi
exit 0
