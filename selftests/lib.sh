# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for blkfloor's guest selftests (sourced by every test).
#
# A test is an executable file selftests/tests/GROUP/NNN. Its first comment
# line after the SPDX line is its description. It prints diagnostics as
# "# ..." lines and exits 0 (pass), 4 (skip, reason in the last "# SKIP"
# line) or anything else (fail). Tests run as root inside the guest
# (selftests/vm/run-vm.sh); they never touch host devices.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

BLKFLOOR_TOP=${BLKFLOOR_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BLKFLOOR=${BLKFLOOR:-$BLKFLOOR_TOP/user/blkfloor}
_cleanups=()

diag() { printf '# %s\n' "$*"; }
fail() { diag "FAIL: $*"; exit $KSFT_FAIL; }
skip() { diag "SKIP: $*"; exit $KSFT_SKIP; }

# Run cleanup functions in reverse order of registration, at any exit.
on_exit() { _cleanups=("$1" "${_cleanups[@]}"); }
_run_cleanups() {
	local rc=$? c
	for c in "${_cleanups[@]}"; do eval "$c" >/dev/null 2>&1; done
	exit $rc
}
trap _run_cleanups EXIT

require_guest() {
	[ -n "${BLKFLOOR_VM_DIR:-}" ] || skip "not inside the blkfloor test guest"
}

# debug_kernel: true on a kernel built for make check-debug (KASAN,
# lockdep, kmemleak), where every I/O costs the kthread a lot more CPU:
# tests that check the engine's speed report instead of asserting there.
debug_kernel() {
	case $(uname -r) in *-blkfloor-debug) return 0 ;; esac
	return 1
}

# require_fast_kernel: skip on the debug kernel a test whose verdict
# depends on the guest keeping up with a rate (the drive models run at up
# to 160 MB/s; under KASAN and lockdep the guest manages about half).
require_fast_kernel() {
	debug_kernel && skip "the debug kernel cannot keep up with the drive model's rates"
	return 0
}

require_cmd() {
	command -v "$1" >/dev/null || skip "$1 is not installed"
}

# Load blkfloor (installed into the guest by run-vm.sh) if it is not.
load_blkfloor() {
	if [ ! -d /sys/module/blkfloor ]; then
		modprobe blkfloor || fail "modprobe blkfloor failed"
		on_exit "modprobe -r blkfloor"
	fi
}

# Kernel log watermark: check_dmesg fails the test on a splat since mark.
dmesg_mark() { _dmesg_lines=$(dmesg | wc -l); }
check_dmesg() {
	local bad
	bad=$(dmesg | tail -n +$((${_dmesg_lines:-0} + 1)) |
	      grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|list_(add|del) corruption|refcount_t|UBSAN|KASAN|hung_task|soft lockup|INFO: task' )
	if [ -n "$bad" ]; then
		diag "kernel log:"; printf '%s\n' "$bad" | sed 's/^/#   /'
		fail "kernel splat in dmesg"
	fi
}

# null_blk through configfs, as blktests' _configure_null_blk does:
# nullb_create NAME key=value... makes /dev/NAME, removed at exit. Call it
# directly (not in $(...)): it registers its cleanup in this shell.
nullb_create() {
	local name=$1 kv; shift
	if [ ! -d /sys/kernel/config/nullb ]; then
		modprobe null_blk nr_devices=0 || skip "null_blk is not available"
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
	local i
	for i in $(seq 50); do [ -b "$1" ] && return 0; sleep 0.1; done
	fail "$1 did not appear"
}
nullb_destroy() {
	echo 0 > "/sys/kernel/config/nullb/$1/power"
	rmdir "/sys/kernel/config/nullb/$1"
}

# rig_disk usb|uas [N]: /dev/sdX of the Nth emulated disk of that transport
# (by USB port order), or nothing.
rig_disk() {
	local want=$1 n=${2:-0} d p intf drv i=0 list=()
	for d in /sys/block/sd*; do
		[ -e "$d" ] || continue
		# .../2-1/2-1:1.0/host6/target6:0:0/6:0:0:0: the interface's
		# driver is usb-storage or uas; the port orders the disks.
		p=$(readlink -f "$d/device")
		intf=${p%/host*}
		drv=$(basename "$(readlink -f "$intf/driver")")
		case $want in
		usb) [ "$drv" = usb-storage ] || continue ;;
		uas) [ "$drv" = uas ] || continue ;;
		*) fail "rig_disk: unknown transport $want" ;;
		esac
		list+=("$(basename "$(dirname "$intf")") ${d##*/}")
	done
	for d in $(printf '%s\n' "${list[@]}" | sort -V | awk '{print $2}'); do
		[ $i -eq "$n" ] && { echo "/dev/$d"; return; }
		i=$((i + 1))
	done
}

require_rig_disk() {
	local d
	d=$(rig_disk "$@")
	[ -n "$d" ] || skip "no emulated $1 disk in this guest"
	echo "$d"
}

# rig CMD...: one request to the host agent (selftests/vm/rigctl.py); prints
# the reply after "ok", fails the test on "err" or no reply. The request is
# tagged so that a reply left on the port by an earlier client that died is
# never taken for this one's. (Bash, not rigctl.py --client: python starts
# slowly in a TCG guest over 9p.)
rig() {
	local t="@$$-$RANDOM$RANDOM" tag st rest
	[ -n "${BLKFLOOR_RIG:-}" ] || skip "no host agent port"
	exec 9<>"$BLKFLOOR_RIG" || fail "rig: cannot open $BLKFLOOR_RIG"
	printf '%s %s\n' "$t" "$*" >&9
	while read -r -t 20 tag st rest <&9; do
		[ "$tag" = "$t" ] && break
	done
	exec 9>&-
	[ "$tag" = "$t" ] || fail "rig $*: no reply"
	[ "$st" = ok ] || fail "rig $*: $st $rest"
	printf '%s\n' "$rest"
}

# json_get FILE EXPR: evaluate a Python expression on the parsed JSON 'j'.
json_get() {
	python3 -S -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# sustain_classify DEV NAME [sustain options...]: a sustain run on DEV with
# a trace in $TMPDIR, then its classification as JSON in $TMPDIR/NAME.json.
# Prints the class, peak, floor and cache size as diagnostics.
sustain_classify() {
	local dev=$1 name=$2 out
	shift 2
	out=$(mktemp -d)/$name
	on_exit "rm -rf $(dirname "$out")"
	"$BLKFLOOR" sustain "$dev" --yes-destroy-data --interval 200ms \
		--quiet --trace "$out.csv" "$@" > "$out.txt" 2>&1 ||
		{ sed 's/^/# /' "$out.txt"; fail "sustain $dev failed"; }
	"$BLKFLOOR" classify "$out.csv" --json > "$out.json" ||
		fail "classify $out.csv failed"
	diag "$name: $(json_get "$out.json" \
		'"%s peak %.1f floor %.1f MB/s cache %s" % (j["class"], j["peak_MBps"], j["floor_MBps"], j["cache_bytes"])')"
	diag "$name MB/s: $(grep -v '^#' "$out.csv" | tail -n +2 | cut -d, -f7 |
		awk '{ printf "%.0f ", $1 }')"
	SUSTAIN_JSON=$out.json
}

# expect_class JSON CLASS: the classification in JSON is CLASS.
expect_class() {
	local got
	got=$(json_get "$1" 'j["class"]')
	[ "$got" = "$2" ] || fail "classified as $got, expected $2"
}
