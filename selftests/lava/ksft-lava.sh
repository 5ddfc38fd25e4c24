#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ksft-lava.sh [-e] < KTAP: report run_kselftest.sh's results to LAVA, one
# lava-test-case per test (named GROUP-NNN, as the runnable is), pass,
# fail or skip, each as soon as its line is read (pipe the runner into
# it: a job that times out keeps the cases of the tests that ran); a
# test that timed out is a fail. Then one more case, "plan", that fails
# when the results do not match the runner's plan (a runner that died
# half way). With -e every line read is printed first (the job's log
# keeps the KTAP). Without lava-test-case (not in a LAVA test shell) it
# prints "NAME RESULT" lines instead. Exits 1 if any case failed.
report() {
	if command -v lava-test-case >/dev/null 2>&1; then
		lava-test-case "$1" --result "$2"
	else
		echo "$1 $2"
	fi
}
echo=0
[ "${1:-}" = -e ] && echo=1
plan='' n=0 bad=0
while IFS= read -r line; do
	[ $echo = 0 ] || printf '%s\n' "$line"
	case $line in
	1..*)
		[ -n "$plan" ] || plan=${line#1..}
		;;
	"ok "[0-9]*|"not ok "[0-9]*)
		name=$(echo "$line" | sed 's/^\(not \)\{0,1\}ok [0-9]* selftests: [^:]*: \([^ ]*\).*$/\2/')
		case $line in
		*"# SKIP"*) res=skip ;;
		"ok "*) res=pass ;;
		*) res=fail; bad=1 ;;
		esac
		n=$((n + 1))
		report "$name" "$res"
		;;
	esac
done
if [ -n "$plan" ] && [ "$n" = "$plan" ]; then
	report plan pass
else
	report plan fail
	bad=1
fi
exit $bad
