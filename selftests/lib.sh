# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for blkfloor's selftests (sourced by every test).
#
# A test is an executable file tests/GROUP/NNN. Its first comment line
# after the SPDX line is its description. It prints diagnostics as "# ..."
# lines and exits 0 (pass), 4 (skip, reason in the last "# SKIP" line) or
# anything else (fail), as kselftests do.
#
# Where the tests run:
#   - in the QEMU rig (selftests/vm/run-vm.sh, $BLKFLOOR_VM_DIR set): the
#     emulated USB disks and the host agent must be there; a missing one
#     is a rig fault and fails the test;
#   - anywhere else, as root (a kselftest install, make -C selftests
#     run_tests): tests that make their own devices (null_blk, scsi_debug,
#     dm) run; tests that need a disk write only $BLKFLOOR_TEST_DEV, and
#     only when $BLKFLOOR_TEST_DEV_ID names its serial or /dev/disk/by-id
#     name; tests that need the rig's host agent are skipped.
# The directory holding this file is the selftests directory of a blkfloor
# checkout or an installed suite (make install, kselftest install): helper
# programs are looked up in both layouts, the CLI also in $PATH.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# The C locale, as fstests runs in: the tests match ASCII output, and in a
# TCG guest a program started in C.UTF-8 costs 10 to 30 ms more CPU than
# in C (grep 86 ms against 59 ms), reading the locale's files. (Python
# still reads and writes UTF-8: its UTF-8 mode is on in the C locale.)
export LC_ALL=C

# (the directory by parameter expansion: dirname is a program, and every
# test sources this file)
_bf_here=${BASH_SOURCE[0]%/*}
[ "$_bf_here" != "${BASH_SOURCE[0]}" ] || _bf_here=.
BLKFLOOR_SELFTESTS=$(cd "${_bf_here:-/}" && pwd)
if [ -z "${BLKFLOOR_TOP:-}" ] && [ -f "$BLKFLOOR_SELFTESTS/../kmod/Kbuild" ]; then
	BLKFLOOR_TOP=$(cd "$BLKFLOOR_SELFTESTS/.." && pwd)
fi
BLKFLOOR_TOP=${BLKFLOOR_TOP:-}
if [ -z "${BLKFLOOR:-}" ]; then
	for BLKFLOOR in "${BLKFLOOR_TOP:+$BLKFLOOR_TOP/user/blkfloor}" \
			"$BLKFLOOR_SELFTESTS/blkfloor" "$(command -v blkfloor)"; do
		[ -n "$BLKFLOOR" ] && [ -x "$BLKFLOOR" ] && break
	done
fi
_cleanups=()

diag() { printf '# %s\n' "$*"; }
# fail and skip write to stderr too, so that they are seen from a $(...).
fail() { diag "FAIL: $*" >&2; exit $KSFT_FAIL; }
skip() { diag "SKIP: $*" >&2; exit $KSFT_SKIP; }

# skip_part NAME REASON: a part of the test (NAME, one word, e.g. io.max)
# is not run here, for REASON; the rest of the test goes on. It prints
# "# SKIP part NAME: REASON": run-guest.sh then reports a passing test as a
# nested KTAP block, its own checks as one result and each skipped part as
# a "# SKIP" result (GROUP/NNN:NAME), so the skip is counted and judged by
# selftests/skips-allowed like any other, not hidden in a plain pass.
skip_part() {
	local name=$1; shift
	diag "SKIP part $name: $*"
}

# A test's arguments set the variables a lab gives it, one NAME=VALUE
# each: kselftest's runner passes $KSELFTEST_<TEST>_ARGS to a test (the
# runnable's name upper-cased, '-' as '_'), so that a job can write
#   KSELFTEST_RUN_023_ARGS="BLKFLOOR_TEST_DEV=/dev/sdb BLKFLOOR_TEST_DEV_ID=S1"
# for one test, where the environment (BLKFLOOR_TEST_DEV=... run_kselftest.sh)
# sets it for all. Any other argument fails the test.
BLKFLOOR_ARG_VARS="BLKFLOOR_TEST_DEV BLKFLOOR_TEST_DEV_ID BLKFLOOR_USB_GADGET BLKFLOOR_GADGET_SIZE"
for _a in "$@"; do
	case " $BLKFLOOR_ARG_VARS " in
	*" ${_a%%=*} "*)
		[ "$_a" != "${_a%%=*}" ] || fail "argument '$_a' is not NAME=VALUE"
		export "${_a?}"
		diag "${_a%%=*}=${_a#*=} (from the test's arguments)" ;;
	*) fail "unknown argument '$_a': a test takes NAME=VALUE for $BLKFLOOR_ARG_VARS" ;;
	esac
done

# in_rig: true inside the QEMU test rig (selftests/vm/run-vm.sh).
in_rig() { [ -n "${BLKFLOOR_VM_DIR:-}" ]; }
# rig_fault MSG: what the rig should have provided is missing: a failure
# in the rig (a broken rig never passes as a skip), a skip outside it.
# Use it, not skip, for anything the rig has (null_blk, scsi_debug, dm,
# cgroup2, badblocks, headers, a command, an emulated disk): in the rig
# make check fails on any skip that selftests/skips-allowed does not list.
rig_fault() {
	in_rig && fail "rig fault: $*"
	skip "$*"
}

# Run cleanup functions in reverse order of registration, at any exit;
# then check the kernel log since the last mark (every test, whatever its
# result: a splat fails a test that passed or skipped).
on_exit() { _cleanups=("$1" "${_cleanups[@]}"); }
_run_cleanups() {
	local rc=$? c pid
	trap - EXIT
	for c in "${_cleanups[@]}"; do eval "$c" >/dev/null 2>&1; done
	# (the test's Python server, bf_py, if one was started; one not yet
	# ready cannot remove its directory itself)
	c=${TMPDIR:-/tmp}/blkfloor-py.$_bf_pid
	if [ "$BASHPID" = "$_bf_pid" ] && { read -r pid < "$c/pid"; } 2>/dev/null; then
		kill "$pid" 2>/dev/null
		[ -e "$c/ready" ] || rm -rf "$c"
	fi
	if [ -n "${_dmesg_tag:-}" ] && [ "$BASHPID" = "$_bf_pid" ]; then
		( check_dmesg ) || rc=$KSFT_FAIL
	fi
	exit $rc
}
_bf_pid=$BASHPID
trap _run_cleanups EXIT

# The kernel's YNL CLI (BLKFLOOR_YNL), blkfloor's YNL spec (BLKFLOOR_SPEC)
# and the genetlink-legacy schema (BLKFLOOR_YNL_SCHEMA, optional), each
# found once here for every test, or empty. Looked for, in order: what the
# environment names; in a checkout, make ksrc's tools/net/ynl and
# Documentation/; in an installed suite, the copies make install puts next
# to lib.sh (ynl/, blkfloor.yaml, genetlink-legacy.yaml); in a kernel
# tree (tools/testing/selftests/drivers/block/blkfloor/), its own
# tools/net/ynl and Documentation/; and a ynl command in PATH (the kernel's
# tools/net/ynl installs one). The CLI is cli.py (6.12) or pyynl/cli.py
# (6.14 and later). Call it through bf_ynl.
_bf_ynl_find() {
	local d f
	for d in "$@"; do
		for f in "$d/cli.py" "$d/pyynl/cli.py"; do
			[ -f "$f" ] && { echo "$f"; return 0; }
		done
	done
	command -v ynl
}
_bf_first_file() {
	local f
	for f in "$@"; do
		[ -n "$f" ] && [ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 0
}
_bf_ktree=$BLKFLOOR_SELFTESTS/../../../../../..
BLKFLOOR_YNL=${BLKFLOOR_YNL:-$(_bf_ynl_find \
	${BLKFLOOR_TOP:+"$BLKFLOOR_TOP/build/ksrc/tools/net/ynl"} \
	"$BLKFLOOR_SELFTESTS/ynl" "$_bf_ktree/tools/net/ynl")}
BLKFLOOR_SPEC=${BLKFLOOR_SPEC:-$(_bf_first_file \
	"${BLKFLOOR_TOP:+$BLKFLOOR_TOP/Documentation/netlink/specs/blkfloor.yaml}" \
	"$BLKFLOOR_SELFTESTS/blkfloor.yaml" \
	"$_bf_ktree/Documentation/netlink/specs/blkfloor.yaml")}
BLKFLOOR_YNL_SCHEMA=${BLKFLOOR_YNL_SCHEMA:-$(_bf_first_file \
	"${BLKFLOOR_TOP:+$BLKFLOOR_TOP/build/ksrc/Documentation/netlink/genetlink-legacy.yaml}" \
	"$BLKFLOOR_SELFTESTS/genetlink-legacy.yaml" \
	"$_bf_ktree/Documentation/netlink/genetlink-legacy.yaml")}
[ -n "$BLKFLOOR_SPEC" ] || BLKFLOOR_YNL=
export BLKFLOOR_YNL BLKFLOOR_SPEC BLKFLOOR_YNL_SCHEMA
# bf_ynl ARGS...: the YNL CLI on blkfloor's spec, e.g. bf_ynl --do
# info-get --output-json; BF_YNL_CMD is the same as an array, for running
# it through another command (setpriv). Without the schema check, which
# costs a TCG guest seconds a call; with BF_YNL_SCHEMA=1 (set before
# sourcing lib.sh), the spec is checked against the schema too.
# A YNL CLI that is a python file runs with PyYAML's libyaml parser where
# PyYAML has it (Debian's does): the same spec, the same objects (only the
# scanner and parser are C; the constructor is PyYAML's SafeConstructor),
# and in a TCG guest about a second less a call than yaml.safe_load's
# pure-python parser (2/3 of a call's time).
BF_YNL_CMD=()
_BF_YNL_LIBYAML='import os, runpy, sys, yaml
if getattr(yaml, "CSafeLoader", None):
    yaml.safe_load = lambda s: yaml.load(s, Loader=yaml.CSafeLoader)
del sys.argv[0]
sys.path.insert(0, os.path.dirname(os.path.realpath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")'
if [ -n "$BLKFLOOR_YNL" ]; then
	case $BLKFLOOR_YNL in *.py) BF_YNL_CMD=(python3 -c "$_BF_YNL_LIBYAML") ;; esac
	BF_YNL_CMD+=("$BLKFLOOR_YNL" --spec "$BLKFLOOR_SPEC")
	if [ "${BF_YNL_SCHEMA:-0}" = 1 ] && [ -n "$BLKFLOOR_YNL_SCHEMA" ]; then
		BF_YNL_CMD+=(--schema "$BLKFLOOR_YNL_SCHEMA")
	else
		BF_YNL_CMD+=(--no-schema)
	fi
fi
bf_ynl() {
	[ -n "$BLKFLOOR_YNL" ] || fail "bf_ynl: no ynl (call have_ynl first)"
	# (cli.py's main in the test's Python server, bf_py: a second or
	# more of imports saved a call)
	if [ "${BF_YNL_CMD[0]}" = python3 ] && [ "${BF_YNL_CMD[1]}" = -c ] &&
	   _bf_py_up && _bf_py_call "" ynl "${BF_YNL_CMD[@]:3}" "$@"; then
		return "$_bf_py_rc"
	fi
	"${BF_YNL_CMD[@]}" "$@"
}
# for_others [PROG...]: for a test that runs the CLI, the YNL CLI or
# helper programs as another user (nobody, setpriv): copies of them in a
# directory anyone may enter, BF_OTHERS_DIR, removed at exit:
# BLKFLOOR_OTHERS (the CLI), BF_YNL_OTHERS (as BF_YNL_CMD, an array; empty
# without ynl) and $BF_OTHERS_DIR/NAME for each PROG. The checkout may sit in a
# directory only root may enter (root's home is 0700 on Debian), where
# that user reaches nothing of it. Call it directly (not in $(...)).
BLKFLOOR_OTHERS= BF_YNL_OTHERS=() BF_OTHERS_DIR=
for_others() {
	local d i
	d=$(mktemp -d) || fail "for_others: mktemp"
	on_exit "rm -rf $d"
	chmod 0755 "$d"
	BF_OTHERS_DIR=$d
	cp "$BLKFLOOR" "$d/blkfloor" || fail "for_others: cannot copy $BLKFLOOR"
	for i in "$@"; do
		cp "$i" "$d/" || fail "for_others: cannot copy $i"
	done
	BLKFLOOR_OTHERS=$d/blkfloor
	BF_YNL_OTHERS=()
	[ -n "$BLKFLOOR_YNL" ] || return 0
	case $BLKFLOOR_YNL in
	*.py)	# (cli.py imports lib/ next to it: 6.12's tree; pyynl/cli.py
		# from 6.14 imports pyynl/lib/)
		mkdir -p "$d/ynl" &&
		cp -r "${BLKFLOOR_YNL%/*}"/. "$d/ynl/" || fail "for_others: cannot copy the YNL CLI"
		chmod -R a+rX "$d/ynl" ;;
	esac
	cp "$BLKFLOOR_SPEC" "$d/blkfloor.yaml" || fail "for_others: cannot copy the spec"
	chmod a+r "$d/blkfloor.yaml"
	for i in "${BF_YNL_CMD[@]}"; do
		case $i in
		"$BLKFLOOR_YNL") [[ $i == *.py ]] && i=$d/ynl/${BLKFLOOR_YNL##*/} ;;
		"$BLKFLOOR_SPEC") i=$d/blkfloor.yaml ;;
		esac
		BF_YNL_OTHERS+=("$i")
	done
}

# have_ynl PART WHAT: true when the YNL CLI is there; else the test's part
# PART (WHAT, which drives the family with it) is not run: a failure in
# the rig (make check extracts it), a skipped part (skip_part) elsewhere.
have_ynl() {
	[ -n "$BLKFLOOR_YNL" ] && return 0
	in_rig && fail "rig fault: no ynl (make ksrc): $2 not run"
	skip_part "$1" "no ynl (tools/net/ynl and the blkfloor spec): $2 not run"
	return 1
}
# require_ynl WHAT: the whole test needs the YNL CLI for WHAT: a failure
# in the rig, a skip elsewhere.
require_ynl() {
	[ -n "$BLKFLOOR_YNL" ] && return 0
	rig_fault "no ynl (tools/net/ynl and the blkfloor spec): $1"
}

# blkfloor_unavailable: why no test can run here, or nothing: not root, or
# (outside the rig) blkfloor not installed. run-guest.sh asks it once for
# the whole suite, require_guest in each test.
blkfloor_unavailable() {
	if [ "$EUID" != 0 ]; then
		echo "needs root"
	elif ! in_rig && { [ -z "$BLKFLOOR" ] || [ ! -x "$BLKFLOOR" ] ||
	     { [ ! -d /sys/module/blkfloor ] && ! modinfo blkfloor >/dev/null 2>&1; }; }; then
		echo "blkfloor is not installed (no blkfloor module for $(uname -r) or no blkfloor CLI in PATH): make install"
	fi
}

# require_guest: what every test needs: root, the CLI and the module.
# (The name is historical: tests that only make their own devices run
# anywhere.) Outside the rig the tests run against the installed blkfloor
# (module through modprobe, CLI in $PATH); where it is not installed every
# test skips with the one reason "blkfloor is not installed".
require_guest() {
	local why
	why=$(blkfloor_unavailable)
	[ -z "$why" ] || skip "$why"
	[ -n "$BLKFLOOR" ] && [ -x "$BLKFLOOR" ] ||
		rig_fault "no blkfloor CLI (make -C user, or install it, or set BLKFLOOR=)"
	return 0
}

# bf_prog NAME: the path of a helper program (abi_test, nlop, nlfuzz,
# ynl_test.sh): next to lib.sh in an installed suite, in kmod/ or fault/
# in the source tree. Fails (in the rig) or skips when it is not built.
bf_prog() {
	local d
	for d in "$BLKFLOOR_SELFTESTS" "$BLKFLOOR_SELFTESTS/kmod" \
		 "$BLKFLOOR_SELFTESTS/fault"; do
		[ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	rig_fault "$1 is not built (make -C selftests)"
}

# debug_kernel: true on a kernel built for make check-debug (KASAN,
# lockdep, kmemleak), where every I/O costs the kthread a lot more CPU:
# tests that check the engine's speed report instead of asserting there.
debug_kernel() {
	local r

	read -r r < /proc/sys/kernel/osrelease
	case $r in *-blkfloor-debug) return 0 ;; esac
	return 1
}

# require_fast_kernel: skip on the debug kernel a test whose verdict
# depends on the guest keeping up with a rate (the drive models run at up
# to 160 MB/s; under KASAN and lockdep the guest manages about half).
require_fast_kernel() {
	debug_kernel && skip "the debug kernel cannot keep up with the drive model's rates"
	return 0
}

# require_cmd CMD: CMD is installed; the rig has every command a test
# uses, so in the rig a missing one is a rig fault (a failure).
require_cmd() {
	command -v "$1" >/dev/null || rig_fault "$1 is not installed"
}

# Load blkfloor (installed into the guest by run-vm.sh) if it is not.
load_blkfloor() {
	if [ ! -d /sys/module/blkfloor ]; then
		modprobe blkfloor || fail "modprobe blkfloor failed"
		on_exit "modprobe -r blkfloor"
	fi
}

# unload_blkfloor: unload the module once no run is left. A run's kthread
# drops its module reference a few microseconds after the run's end is
# announced (design.rst, "Ending"), so an unload right after 'blkfloor
# stop' may still find it in use: it is tried again for up to 2 s, and
# only while no run is running or stopping. Returns modprobe's status.
unload_blkfloor() {
	local i
	for i in $(seq 20); do
		modprobe -r blkfloor 2>/dev/null && return 0
		[ "$(runs_running)" = 0 ] || break
		sleep 0.1
	done
	modprobe -r blkfloor
}

# Kernel log watermark: dmesg_mark writes a unique line into the kernel
# log; check_dmesg fails the test on a splat after the last mark. lib.sh
# marks when it is sourced and checks when the test exits, so every test
# is checked; a test calls check_dmesg itself to fail at a given point.
dmesg_mark() {
	local dir=${0%/*}

	_dmesg_tag="blkfloor-selftest: ${dir##*/}/${0##*/} $$-$RANDOM"
	echo "$_dmesg_tag" 2>/dev/null > /dev/kmsg || _dmesg_tag=
}
check_dmesg() {
	local bad
	[ -n "${_dmesg_tag:-}" ] || return 0
	bad=$(dmesg | awk -v tag="$_dmesg_tag" 'index($0, tag) { on = 1; next } on' |
	      grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|list_(add|del) corruption|refcount_t|UBSAN|KASAN|hung_task|soft lockup|INFO: task' )
	if [ -n "$bad" ]; then
		diag "kernel log:"; printf '%s\n' "$bad" | sed 's/^/#   /'
		fail "kernel splat in dmesg"
	fi
}

[ "$EUID" = 0 ] && dmesg_mark

# now_us: microseconds since the epoch, in $now_us; bash's EPOCHREALTIME
# where it has one (5.0 and later), without a fork: in a TCG guest a
# program started costs about 50 ms of CPU, and waits poll ten times a
# second.
now_us() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		now_us=${EPOCHREALTIME/[.,]/}
	else
		now_us=$(( $(date +%s%N) / 1000 ))
	fi
}
# sleep SECONDS: for a plain number of seconds, bash's read -t on a pipe
# no one writes to (opened once, read-write, so it never ends); sleep(1)
# for anything else (infinity, 1m) or without /dev/fd. In a TCG guest a
# sleep(1) costs 30 to 45 ms of CPU, and waits poll ten times a second.
sleep() {
	local _bf_x
	if [ $# = 1 ] && [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] &&
	   { [ -n "${_bf_snore:-}" ] || exec {_bf_snore}<> <(:); } 2>/dev/null; then
		read -rt "$1" -u "$_bf_snore" _bf_x
		return 0
	fi
	command sleep "$@"
}
# wait_for SECONDS DESCRIPTION CMD...: poll CMD every 0.1 s until it
# succeeds; fails the test naming DESCRIPTION at the deadline.
wait_for() {
	local secs=$1 what=$2 end
	shift 2
	now_us
	end=$((now_us + secs * 1000000))
	until "$@"; do
		now_us
		[ "$now_us" -lt "$end" ] || fail "timed out after ${secs}s waiting for $what"
		sleep 0.1
	done
}

# nlop_key KEY TEXT: the value of each "KEY=value" line of TEXT (nlop's
# replies), one a line; in bash, as a sed would cost a program start.
nlop_key() {
	local line
	while IFS= read -r line; do
		[[ $line == "$1="* ]] && printf '%s\n' "${line#"$1"=}"
	done <<< "$2"
	return 0
}

# run_on DEV [MIN_INTERVALS]: true when a run on DEV is running and has
# measured at least MIN_INTERVALS intervals (blkfloor list --json).
run_on() {
	"$BLKFLOOR" list --json 2>/dev/null | bf_py --stdin "$BF_PY_JSON"'
dev, n = sys.argv[1], int(sys.argv[2])
sys.exit(0 if any(r["device"] == dev and r["state"] == "running" and
		  r["intervals"] >= n for r in load("-")) else 1)' "$1" "${2:-0}"
}
# wait_run DEV [MIN_INTERVALS] [SECONDS]: wait (30 s by default) for it.
wait_run() {
	wait_for "${3:-30}" "a run on $1 with ${2:-0} intervals" run_on "$1" "${2:-0}"
}
# run_ended ID: true when run ID is known and no longer running. (No
# python: tests poll it while a paced run runs, and a python start costs a
# TCG guest tens of milliseconds of CPU each time.)
run_ended() {
	"$BLKFLOOR" list 2>/dev/null |
		awk -v id="$1" '$1 == id { f = 1; if ($4 == "running" || $4 == "stopping" || $4 == "preparing") r = 1 } END { exit !(f && !r) }'
}
# runs_running: how many runs the module reports not ended (running,
# stopping: draining their I/O, or preparing: writing back the page cache).
runs_running() {
	"$BLKFLOOR" list --json | bf_py --stdin "$BF_PY_JSON"'
print(sum(r["state"] in ("running", "stopping", "preparing") for r in load("-")))'
}

# config: CONFIG_CGROUPS
# cgroup_create CONTROLLER NAME: a cgroup v2 group NAME with CONTROLLER
# enabled, its path in CGROUP, removed at exit (cgroup2 is mounted on
# /sys/fs/cgroup first where the guest has none, and unmounted at exit).
# A missing cgroup v2 or controller is a rig fault. Call it directly (not
# in $(...)): it registers its cleanups in this shell.
cgroup_create() {
	local cg=/sys/fs/cgroup

	if [ "$(stat -f -c %T $cg 2>/dev/null)" != cgroup2fs ]; then
		mountpoint -q $cg && rig_fault "$cg is not cgroup v2"
		mount -t cgroup2 none $cg || rig_fault "cannot mount cgroup2 on $cg"
		on_exit "umount $cg"
	fi
	grep -qw "$1" $cg/cgroup.controllers ||
		rig_fault "the kernel has no $1 cgroup controller"
	echo "+$1" > $cg/cgroup.subtree_control ||
		fail "cannot enable the $1 controller"
	CGROUP=$cg/$2
	mkdir "$CGROUP" || fail "mkdir $CGROUP"
	on_exit "rmdir $CGROUP"
}

# in_cgroup DIR CMD...: run CMD in the cgroup DIR (what it allocates and
# submits is charged there).
in_cgroup() {
	sh -c 'echo 0 > "$1/cgroup.procs" && shift && exec "$@"' sh "$@"
}

# config: CONFIG_BLK_DEV_NULL_BLK CONFIG_CONFIGFS_FS
# null_blk through configfs, as blktests' _configure_null_blk does:
# nullb_create NAME key=value... makes /dev/NAME, removed at exit. Call it
# directly (not in $(...)): it registers its cleanup in this shell.
nullb_create() {
	local name=$1 kv; shift
	if [ ! -d /sys/kernel/config/nullb ]; then
		modprobe null_blk nr_devices=0 || rig_fault "null_blk is not available"
		mountpoint -q /sys/kernel/config ||
			mount -t configfs configfs /sys/kernel/config
	fi
	[ -d /sys/kernel/config/nullb ] || fail "null_blk configfs missing"
	mkdir "/sys/kernel/config/nullb/$name" || fail "nullb $name"
	on_exit "nullb_destroy $name"
	for kv in "$@"; do
		echo "${kv#*=}" > "/sys/kernel/config/nullb/$name/${kv%%=*}" ||
			fail "nullb $name: cannot set $kv"
	done
	echo 1 > "/sys/kernel/config/nullb/$name/power" || fail "nullb $name power"
	udev_wait "/dev/$name"
}
# There is no udev in the guest: wait for devtmpfs to show a node.
udev_wait() {
	wait_for 5 "$1 to appear" test -b "$1"
}
nullb_destroy() {
	echo 0 > "/sys/kernel/config/nullb/$1/power"
	rmdir "/sys/kernel/config/nullb/$1"
}

# config: CONFIG_SCSI_DEBUG CONFIG_BLK_DEV_SD
# sdebug_create PARAM=VALUE...: a fresh scsi_debug disk with these
# module parameters (any loaded scsi_debug is unloaded first), its node in
# SDEBUG_DEV (/dev/sdX) and its SCSI device in SDEBUG_SYS; unloaded at exit.
# Call it directly (not in $(...)): it registers its cleanup in this shell.
sdebug_create() {
	modprobe -r scsi_debug 2>/dev/null
	[ -d /sys/module/scsi_debug ] && fail "scsi_debug is loaded and busy"
	# (no udev in the rig: the disk driver is loaded by hand)
	modprobe sd_mod 2>/dev/null
	modprobe scsi_debug "$@" || rig_fault "scsi_debug is not available (modprobe scsi_debug $*)"
	on_exit "modprobe -r scsi_debug"
	wait_for 20 "the scsi_debug disk" _sdebug_up
	SDEBUG_DEV=/dev/$(_sdebug_find)
	SDEBUG_SYS=/sys/block/${SDEBUG_DEV#/dev/}/device
	diag "scsi_debug $*: $SDEBUG_DEV"
}
_sdebug_up() { _sdebug_find > /dev/null; }
_sdebug_find() {
	local d
	for d in /sys/block/sd*; do
		[ "$(tr -d ' ' < "$d/device/model" 2>/dev/null)" = scsi_debug ] &&
			[ -b "/dev/${d##*/}" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# config: CONFIG_BLK_DEV_DM
# dm_node NAME: /dev/dm-N of the device-mapper device NAME (no udev in the
# rig: no /dev/mapper links), once its node exists.
dm_node() {
	local d
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = "$1" ] || continue
		udev_wait "/dev/${d##*/}"
		echo "/dev/${d##*/}"
		return 0
	done
	fail "no dm device named $1"
}

# expect_errors JSON CLASS=N...: the run summary JSON (blkfloor run --json)
# counted exactly N errors of each CLASS named, none of any other class,
# and a total that is their sum; every error it logged carries one of the
# classes named, as many per class as were counted (when none was dropped).
expect_errors() {
	local json=$1 out
	shift
	out=$(bf_py "$BF_PY_JSON"'
j = load(sys.argv[1])
want = {k: int(v) for k, v in (a.split("=") for a in sys.argv[2:])}
e = j["errors"]
print("# errors: %s; logged: %s" % (
    ", ".join("%s %d" % (k, v) for k, v in e.items() if v) or "none",
    ", ".join("%s lba %d errno %d" % (x["class"], x["lba"], x["errno"])
              for x in j["error_log"][:8]) or "none"))
bad = []
for k, v in e.items():
    if k != "total" and v != want.get(k, 0):
        bad.append("%s %d, expected %d" % (k, v, want.get(k, 0)))
for k in want:
    if k not in e:
        bad.append("no class %s" % k)
if e["total"] != sum(want.values()):
    bad.append("total %d, expected %d" % (e["total"], sum(want.values())))
logged = {}
for x in j["error_log"]:
    logged[x["class"]] = logged.get(x["class"], 0) + 1
if j["error_log_dropped"] == 0 and logged != {k: v for k, v in want.items() if v}:
    bad.append("error log classes %s" % logged)
if bad:
    print("; ".join(bad))
    sys.exit(1)' "$json" "$@") || { printf '%s\n' "$out" | grep '^#'; fail "error classes: $(printf '%s\n' "$out" | grep -v '^#')"; }
	printf '%s\n' "$out"
}

# _bf_realdir DIR: DIR with every symlink resolved, as readlink -f gives a
# directory that exists, but in a subshell, not a program (in a TCG guest
# about 6 ms of CPU instead of 45; the disk lookups loop over every disk).
_bf_realdir() { (cd -P -- "$1" 2>/dev/null && pwd -P); }

# disk_transport DEV: usb-storage or uas (the driver of the USB interface
# the SCSI disk hangs off), or nothing for any other disk.
disk_transport() {
	local p intf drv
	p=$(_bf_realdir "/sys/block/${1#/dev/}/device") || return 0
	# .../2-1/2-1:1.0/host6/target6:0:0/6:0:0:0
	case $p in */host*) ;; *) return 0 ;; esac
	intf=${p%/host*}
	drv=$(_bf_realdir "$intf/driver")
	drv=${drv##*/}
	case $drv in usb-storage|uas) echo "$drv" ;; esac
}

# The USB mass-storage gadget: a usb-storage disk on any machine whose
# kernel has dummy_hcd and the configfs mass-storage function
# (libcomposite, usb_f_mass_storage; both Debian kernels do), with no
# emulated controller and no hardware: dummy_hcd is a USB host controller
# and a device controller wired back to back in software, and the gadget
# behind it is a Bulk-Only mass-storage device backed by a file on a
# private tmpfs, so the real usb-storage host driver, SCSI disk and block
# layer run. (There is no UAS gadget: CONFIG_USB_CONFIGFS_F_TCM is off in
# Debian's kernels.) dummy_hcd is loaded SuperSpeed (is_super_speed=1),
# as a USB 3 disk is, so usb-storage gives it the 2048-sector limit of
# USB 3 disks. The medium is memory: it has no cache, no heat, no FTL,
# no TRIM (f_mass_storage has no UNMAP) and never fails.
#
# usb_gadget_wanted: whether the tests use it for their usb-storage disk:
# BLKFLOOR_USB_GADGET=1 always, =0 never; by default when this machine has
# no usb-storage disk the tests may write: in the rig, one started without
# --usb; elsewhere, when BLKFLOOR_TEST_DEV is not set.
usb_gadget_wanted() {
	case ${BLKFLOOR_USB_GADGET:-} in
	1) return 0 ;;
	0) return 1 ;;
	esac
	if in_rig; then
		[ "${BLKFLOOR_RIG_USB:-1}" = 0 ]
	else
		[ -z "${BLKFLOOR_TEST_DEV:-}" ]
	fi
}

BLKFLOOR_GADGET=/sys/kernel/config/usb_gadget/blkfloor
BLKFLOOR_GADGET_SERIAL="BLKFLOOR-GADGET0"
_gadget_dir=

# gadget_disk: /dev/sdX of the gadget's disk (a usb-storage disk below
# dummy_hcd), or nothing.
gadget_disk() {
	local d p
	for d in /sys/block/sd*; do
		[ -e "$d" ] || continue
		p=$(_bf_realdir "$d/device")
		case $p in */dummy_hcd.*/*) ;; *) continue ;; esac
		[ "$(disk_transport "${d##*/}")" = usb-storage ] || continue
		[ -b "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 0
}

# _gadget_fault MSG: the gadget cannot be set up: a rig fault in the rig
# (both kernels have it); elsewhere a diagnostic, and no disk.
_gadget_fault() {
	in_rig && fail "rig fault: USB gadget disk: $*"
	diag "no USB gadget disk: $*" >&2
	return 1
}

# usb_gadget_prepare: set up the gadget when usb_gadget_wanted, before
# test_disk_opt usb|any (which then returns its disk), and tear it down at
# exit. Call it directly, not in $(...): it registers its cleanup in this
# shell. BLKFLOOR_GADGET_SIZE is the disk's size (default 256M); its
# memory is used only as it is written.
# config: CONFIG_USB_GADGET CONFIG_USB_DUMMY_HCD CONFIG_USB_LIBCOMPOSITE CONFIG_USB_CONFIGFS CONFIG_USB_CONFIGFS_MASS_STORAGE CONFIG_USB_STORAGE CONFIG_BLK_DEV_SD CONFIG_TMPFS
usb_gadget_prepare() {
	local g=$BLKFLOOR_GADGET size=${BLKFLOOR_GADGET_SIZE:-256M} m dir loaded=()
	usb_gadget_wanted || return 0
	[ -z "$_gadget_dir" ] || return 0
	[ -e "$g" ] && { _gadget_fault "$g already exists (another test's gadget?)"; return 0; }
	for m in dummy_hcd libcomposite usb_f_mass_storage; do
		[ -d "/sys/module/$m" ] && continue
		if [ $m = dummy_hcd ]; then
			modprobe dummy_hcd is_super_speed=1 2>/dev/null
		else
			modprobe $m 2>/dev/null
		fi || { _gadget_fault "modprobe $m failed (CONFIG_USB_DUMMY_HCD, CONFIG_USB_CONFIGFS_MASS_STORAGE)"; return 0; }
		loaded=("$m" "${loaded[@]}")
	done
	[ ${#loaded[@]} = 0 ] || on_exit "modprobe -r ${loaded[*]}"
	# the host side, which udev would load when the device appears
	modprobe -a usb-storage sd_mod 2>/dev/null ||
		{ _gadget_fault "modprobe usb-storage sd_mod failed"; return 0; }
	[ -d /sys/class/udc/dummy_udc.0 ] || { _gadget_fault "no UDC dummy_udc.0"; return 0; }
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	dir=$(mktemp -d /tmp/blkfloor-gadget.XXXXXX) || fail "mktemp"
	on_exit "rmdir $dir"
	mount -t tmpfs -o "size=$size" blkfloor-gadget "$dir" || fail "tmpfs for the gadget"
	on_exit "umount $dir"
	truncate -s "$size" "$dir/disk" || fail "truncate $dir/disk"
	_gadget_dir=$dir
	on_exit usb_gadget_remove
	mkdir "$g" "$g/strings/0x409" "$g/configs/c.1" "$g/functions/mass_storage.0" ||
		fail "configfs gadget $g"
	echo 0x1d6b > "$g/idVendor"	# Linux Foundation
	echo 0x0104 > "$g/idProduct"	# Multifunction Composite Gadget
	echo "$BLKFLOOR_GADGET_SERIAL" > "$g/strings/0x409/serialnumber"
	echo blkfloor > "$g/strings/0x409/manufacturer"
	echo "blkfloor test gadget" > "$g/strings/0x409/product"
	echo 0 > "$g/functions/mass_storage.0/lun.0/removable"
	echo "$dir/disk" > "$g/functions/mass_storage.0/lun.0/file" ||
		fail "gadget: cannot use $dir/disk as the LUN's file"
	ln -s "$g/functions/mass_storage.0" "$g/configs/c.1/" || fail "gadget config"
	echo dummy_udc.0 > "$g/UDC" || fail "gadget: cannot bind to dummy_udc.0"
	_gadget_up() { [ -n "$(gadget_disk)" ]; }
	wait_for 60 "the USB gadget's disk (usb-storage on dummy_hcd)" _gadget_up
	diag "USB gadget disk $(gadget_disk): $size on tmpfs, usb-storage on dummy_hcd at $(cat "$(gadget_usb_dev)/speed" 2>/dev/null) Mb/s"
}

# gadget_usb_dev: the sysfs directory of the gadget's USB device (as the
# host sees it), or nothing.
gadget_usb_dev() {
	local d p
	d=$(gadget_disk)
	[ -n "$d" ] || return 0
	p=$(_bf_realdir "/sys/block/${d#/dev/}/device")
	while [ -n "$p" ] && [ "$p" != / ]; do
		[ -r "$p/idVendor" ] && { echo "$p"; return 0; }
		p=${p%/*}
	done
}

# usb_gadget_remove: unbind the gadget (the host sees the disk unplugged)
# and remove it from configfs.
usb_gadget_remove() {
	local g=$BLKFLOOR_GADGET
	[ -e "$g" ] || return 0
	echo "" > "$g/UDC" 2>/dev/null
	rm -f "$g/configs/c.1/mass_storage.0"
	rmdir "$g/configs/c.1" "$g/functions/mass_storage.0" "$g/strings/0x409" "$g"
}

# config: CONFIG_BLK_DEV_SD CONFIG_USB_XHCI_HCD CONFIG_USB_XHCI_PCI CONFIG_USB_STORAGE CONFIG_USB_UAS
# rig_disk usb|uas [N]: /dev/sdX of the Nth emulated disk of that transport
# (by USB port order), or nothing. Only inside the QEMU rig: outside it,
# a USB disk on this machine is somebody's data.
rig_disk() {
	local want=$1 n=${2:-0} d p drv i=0 list=()
	in_rig || return 0
	case $want in
	usb) want=usb-storage ;;
	uas) ;;
	*) fail "rig_disk: unknown transport $want" ;;
	esac
	for d in /sys/block/sd*; do
		[ -e "$d" ] || continue
		drv=$(disk_transport "${d##*/}")
		[ "$drv" = "$want" ] || continue
		p=$(_bf_realdir "$d/device")
		case $p in */dummy_hcd.*/*) continue ;; esac
		p=${p%/host*}
		p=${p%/*}
		list+=("${p##*/} ${d##*/}")
	done
	for d in $(printf '%s\n' "${list[@]}" | sort -V | awk '{print $2}'); do
		[ $i -eq "$n" ] && { echo "/dev/$d"; return; }
		i=$((i + 1))
	done
}

# disk_ids DEV: every name that identifies DEV's drive: its SCSI serial
# (VPD page 0x80), the USB device's serial, its WWID, and its
# /dev/disk/by-id names.
disk_ids() {
	local b=${1#/dev/} p l real
	b=${b%%[0-9]*}
	[ -r "/sys/block/$b/device/vpd_pg80" ] &&
		tail -c +5 "/sys/block/$b/device/vpd_pg80" | tr -d '\0' | tr -s ' ' | sed 's/^ //; s/ $//'
	echo
	cat "/sys/block/$b/device/wwid" 2>/dev/null
	p=$(_bf_realdir "/sys/block/$b/device")
	while [ -n "$p" ] && [ "$p" != / ] && [ "$p" != /sys/devices ]; do
		if [ -r "$p/serial" ] && [ -r "$p/idVendor" ]; then
			cat "$p/serial"
			break
		fi
		p=${p%/*}
	done
	real=$(readlink -f "$1")
	for l in /dev/disk/by-id/*; do
		[ -e "$l" ] && [ "$(readlink -f "$l")" = "$real" ] && echo "${l##*/}"
	done
	return 0
}

# test_dev_checked: $BLKFLOOR_TEST_DEV after the ID guard, or a failure:
# the device must be a block device whose serial, WWID or by-id name is
# $BLKFLOOR_TEST_DEV_ID, and nothing on it may be mounted.
test_dev_checked() {
	local dev=${BLKFLOOR_TEST_DEV:-} id=${BLKFLOOR_TEST_DEV_ID:-}
	[ -b "$dev" ] || fail "BLKFLOOR_TEST_DEV=$dev is not a block device"
	[ -n "$id" ] || fail "BLKFLOOR_TEST_DEV is set but BLKFLOOR_TEST_DEV_ID is not: set it to the disk's serial or /dev/disk/by-id name"
	disk_ids "$dev" | grep -qxF -- "$id" ||
		fail "BLKFLOOR_TEST_DEV_ID=$id does not name $dev (it is: $(disk_ids "$dev" | grep . | paste -sd ' ')); refusing to write it"
	grep -q "^$(readlink -f "$dev")[0-9p]* " /proc/mounts &&
		fail "$dev (BLKFLOOR_TEST_DEV) or a partition of it is mounted"
	echo "$dev"
}

# test_disk_opt usb|uas|any: the disk a test may write for that transport,
# or nothing (with a diagnostic) when this machine has none:
#   - usb or any, after usb_gadget_prepare set the gadget up: its disk;
#   - in the rig: the emulated disk; a missing one is a rig fault (fails),
#     unless the rig was started without that kind of disk
#     ($BLKFLOOR_RIG_USB or $BLKFLOOR_RIG_UAS is 0);
#   - elsewhere: $BLKFLOOR_TEST_DEV when its ID guard passes (else the test
#     fails) and its transport is the one asked for.
# Call it as dev=$(test_disk_opt uas) || exit.
test_disk_opt() {
	local want=$1 d tr n
	if [ "$want" != uas ] && [ -n "$_gadget_dir" ]; then
		d=$(gadget_disk)
		[ -n "$d" ] || fail "the USB gadget's disk is gone"
		echo "$d"
		return 0
	fi
	if in_rig; then
		[ "$want" = any ] && want=uas
		n=BLKFLOOR_RIG_${want^^}
		if [ "${!n:-1}" = 0 ]; then
			diag "no $want disk: the rig was started without --$want" >&2
			return 0
		fi
		d=$(rig_disk "$want")
		[ -n "$d" ] || fail "rig fault: no emulated $want disk in the rig (run-vm.sh --$want SIZE)"
		echo "$d"
		return 0
	fi
	if [ -z "${BLKFLOOR_TEST_DEV:-}" ]; then
		diag "no $want disk: not in the QEMU rig, and BLKFLOOR_TEST_DEV is not set" >&2
		return 0
	fi
	d=$(test_dev_checked) || exit
	tr=$(disk_transport "$d")
	case $want in
	any) ;;
	usb) [ "$tr" = usb-storage ] || { diag "no usb-storage disk: BLKFLOOR_TEST_DEV $d is ${tr:-not a USB disk}" >&2; return 0; } ;;
	uas) [ "$tr" = uas ] || { diag "no uas disk: BLKFLOOR_TEST_DEV $d is ${tr:-not a USB disk}" >&2; return 0; } ;;
	esac
	echo "$d"
}

# no_disk_part usb|uas|any [PART]: the test's part for that transport
# (named PART, default the transport) is not run, as test_disk_opt gave no
# disk: a skipped part with the reason, never a silent pass. Call it
# directly where test_disk_opt returned nothing.
no_disk_part() {
	local why tr
	if in_rig; then
		why="the rig was started without --$1"
	elif [ -z "${BLKFLOOR_TEST_DEV:-}" ]; then
		why="not in the QEMU rig, and BLKFLOOR_TEST_DEV is not set"
	else
		tr=$(disk_transport "$BLKFLOOR_TEST_DEV")
		why="BLKFLOOR_TEST_DEV is ${tr:-not a USB disk}"
	fi
	skip_part "${2:-$1}" "no $1 disk: $why"
}

# test_disk usb|uas|any: as test_disk_opt, but skips when there is none.
# Call it as dev=$(test_disk uas) || exit.
test_disk() {
	local d
	d=$(test_disk_opt "$1") || exit
	[ -n "$d" ] || skip "no $1 disk to write: set BLKFLOOR_TEST_DEV=/dev/sdX and BLKFLOOR_TEST_DEV_ID=SERIAL to use one"
	echo "$d"
}

# require_rig_disk usb|uas [N]: the Nth emulated disk; outside the rig,
# test_disk's choice. Call it as dev=$(require_rig_disk uas) || exit.
require_rig_disk() {
	local d
	in_rig || { test_disk "$1"; return; }
	d=$(rig_disk "$@")
	[ -n "$d" ] || fail "rig fault: no emulated $1 disk ${2:-0} in the rig"
	echo "$d"
}

# require_agent: the test drives the rig's host agent (drive models, QMP
# unplug): skipped outside the rig, a failure in a rig without one.
require_agent() {
	if ! in_rig; then
		skip "needs the QEMU rig's host agent (drive models, QMP unplug): selftests/vm/run-vm.sh"
	fi
	[ -n "${BLKFLOOR_RIG:-}" ] && [ -e "$BLKFLOOR_RIG" ] ||
		fail "rig fault: no host agent port (BLKFLOOR_RIG='${BLKFLOOR_RIG:-}')"
	return 0
}

# rig CMD...: one request to the host agent (selftests/vm/rigctl.py); prints
# the reply after "ok", fails the test on "err" or no reply. The request is
# tagged so that a reply left on the port by an earlier client that died is
# never taken for this one's. (Bash, not rigctl.py --client: python starts
# slowly in a TCG guest over 9p.) A test's subshells may call it side by
# side: the port opens once at a time, so each request holds a lock.
rig() {
	local t="@$BASHPID-$RANDOM$RANDOM" tag st rest lk
	require_agent
	exec {lk}>>"${TMPDIR:-/tmp}/blkfloor-rig.lock" && flock -w 60 "$lk" ||
		fail "rig: cannot lock ${TMPDIR:-/tmp}/blkfloor-rig.lock"
	exec 9<>"$BLKFLOOR_RIG" || fail "rig: cannot open $BLKFLOOR_RIG"
	printf '%s %s\n' "$t" "$*" >&9
	while read -r -t 20 tag st rest <&9; do
		[ "$tag" = "$t" ] && break
	done
	exec 9>&- {lk}>&-
	[ "$tag" = "$t" ] || fail "rig $*: no reply"
	[ "$st" = ok ] || fail "rig $*: $st $rest"
	printf '%s\n' "$rest"
}

# BF_PY_JSON: Python that defines load(FILE), the JSON document in FILE
# ("-" for stdin), and loads(TEXT, NAME), to run as
#   python3 -I -S -c "$BF_PY_JSON"'...'
# It uses the json module's C scanner without importing json, which
# imports re: in a TCG guest that halves a python start (about 0.46 s to
# 0.24 s; tests start hundreds). Text that is not one JSON document exits
# 1, saying where it went wrong.
# shellcheck disable=SC2016
BF_PY_JSON='
import sys, _json
class _Ctx:
    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"),
                      "-Infinity": float("-inf")}.__getitem__
def loads(s, name="text"):
    i = len(s) - len(s.lstrip())
    try:
        j, end = _json.make_scanner(_Ctx())(s, i)
    except StopIteration as e:
        end = e.value
    except Exception:
        # (a truncated document: the C scanner fails to build its
        # JSONDecodeError without the json package imported)
        end = None
    else:
        if not s[end:].strip():
            return j
    sys.exit("%s: not one JSON document%s" % (
        name, "" if end is None else " (at offset %d)" % end))
def load(f):
    return loads(sys.stdin.read() if f == "-" else open(f).read(), f)
'

# bf_py [--stdin] CODE ARGS...: what `python3 -I -S -c CODE ARGS...` does
# (its stdout, stderr and exit status; stdin only with --stdin, read to
# its end first); bf_py - ARGS... takes the code from stdin, as
# `python3 -I -S - ARGS...`. Each runs in the test's Python server: one interpreter per
# test, started by the first call (from whichever subshell makes it) and
# gone within a second of the test's shell. In a TCG guest a python start
# costs 150 to 250 ms of CPU and the tests start hundreds (json_get alone
# 237 in a 6.12 guest's suite); a call to the server costs a mkfifo and a
# few milliseconds. Each call runs in fresh globals, in the caller's
# working directory, with its own sys.argv, stdin, stdout and stderr;
# modules stay imported between calls. Where the server cannot run (no
# mkfifo, BLKFLOOR_PY_SERVER=0) the same call starts python3 as before.
# shellcheck disable=SC2016
_BF_PY_SERVER='
import signal, sys
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
import builtins, copy, gc, io, os, runpy, select, shutil, traceback
d, parent = sys.argv[1], int(sys.argv[2])
os.closerange(3, 65536)
req = os.open(d + "/req", os.O_RDWR)
_spec = {}
def _ynl_setup():
    # the YNL CLI with PyYAML'"'"'s libyaml parser where it has one (as
    # bf_ynl does without the server); a spec file parsed once, a copy
    # of it given to each call
    import yaml
    if getattr(yaml, "CSafeLoader", None):
        def safe_load(s):
            name, key = getattr(s, "name", None), None
            if isinstance(name, str):
                st = os.stat(name)
                key = (name, st.st_mtime_ns, st.st_size)
                if key in _spec:
                    return copy.deepcopy(_spec[key])
            v = yaml.load(s, Loader=yaml.CSafeLoader)
            if key:
                _spec[key] = copy.deepcopy(v)
            return v
        yaml.safe_load = safe_load
    _ynl_setup.done = True
def run(mode, code, args, stdin):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv, sys.stdin, sys.stdout, sys.stderr, list(sys.path)
    rc = 0
    try:
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
        if mode == "ynl":
            if not getattr(_ynl_setup, "done", False):
                _ynl_setup()
            sys.argv = [code] + args
            sys.path.insert(0, os.path.dirname(os.path.realpath(code)))
            runpy.run_path(code, run_name="__main__")
        else:
            sys.argv = ["-c"] + args
            exec(compile(code, "<string>", "exec"),
                 {"__name__": "__main__", "__builtins__": builtins})
    except SystemExit as e:
        if e.code is None:
            rc = 0
        elif isinstance(e.code, int):
            rc = e.code & 0xff
        else:
            print(e.code, file=err)
            rc = 1
    except BaseException as e:
        # (the traceback from the call'"'"'s own code, as python3 prints it)
        traceback.print_exception(type(e), e, e.__traceback__.tb_next, file=err)
        rc = 1
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved[:4]
        sys.path[:] = saved[4]
    if mode == "ynl":
        gc.collect()	# (its netlink sockets closed now, not later)
    return rc, out.getvalue().encode(), err.getvalue().encode()
def serve(q):
    with open(q, "rb") as f:
        data = f.read()
    os.unlink(q)
    reply, cwd, mode, code, n, rest = data.split(b"\0", 5)
    args = []
    for _ in range(int(n)):
        a, rest = rest.split(b"\0", 1)
        args.append(os.fsdecode(a))
    try:
        os.chdir(cwd)
    except OSError:
        os.chdir("/")
    rc, out, err = run(mode.decode(), os.fsdecode(code), args, os.fsdecode(rest))
    os.chdir("/")	# (holding no directory between calls: umount)
    fd = os.open(reply, os.O_WRONLY)
    os.unlink(reply)
    msg = b"%d %d %d\n" % (rc, len(out), len(err)) + out + err
    while msg:
        msg = msg[os.write(fd, msg):]
    os.close(fd)
buf = b""
try:
    open(d + "/ready", "w").write(str(os.getpid()))
    while True:
        if not select.select([req], [], [], 1.0)[0]:
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                break
            if not os.path.isdir(d):
                break
            continue
        buf += os.read(req, 4096)
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                serve(os.fsdecode(line))
            except Exception:
                traceback.print_exc()
finally:
    shutil.rmtree(d, ignore_errors=True)
'
# _bf_py_up: the test's Python server is ready; started here if no one
# has started it (mkdir is the lock between subshells). False if it
# cannot run.
_bf_py_up() {
	local d=${TMPDIR:-/tmp}/blkfloor-py.$_bf_pid i pid
	_bf_py_dir=$d
	[ -e "$d/ready" ] && return 0
	[ "${BLKFLOOR_PY_SERVER:-1}" = 1 ] && [ -z "${_bf_py_broken:-}" ] || return 1
	if mkdir -m 700 "$d" 2>/dev/null; then
		if mkfifo "$d/req" 2>/dev/null; then
			# (not a job of the caller's shell: a test's plain
			# "wait" would wait for it)
			( python3 -I -c "$_BF_PY_SERVER" "$d" "$_bf_pid" \
				</dev/null >/dev/null 2>"$d/log" &
			  echo $! > "$d/pid" )
		else
			echo none > "$d/pid"
		fi
	fi
	# (until it is ready, for at most 30 s, while it runs; read -t, not
	# sleep, which a test may have replaced)
	{ [ -n "${_bf_snore:-}" ] || exec {_bf_snore}<> <(:); } 2>/dev/null
	for ((i = 0; i < 600; i++)); do
		[ -e "$d/ready" ] && return 0
		read -rt 0.05 -u "$_bf_snore" _ 2>/dev/null
		[ -e "$d/ready" ] || { read -r pid < "$d/pid"; } 2>/dev/null || continue
		kill -0 "${pid:-0}" 2>/dev/null || break
	done
	_bf_py_broken=1
	return 1
}
# _bf_py_call IN MODE CODE ARGS...: one call to the server, IN its stdin;
# sets _bf_py_rc, or returns 1 if the server is gone, and bf_py runs CODE
# with python3 instead. Nothing of the call was printed then, but a server
# that died during the call may have run part of CODE: what goes through
# bf_py must be safe to run twice (the tests' snippets read and compare).
_bf_py_call() {
	local d=$_bf_py_dir in=$1 q a rfd wfd h ol el out='' err='' pid
	_bf_py_n=$((${_bf_py_n:-0} + 1))
	q=$d/q.$BASHPID.$_bf_py_n a=$d/a.$BASHPID.$_bf_py_n
	printf '%s\0' "$a" "$PWD" "$2" "$3" $(($# - 3)) "${@:4}" > "$q" &&
		printf '%s' "$in" >> "$q" && mkfifo "$a" || return 1
	exec {rfd}<> "$a" {wfd}<> "$d/req"
	printf '%s\n' "$q" >&"$wfd"
	exec {wfd}>&-
	until IFS= read -r -t 1 -u "$rfd" h; do
		{ read -r pid < "$d/pid"; } 2>/dev/null
		if [ -n "$h" ] || ! kill -0 "${pid:-0}" 2>/dev/null; then
			exec {rfd}>&-
			rm -f "$a" "$q"
			_bf_py_broken=1
			return 1
		fi
	done
	read -r _bf_py_rc ol el <<< "$h"
	[ "$ol" -gt 0 ] && IFS= read -r -N "$ol" -u "$rfd" out
	[ "$el" -gt 0 ] && IFS= read -r -N "$el" -u "$rfd" err
	exec {rfd}>&-
	printf '%s' "$out"
	[ -z "$err" ] || printf '%s' "$err" >&2
	return 0
}
bf_py() {
	local in=
	if [ "$1" = --stdin ]; then
		shift
		IFS= read -r -d '' in || :
	elif [ "$1" = - ]; then
		# (the code from stdin, as python3 -: bf_py - ARGS <<'PY')
		shift
		IFS= read -r -d '' in || :
		set -- "$in" "$@"
		in=
	fi
	if _bf_py_up && _bf_py_call "$in" c "$@"; then
		return "$_bf_py_rc"
	fi
	if [ -n "$in" ]; then
		printf '%s' "$in" | python3 -I -S -c "$@"
	else
		python3 -I -S -c "$@" < /dev/null
	fi
}

# json_get FILE EXPR: evaluate a Python expression on the parsed JSON 'j'.
json_get() {
	bf_py "$BF_PY_JSON"'
j = load(sys.argv[1])
print(eval(sys.argv[2]))' "$1" "$2"
}

# host_wait CPU0 CPU1: how long QEMU's threads waited for a host CPU
# between two replies of the agent's cpu command, as "W s in T s" (T the
# host's time between them). A TCG guest has no steal clock: this is how a
# drive model test shows that the host, not the model, slowed the guest.
host_wait() {
	bf_py '
import sys
a, b = ({k: int(v) for k, v in (w.split("=") for w in x.split())}
        for x in sys.argv[1:3])
print("%.1f s in %.1f s" % ((b["wait_ns"] - a["wait_ns"]) / 1e9,
                             (b["host_ns"] - a["host_ns"]) / 1e9))' "$1" "$2"
}

# host_starved CPU0 CPU1: QEMU's threads waited for a host CPU for at least
# BLKFLOOR_STARVED (default 0.2) of the host's time between the two
# replies. Under TCG every wait is time the guest's clock runs while its
# devices and CPU do not: a drive model's flat 40 MB/s then reads as
# anything from 14 to 55 MB/s per interval (seen at load 15-25, with 3 to
# 5.4 s of waiting in 5 to 8.6 s), and the thermal model, whose heat
# follows the guest's clock, was called cache-exhaustion after 2.1 s of
# waiting in 8.7 s (24 %; 0.5-0.6 s in 8.1-8.2 s gave its class each time).
# Only such a measurement may be repeated; one taken on a host that let
# the guest run is final.
host_starved() {
	bf_py '
import sys
a, b = ({k: int(v) for k, v in (w.split("=") for w in x.split())}
        for x in sys.argv[1:3])
host = b["host_ns"] - a["host_ns"]
sys.exit(0 if host > 0 and
         b["wait_ns"] - a["wait_ns"] >= float(sys.argv[3]) * host else 1)' \
		"$1" "$2" "${BLKFLOOR_STARVED:-0.2}"
}

# host_mark; ...; host_was_starved: in the rig, whether the host starved
# the guest (host_starved) between the two calls, with how long QEMU's
# threads waited as a diagnostic. Outside the rig nothing starves a
# guest: always false, so a measurement there is never taken again.
host_mark() {
	_host_c0=
	in_rig && _host_c0=$(rig cpu)
	return 0
}
host_was_starved() {
	local c1
	[ -n "${_host_c0:-}" ] || return 1
	c1=$(rig cpu)
	diag "host: QEMU's threads waited $(host_wait "$_host_c0" "$c1") for a CPU"
	host_starved "$_host_c0" "$c1"
}

# host_quiet [SECS]: before measuring again after a starved measurement,
# wait until the host lets the guest run: 2 s windows of `rig cpu` until
# one in which QEMU's threads waited less than BLKFLOOR_STARVED of the
# host's time, for at most SECS (default 60). A neighbour guest's load
# comes and goes with its tests; measuring again at once mostly measures
# the same burst (seen beside a debug-kernel guest: three starved flat
# curves in a row, 10 to 13 s of waiting in 21 s each). Says how long it
# waited; returns 1 when the host stayed busy (the caller measures
# anyway, and the measurement's own starvation check still applies).
# Outside the rig there is nothing to wait for.
host_quiet() {
	local windows=$((${1:-60} / 2)) n=0 c0 c1
	in_rig || return 0
	while :; do
		c0=$(rig cpu)
		sleep 2
		c1=$(rig cpu)
		n=$((n + 1))
		if ! host_starved "$c0" "$c1"; then
			diag "host: quiet after $((2 * n)) s (QEMU's threads waited $(host_wait "$c0" "$c1"))"
			return 0
		fi
		if [ $n -ge $windows ]; then
			diag "host: still starving the guest after $((2 * n)) s (QEMU's threads waited $(host_wait "$c0" "$c1")); measuring anyway"
			return 1
		fi
	done
}

# measured NAME FN [ARGS...]: a measurement whose figures need the guest
# to get a CPU. FN measures and judges: it prints diagnostics as "# "
# lines and, when it fails, why on its last other line, and returns 0
# (right), 2 (the figures are off) or anything else (wrong whatever the
# host did). Figures off in a measurement the host let run fail at once;
# in one the host starved (host_was_starved) they are taken again once
# the host is quiet (host_quiet), three times at most, and three starved
# measurements fail too: the rig could not measure.
measured() {
	local name=$1 try out rc why
	shift
	for try in 1 2 3; do
		host_mark
		out=$("$@")
		rc=$?
		printf '%s\n' "$out" | grep '^#'
		[ $rc = 0 ] && return 0
		why=$(printf '%s\n' "$out" | grep -v '^#' | tail -1)
		[ $rc = 2 ] || fail "$name: ${why:-$1 exited $rc}"
		host_was_starved || fail "$name: $why"
		diag "$name: attempt $try: $why, but the host starved the guest; again"
		[ "$try" = 3 ] || host_quiet || :
	done
	fail "$name: the host starved the guest in all three measurements; last: $why"
}

# sustain_classify DEV NAME [sustain options...]: a sustain run on DEV over
# the whole --size (--until full unless the options say otherwise) with
# a trace in $TMPDIR, then its classification as JSON in $TMPDIR/NAME.json.
# Prints the class, peak, floor and cache size as diagnostics, and (in the
# rig) how long the host kept QEMU's threads waiting for a CPU meanwhile;
# SUSTAIN_STARVED is 1 when that was long enough to void the measurement
# (host_starved), else 0.
sustain_classify() {
	local dev=$1 name=$2 out c0= c1
	shift 2
	out=$(mktemp -d)/$name
	on_exit "rm -rf $(dirname "$out")"
	SUSTAIN_STARVED=0
	in_rig && c0=$(rig cpu)
	"$BLKFLOOR" sustain "$dev" --yes-destroy-data --interval 200ms \
		--until full --quiet --trace "$out.csv" "$@" > "$out.txt" 2>&1 ||
		{ sed 's/^/# /' "$out.txt"; fail "sustain $dev failed"; }
	if [ -n "$c0" ]; then
		c1=$(rig cpu)
		diag "$name: host: QEMU's threads waited $(host_wait "$c0" "$c1") for a CPU"
		! host_starved "$c0" "$c1" || SUSTAIN_STARVED=1
	fi
	"$BLKFLOOR" classify "$out.csv" --json > "$out.json" ||
		fail "classify $out.csv failed"
	diag "$name: $(json_get "$out.json" \
		'"%s peak %.1f floor %.1f MB/s cache %s" % (j["class"], j["peak_MBps"], j["floor_MBps"], j["cache_bytes"])')"
	diag "$name MB/s: $(grep -v '^#' "$out.csv" | tail -n +2 | cut -d, -f7 |
		awk '{ printf "%.0f ", $1 }')"
	SUSTAIN_JSON=$out.json
}

# sustain_expect DEV NAME CLASS [--setup CMD] [--check FN] -- [sustain
# options...]: a sustain run on DEV (sustain_classify) must be classified
# CLASS and, with --check, pass "FN JSON" (a function that prints why and
# returns non-zero when the figures are off). CMD (evaluated before every
# measurement) puts the drive in its starting state, e.g. a fresh model.
# A wrong answer from a measurement the host let run fails at once; one
# the host starved (host_starved) is measured again once the host is quiet
# (host_quiet), three times at most, and three starved measurements fail
# too: the rig could not measure.
sustain_expect() {
	local dev=$1 name=$2 want=$3 setup= check= try got why out
	shift 3
	while [ "$1" != -- ]; do
		case $1 in
		--setup) setup=$2 ;;
		--check) check=$2 ;;
		*) fail "sustain_expect: unknown option $1" ;;
		esac
		shift 2
	done
	shift
	for try in 1 2 3; do
		[ -z "$setup" ] || eval "$setup" > /dev/null
		sustain_classify "$dev" "$name" "$@"
		got=$(json_get "$SUSTAIN_JSON" 'j["class"]')
		why=
		[ "$got" = "$want" ] || why="classified as $got, expected $want"
		if [ -z "$why" ] && [ -n "$check" ]; then
			if out=$("$check" "$SUSTAIN_JSON" 2>&1); then
				[ -z "$out" ] || printf '%s\n' "$out"
			else
				printf '%s\n' "$out" | grep '^#'
				why=$(printf '%s\n' "$out" | grep -v '^#' | tail -1)
				why=${why:-"$check failed"}
			fi
		fi
		[ -n "$why" ] || return 0
		[ "$SUSTAIN_STARVED" = 1 ] || fail "$name: $why"
		diag "$name: attempt $try: $why, but the host starved the guest; again"
		[ "$try" = 3 ] || host_quiet || :
	done
	fail "$name: the host starved the guest in all three measurements; last: $why"
}

# expect_class JSON CLASS: the classification in JSON is CLASS.
expect_class() {
	local got
	got=$(json_get "$1" 'j["class"]')
	[ "$got" = "$2" ] || fail "classified as $got, expected $2"
}
