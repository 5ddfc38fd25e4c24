#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [-t TIMEOUT] [PATTERN...]: run the selftests and print one
# KTAP suite. PATTERNs select tests by GROUP/NNN glob (default: all); a
# pattern that selects no test is a failed result, not an empty pass.
# Inside the QEMU rig, a first result checks the rig itself (the host
# agent's port, every disk run-vm.sh attached). A test that prints its own
# KTAP (abi/001, the kselftest harness) has its results nested as a
# subtest, indented by two spaces.
#
# The KTAP is what the kernel's tools/testing/kunit/kunit_parser.py reads
# without an error (make check runs it on every log): "KTAP version 1"
# throughout, a nested block opens with its version line, then "# Subtest:
# GROUP/NNN" and its plan; every result line carries only the test's
# stable name (GROUP/NNN, "rig"), with a "# SKIP" or "# TIMEOUT"
# directive; the description, exit status and time go on "#" lines before
# it ("# GROUP/NNN: took N s, guest CPU C s" for every test: C is the time
# all the guest's CPUs were busy meanwhile, the test's processes and the
# kernel's work for it; N much above C is a test that waits). Exits
# non-zero if anything failed.
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

# Outside the rig, where no test can run (not root, blkfloor not
# installed), the suite skips once, saying why, not once per test.
if [ $rigcheck = 0 ] && [ ${#nomatch[@]} = 0 ] && [ -f "$here/lib.sh" ]; then
	why=$(cd / && env -u BLKFLOOR_VM_DIR bash -c 'd=$1; set --; . "$d/lib.sh"; _dmesg_tag=; blkfloor_unavailable' _ "$here" 2>&1)
	if [ -n "$why" ]; then
		echo "KTAP version 1"
		echo "# blkfloor selftests on $(uname -r)"
		echo "1..0 # SKIP $why"
		exit 4
	fi
fi

echo "KTAP version 1"
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
		echo "# rig: host agent port, $have of ${BLKFLOOR_RIG_DISKS:-0} disks"
		echo "ok $n rig"
	else
		echo "# rig fault: $bad"
		echo "not ok $n rig"
		failed=1
	fi
fi
for p in "${nomatch[@]}"; do
	n=$((n + 1))
	echo "# pattern '$p' selects no test"
	echo "not ok $n pattern $p"
	failed=1
done

# ktap_text: text quoted into the log (a test's output, what a hung test
# waited on) with the phrases at which the kernel's KTAP reader stops
# reading reworded (ktap-text.sed): a test that quotes the kernel log (a
# console, a halt) must not end the log for the parser.
ktap_text() {
	sed -f "$here/ktap-text.sed"
}

# show OUTPUT ID RC: a test's output as diagnostics, or, when it is a KTAP
# document of its own (a plan line), as a nested subtest; or, when it
# passed with parts skipped (lib.sh's skip_part: "# SKIP part NAME:
# REASON" lines), as a nested subtest of its own checks and a "# SKIP"
# result per skipped part.
show() {
	local parts
	set -- "$(printf '%s\n' "$1" | ktap_text)" "$2" "$3"
	parts=$(printf '%s\n' "$1" | sed -n 's/^# SKIP part \([^ :]*\): \(.*\)$/\1 \2/p')
	if [ "$3" = 0 ] && [ -n "$parts" ] &&
	   ! printf '%s\n' "$1" | grep -qE '^1\.\.[0-9]+( #.*)?$'; then
		printf '%s\n' "$1" | sed 's/^/# /'
		echo "  KTAP version 1"
		echo "  # Subtest: $2"
		echo "  1..$(( 1 + $(printf '%s\n' "$parts" | wc -l) ))"
		echo "  ok 1 checks"
		printf '%s\n' "$parts" | awk '{ r = $0; sub(/^[^ ]* /, "", r); printf "  ok %d %s # SKIP %s\n", NR + 1, $1, r }'
	elif printf '%s\n' "$1" | grep -qE '^1\.\.[0-9]+( #.*)?$'; then
		# (the version line first, then the name: kunit_parser.py)
		echo "  KTAP version 1"
		echo "  # Subtest: $2"
		printf '%s\n' "$1" | awk '
			/^K?TAP version/ { next }
			/^(1\.\.[0-9]+|(not )?ok [0-9]+)/ { print "  " $0; next }
			/^#/ { print "  " $0; next }
			{ print "  # " $0 }'
	else
		printf '%s\n' "$1" | sed 's/^/# /'
	fi
}

# Only shell builtins from here to the kill: on a slow guest (the debug
# kernel under TCG) every program started costs up to a second.

# stack PID STAT: one task's state, wait channel and kernel stack; STAT
# is what follows the ")" in /proc/PID/stat.
stack() {
	local comm wchan l
	read -r comm 2>/dev/null < "/proc/$1/comm"
	read -r wchan 2>/dev/null < "/proc/$1/wchan"
	echo "task $1 ($comm) state ${2%% *}, waiting in ${wchan:-?}:"
	while IFS= read -r l; do
		echo "  $l"
	done 2>/dev/null < "/proc/$1/stack"
}

# blocked SID: what a test that ran out of time (session SID) and the
# kernel were waiting on, before it is killed: every process of the test,
# the blkfloor kthreads, the module's state and the kernel's list of
# blocked tasks (sysrq w). A hang is then diagnosable from the log alone.
blocked() {
	local d p st comm l bf mods=() ours=() kthreads=() tag
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		read -r st 2>/dev/null < "$d/stat" || continue
		st=${st##*) }
		read -r comm 2>/dev/null < "$d/comm"
		# (state ppid pgrp session ...)
		read -r _ _ _ l _ <<< "$st"
		if [ "$l" = "$1" ]; then
			ours+=("$p" "$st")
		elif [[ $comm == blkfloor* ]]; then
			kthreads+=("$p" "$st")
		fi
	done
	echo "processes of the test:"
	for ((l = 0; l < ${#ours[@]}; l += 2)); do
		stack "${ours[l]}" "${ours[l + 1]}"
	done
	echo "blkfloor kthreads:"
	for ((l = 0; l < ${#kthreads[@]}; l += 2)); do
		stack "${kthreads[l]}" "${kthreads[l + 1]}"
	done
	while read -r l _ _ _ st _; do
		[ "$st" = Live ] || mods+=("$l ($st)")
		[ "$l" = blkfloor ] && bf="$l $st"
	done 2>/dev/null < /proc/modules
	echo "modules not live: ${mods[*]:-none}"
	echo "blkfloor: ${bf:-not loaded}"
	# (in the rig only: elsewhere the kernel is the machine's own)
	[ -n "${BLKFLOOR_VM_DIR:-}" ] && [ -w /proc/sysrq-trigger ] || return 0
	tag="run-guest: blocked tasks $$-$RANDOM"
	echo "$tag" > /dev/kmsg
	echo w > /proc/sysrq-trigger
	echo "kernel (sysrq w):"
	dmesg | awk -v tag="$tag" 'index($0, tag) { on = 1; next } on'
}

# run TEST OUT: run one test with the time limit, its output (stdout and
# stderr) in OUT; on a timeout, before the test is killed, what it was
# blocked on in $tdiag. Returns the test's status, 124 on a timeout.
#
# The test writes to OUT through a descriptor opened here and the file is
# unlinked at once: its output is read back from a second descriptor, so
# nothing that cleans the temporary directory meanwhile can lose it. (In
# make check on a loaded host, run from a job-control shell, the
# directory's file vanished during a timed-out test, and the test after it
# found no directory to write to: seen three times, not reproduced under
# strace; the cause was not found.)
run() {
	local pid sl sig wfd rfd
	tdiag=
	mkdir -p "${2%/*}"
	exec {wfd}> "$2" {rfd}< "$2"
	rm -f "$2"
	setsid "$1" >&"$wfd" 2>&1 < /dev/null &
	pid=$!
	sleep "$timeout" &
	sl=$!
	wait -n "$pid" "$sl"
	if kill -0 "$sl" 2>/dev/null; then
		kill "$sl"
		wait "$sl" 2>/dev/null
		wait "$pid"
		sl=$?
		run_out
		return $sl
	fi
	wait "$sl" 2>/dev/null
	tdiag=$(blocked "$pid" 2>&1)
	# (setsid: the test leads its own process group)
	kill -TERM -- "-$pid" 2>/dev/null
	for sig in KILL none; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 10 &
		sl=$!
		wait -n "$pid" "$sl"
		kill "$sl" 2>/dev/null
		# (a process stuck in the kernel outlives SIGKILL: after
		# another 10 s, leave it)
		[ $sig = KILL ] && kill -KILL -- "-$pid" 2>/dev/null
	done
	run_out
	return 124
}

# run_out: in run(), the test's output into $tout_text, and run's two
# descriptors (wfd, rfd: run's locals, seen here) closed.
run_out() {
	exec {wfd}>&-
	tout_text=$(cat <&"$rfd")
	exec {rfd}<&-
}

# busy_ticks: the guest's CPU time so far (user, nice, system, irq and
# softirq of all CPUs, in USER_HZ ticks) into $ticks; no fork.
busy_ticks() {
	local c u n sy id io irq sirq rest

	read -r c u n sy id io irq sirq rest < /proc/stat
	ticks=$((u + n + sy + irq + sirq))
}

work=$(mktemp -d)
tout=$work/out tdiag=
trap 'rm -rf "$work"' EXIT
for t in "${tests[@]}"; do
	n=$((n + 1))
	id=${t#"$here"/tests/}
	id=${id%.sh}
	desc=$(sed -n '3s/^# *//p' "$t")
	echo "# $id: $desc"
	start=$SECONDS
	busy_ticks
	t0=$ticks
	run "$t" "$tout" 2>/dev/null
	rc=$?
	out=$tout_text
	show "$out" "$id" "$rc"
	if [ $rc = 124 ]; then
		echo "# timed out after ${timeout}s; then:"
		printf '%s\n' "$tdiag" | ktap_text | sed 's/^/#   /'
	fi
	busy_ticks
	t0=$((ticks - t0))
	echo "# $id: took $((SECONDS - start)) s, guest CPU $((t0 / 100)).$((t0 / 10 % 10)) s"
	case $rc in
	0) echo "ok $n $id" ;;
	4) reason=$(printf '%s\n' "$out" | sed -n 's/^# SKIP: //p' | tail -1)
	   echo "ok $n $id # SKIP ${reason:-skipped}" ;;
	124) echo "not ok $n $id # TIMEOUT ${timeout} s"; failed=1 ;;
	*) echo "# $id: exit $rc"
	   echo "not ok $n $id"; failed=1 ;;
	esac
done
exit $failed
