#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-harness.sh: the test harness never reports green by accident, as one
# KTAP suite. make check's own counting (scripts/ktap-count.py) and the
# guest runner (selftests/run-guest.sh) are fed what a broken run looks
# like, and each must come out as a failure:
#   - a suite that stops half way (fewer results than its plan), a suite
#     with no plan, a failed case nested in a passing test, and nested
#     skips counted as skips;
#   - a test pattern that selects no test;
#   - a drive-model measurement (sustain_expect in selftests/lib.sh) with
#     a wrong class: measured again only when the host starved the guest
#     (after waiting up to 60 s for a quiet host), a failure at once
#     otherwise, and after three starved tries;
#   - a broken rig (QEMU guest with no host-agent port and one disk fewer
#     than it was told to expect: run-vm.sh's BLKFLOOR_RIG_BREAK): the rig
#     check and a test that needs both disks fail, a test that needs the
#     agent fails, and the whole run exits non-zero. HARNESS_KVER picks
#     the kernel (default: the newest installed); "none" leaves this out;
#   - a test that hangs: it fails, and the log says where it was blocked
#     (run-guest.sh prints its tasks' kernel stacks before killing it);
#     the kernel's KTAP parser (kunit_parser.py) reads that run's log
#     without an error, and rejects a nested block whose "# Subtest:"
#     comes before its "KTAP version 1";
#   - json_get, which the tests read the CLI's JSON with, reads it as
#     Python's json module does, and fails on malformed text;
#   - lib.sh's stand-ins for programs (sleep, nlop_key, _bf_realdir) do
#     what the programs do, with no program reachable;
#   - bf_py, the test's Python server that json_get, run_on and bf_ynl
#     go through: what python3 -c prints and returns, the same with the
#     server off, callers in subshells side by side, and the server gone
#     with the test's shell;
#   - a mostly-skipped rig run is red: in a (fake) rig, tests whose
#     null_blk or command is missing fail instead of skipping, the same
#     tests skip outside the rig, and a plain skip that
#     selftests/skips-allowed does not list fails scripts/skip-check.py;
#   - a guest whose kernel panics: the run fails with the panic in the
#     log, at once (not at the guest's timeout), and the command ran with
#     panic_on_warn set;
#   - a guest that crashes while booting, before the command: booted once
#     more, and the log says so; the same for one that hangs while booting
#     (no command started by BLKFLOOR_BOOT_TIMEOUT);
#   - a QEMU wedged at the run's timeout (its main loop cancelling a UAS
#     command that a 1 B/s throttle holds): killed 10 s after SIGTERM;
#     and when run-vm.sh itself gets SIGTERM twice (pkill run twice);
#   - two guests of one kernel started at once with nothing built yet:
#     both boot and run their command.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kver=${HARNESS_KVER:-$(ls -d /lib/modules/*/build 2>/dev/null | awk -F/ '{ print $4 }' | sort -V | tail -1)}

echo "KTAP version 1"
echo "1..20"
n=0 rc=0
result() { # status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# counts LOG: "passed failed skipped" as make check counts them
counts() { python3 scripts/ktap-count.py "$1" t | sed -n 1p; }

printf 'TAP version 13\n1..3\nok 1 a\nok 2 b\n' > "$tmp/short"
printf 'TAP version 13\nok 1 a\n' > "$tmp/noplan"
[ "$(counts "$tmp/short")" = "2 1 0" ] && [ "$(counts "$tmp/noplan")" = "1 1 0" ]
result $? "a suite with fewer results than its plan, or no plan, counts as failed"

printf 'TAP version 13\n1..2\n  1..3\n  ok 1 x\n  ok 2 y # SKIP why\n  not ok 3 z\nok 1 nested\nok 2 b # SKIP q\n' > "$tmp/nested"
printf 'TAP version 13\n1..1\n  1..2\n  ok 1 x\nok 1 nested\n' > "$tmp/nestshort"
[ "$(counts "$tmp/nested")" = "1 1 2" ] && [ "$(counts "$tmp/nestshort")" = "1 1 0" ]
result $? "nested results are counted (a pass, a skip, a failure under a passing parent) and their plan checked"

out=$(selftests/run-guest.sh 'no-such-group/*' 2>&1)
st=$?
diag "$out"
printf '%s\n' "$out" > "$tmp/nomatch"
[ $st != 0 ] && [ "$(counts "$tmp/nomatch")" = "0 1 0" ]
result $? "a test pattern that selects no test fails the run"

# sustain_expect against a fake CLI and a fake agent with a fake host
# clock ($tmp/clock: host ms and ms QEMU's threads waited). Each
# measurement takes 1000 ms of host time; its class and wait are read, one
# line per attempt, from $tmp/plan ("CLASS WAIT_MS"). host_quiet's 2 s
# windows (a fake sleep) wait the ms read one per window from
# $tmp/quiet, 0 once it runs out.
cat > "$tmp/fakecli" <<'EOF_CLI'
#!/bin/bash
case $1 in
sustain)
	echo x >> "$PLAN_DIR/tries"
	n=$(wc -l < "$PLAN_DIR/tries")
	w=$(sed -n "${n}p" "$PLAN_DIR/plan" | cut -d' ' -f2)
	read -r h hw < "$PLAN_DIR/clock"
	echo "$((h + 1000)) $((hw + w))" > "$PLAN_DIR/clock"
	while [ $# -gt 0 ]; do [ "$1" = --trace ] && echo "# t" > "$2"; shift; done ;;
classify)
	n=$(wc -l < "$PLAN_DIR/tries")
	cls=$(sed -n "${n}p" "$PLAN_DIR/plan" | cut -d' ' -f1)
	printf '{"class": "%s", "peak_MBps": 1, "floor_MBps": 1, "cache_bytes": 0}\n' "$cls" ;;
esac
EOF_CLI
chmod +x "$tmp/fakecli"
# expect_run QUIET PLAN...: prints "STATUS ATTEMPTS WINDOWS" of a model
# test that wants "steady" given that plan, QUIET the windows' waits
# (space-separated, "-" for none), WINDOWS how many host_quiet waited.
expect_run() {
	printf '%s\n' $1 | grep -v '^-$' > "$tmp/quiet"
	shift
	printf '%s\n' "$@" > "$tmp/plan"
	: > "$tmp/tries"
	: > "$tmp/slept"
	echo "0 0" > "$tmp/clock"
	# lib.sh reads a test's arguments (NAME=VALUE): source it with none.
	( export BLKFLOOR=$tmp/fakecli BLKFLOOR_VM_DIR=$tmp PLAN_DIR=$tmp
	  set --
	  . selftests/lib.sh
	  rig() {
		[ "$1" = cpu ] || return 0
		local h w
		read -r h w < "$tmp/clock"
		echo "host_ns=$((h * 1000000)) wait_ns=$((w * 1000000))"
	  }
	  sleep() {
		local h w q
		echo x >> "$tmp/slept"
		q=$(sed -n "$(wc -l < "$tmp/slept")p" "$tmp/quiet")
		read -r h w < "$tmp/clock"
		echo "$((h + $1 * 1000)) $((w + ${q:-0}))" > "$tmp/clock"
	  }
	  sustain_expect /dev/null t steady -- --size 1MB ) > "$tmp/se.out" 2>&1
	echo "$? $(wc -l < "$tmp/tries") $(wc -l < "$tmp/slept")"
}
r1=$(expect_run - "steady 0")
r2=$(expect_run - "thermal-throttling 100")
r3=$(expect_run "1500 1800 100" "thermal-throttling 600" "steady 10")
grep -q 'host: quiet after 6 s' "$tmp/se.out"; q3=$?
r4=$(expect_run - "unclear 600" "unclear 500" "unclear 900")
grep -q 'starved the guest in all three' "$tmp/se.out"; q4=$?
r5=$(expect_run "$(printf '1900 %.0s' $(seq 40))" "unclear 600" "steady 0")
grep -q 'still starving the guest after 60 s' "$tmp/se.out"; q5=$?
diag "sustain_expect (status, attempts, quiet windows): pass at once: $r1; wrong, host idle: $r2; wrong, starved, quiet after 3 windows, then right: $r3; starved thrice: $r4; host busy 60 s, then right: $r5"
[ "$r1" = "0 1 0" ] && [ "$r2" = "1 1 0" ] && [ "$r3" = "0 2 3" ] && [ $q3 = 0 ] &&
	[ "$r4" = "1 3 2" ] && [ $q4 = 0 ] && [ "$r5" = "0 2 30" ] && [ $q5 = 0 ]
result $? "a drive-model measurement is repeated only when the host starved the guest, once the host is quiet or after 60 s"
# A hanging test, run by a copy of run-guest.sh (its tests are next to it),
# out of /tmp (on a shared host, something there may clean up under us).
mkdir -p build
suite=$(mktemp -d "$PWD/build/harness.XXXXXX")
trap 'rm -rf "$tmp" "$suite"' EXIT
mkdir -p "$suite/tests/x"
cp selftests/run-guest.sh "$suite/"
printf '#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0\n# hangs\necho started\nsleep 600\n' \
	> "$suite/tests/x/001"
printf '#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0\n# passes\nexit 0\n' \
	> "$suite/tests/x/002"
chmod +x "$suite/tests/x/"*
start=$SECONDS
out=$(TMPDIR=$suite "$suite/run-guest.sh" -t 5 'x/*' 2>&1)
st=$?
diag "$out"
printf '%s\n' "$out" > "$tmp/hang"
[ $st != 0 ] && [ $((SECONDS - start)) -lt 60 ] &&
	[ "$(counts "$tmp/hang")" = "1 1 0" ] &&
	grep -q '^# timed out after 5s; then:' "$tmp/hang" &&
	grep -qE '^#   task [0-9]+ \(.*\) state [A-Z], waiting in ' "$tmp/hang" &&
	grep -qE '^#   blkfloor: ' "$tmp/hang"
result $? "a test that hangs fails, with its tasks' kernel stacks in the log, and the suite goes on"

printf 'KTAP version 1\n1..2\nok 1 a\nok 2 b # XFAIL known miss\n' > "$tmp/xfail"
out=$(python3 scripts/ktap-parse-check.py "$tmp/hang" "$tmp/xfail" 2>&1)
st=$?
printf 'KTAP version 1\n1..1\n  # Subtest: x/001\n  KTAP version 1\n  1..1\n  ok 1 a\nok 1 x/001 the description (3s)\n' > "$tmp/oldktap"
out2=$(python3 scripts/ktap-parse-check.py "$tmp/oldktap" 2>&1)
st2=$?
diag "$out" "$out2"
[ $st = 0 ] && [ $st2 != 0 ] && printf '%s\n' "$out2" | grep -q 'CRASHED'
result $? "kunit_parser.py reads run-guest.sh's log (a timeout included) and an XFAIL cleanly and rejects a nested block that names itself before its KTAP version line"

# A rig run where most of what the rig should have is missing: a fake rig
# (BLKFLOOR_VM_DIR set, no agent), modprobe that finds nothing, tests from
# lib.sh's helpers.
mkdir -p "$suite/tests/y" "$suite/bin"
cp selftests/lib.sh "$suite/"
printf '#!/bin/sh\nexit 1\n' > "$suite/bin/modprobe"
for t in "001 nullb_create nb0 size=1" "002 require_cmd no-such-command-here" \
	 "003 require_rig_disk uas" "004 skip \"some reason nobody listed\""; do
	printf '#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0\n# %s\n. "$(dirname "$0")/../../lib.sh"\n%s\n' \
		"${t#* }" "${t#* }" > "$suite/tests/y/${t%% *}"
done
printf '#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0\n# passes\nexit 0\n' > "$suite/tests/y/005"
chmod +x "$suite/bin/modprobe" "$suite/tests/y/"*
PATH=$suite/bin:$PATH BLKFLOOR_VM_DIR=$suite BLKFLOOR_RIG= TMPDIR=$suite \
	"$suite/run-guest.sh" -t 30 'y/*' > "$tmp/skiprig" 2>&1
st=$?
env -u BLKFLOOR_VM_DIR PATH="$suite/bin:$PATH" TMPDIR=$suite \
	"$suite/run-guest.sh" -t 30 'y/*' > "$tmp/skipout" 2>&1
diag "$(cat "$tmp/skiprig")" "$(cat "$tmp/skipout")"
out=$(python3 scripts/skip-check.py selftests/skips-allowed \
	"$(uname -r):$tmp/skiprig" 2>&1)
st2=$?
diag "$out"
[ $st != 0 ] && grep -qx 'not ok 2 y/001' "$tmp/skiprig" &&
	grep -qx 'not ok 3 y/002' "$tmp/skiprig" && grep -qx 'not ok 4 y/003' "$tmp/skiprig" &&
	grep -q '^ok 1 y/001 # SKIP null_blk is not available' "$tmp/skipout" &&
	grep -q '^ok 2 y/002 # SKIP no-such-command-here is not installed' "$tmp/skipout"
result $? "in the rig a missing null_blk, command or disk fails the test; outside the rig it skips"
[ $st2 != 0 ] && printf '%s\n' "$out" | grep -q 'y/004 skipped, not allowed'
result $? "a skip that selftests/skips-allowed does not list fails make check (scripts/skip-check.py)"

# json_get (lib.sh) parses without the json module: the same values as
# json.load on what the CLI prints, and an error, not a value, on text
# that is not one JSON document.
jbad=0
printf '%s' '{"a": [1, -2.5e3, "x\u00e9\n", null, true, false, NaN, -Infinity],
 "b": {"c": {}, "d": [], "e": 18446744073709551615}}  ' > "$tmp/j.json"
printf '%s' '{"a": 1} {"a": 2}' > "$tmp/j2.json"
printf '%s' '{"a": [1, 2' > "$tmp/j3.json"
: > "$tmp/j4.json"
printf '%s' '[1,]' > "$tmp/j5.json"
user/blkfloor classify user/tests/eval-blind/e001.trace --json > "$tmp/jc.json" ||
	{ diag "blkfloor classify --json failed"; jbad=1; }
for f in "$tmp/j.json" "$tmp/jc.json"; do
	a=$(bash -c 'f=$1; set --; . selftests/lib.sh; json_get "$f" j' _ "$f" 2>&1)
	b=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])))' "$f")
	[ "$a" = "$b" ] || { diag "json_get $f: $a" "json.load: $b"; jbad=1; }
done
for f in j2 j3 j4 j5; do
	a=$(bash -c 'f=$1; set --; . selftests/lib.sh; json_get "$f" j' _ "$tmp/$f.json" 2>&1) &&
		{ diag "json_get read $(cat "$tmp/$f.json") as $a"; jbad=1; }
	diag "$f.json: $a"
done
result $jbad "json_get reads JSON as json.load does, and fails on text that is not one JSON document"

# lib.sh's builtin stand-ins for programs (a program started costs a TCG
# guest 30 to 120 ms of CPU): with no program reachable, sleep waits as
# long as asked, nlop_key reads what sed -n 's/^KEY=//p' reads, and
# _bf_realdir resolves what readlink -f resolves; sleep with anything
# but a number is sleep(1)'s.
hbad=0
# (PATH back before lib.sh's exit check, which runs dmesg and grep)
out=$(bash -c 'set --; . selftests/lib.sh; p=$PATH PATH=/nonexistent
	s=$EPOCHREALTIME; sleep 0.3; r=$?; e=$EPOCHREALTIME
	sleep 1m 2>/dev/null; f=$?; PATH=$p
	echo "$r $(( ${e/./} - ${s/./} )) fallback $f"' 2>&1)
diag "sleep 0.3 with no program reachable: status, microseconds: $(echo $out)"
read -r st us _ fb <<< "$(echo $out)"
[ "$st" = 0 ] && [ "${us:-0}" -ge 300000 ] && [ "$fb" = 127 ] || hbad=1
txt=$'id=3\nresult=0\nmsg=a=b c\nresult=-16\nresultx=9\n=\nid='
for k in id result msg resultx nope; do
	a=$(bash -c 't=$1; set --; . selftests/lib.sh; p=$PATH PATH=/nonexistent
		v=$(nlop_key "$0" "$t"); PATH=$p; echo "$v"' "$k" "$txt" 2>&1)
	b=$(printf '%s\n' "$txt" | sed -n "s/^$k=//p")
	[ "$a" = "$b" ] || { diag "nlop_key $k: '$a', sed: '$b'"; hbad=1; }
done
for d in /sys/block/*/device /sys/class/net/lo /dev /nonexistent; do
	a=$(bash -c 'set --; . selftests/lib.sh; p=$PATH PATH=/nonexistent
		v=$(_bf_realdir "$0"); PATH=$p; echo "$v"' "$d" 2>&1)
	b=$(readlink -f "$d")
	[ -d "$d" ] || b=
	[ "$a" = "$b" ] || { diag "_bf_realdir $d: '$a', readlink -f: '$b'"; hbad=1; }
done
result $hbad "lib.sh's sleep, nlop_key and _bf_realdir do what sleep, sed and readlink -f do, with no program started"

# bf_py (lib.sh), the test's Python server that json_get, run_on and
# bf_ynl go through: what python3 -I -S -c prints and returns, the same
# with the server off (BLKFLOOR_PY_SERVER=0: python3 started each time);
# callers in subshells side by side; the server gone once the test's
# shell has ended.
pbad=0
mkdir -p "$tmp/py"
# shellcheck disable=SC2016
prog='d=$1; set --; . selftests/lib.sh; cd "$d"
echo "shell $$"
bf_py "import os, sys; print(os.getcwd(), sys.argv[1:]); print(\"to stderr\", file=sys.stderr)" a "b c"; echo "rc=$?"
bf_py "import sys; sys.exit(\"a message\")"; echo "rc=$?"
bf_py "import sys; sys.exit(7)"; echo "rc=$?"
bf_py "{}[1]"; echo "rc=$?"
printf "x\ny\n" | bf_py --stdin "import sys; print(repr(sys.stdin.read()))"; echo "rc=$?"
bf_py "import sys; print(repr(sys.stdin.read()))" <<< "not passed"; echo "rc=$?"
x=$(bf_py "print(\"two lines\\n\")"); echo "[$x]"
for i in 1 2 3 4 5 6; do ( bf_py "import sys; print(sys.argv[1])" $i > "$d/c.$i" ) & done; wait
cat "$d"/c.* | paste -sd " "
[ -e "${TMPDIR:-/tmp}/blkfloor-py.$$/ready" ] && echo server || echo "no server"'
bash -c "$prog" _ "$tmp/py" > "$tmp/py.srv" 2> "$tmp/py.srv.err"
BLKFLOOR_PY_SERVER=0 bash -c "$prog" _ "$tmp/py" > "$tmp/py.dir" 2> "$tmp/py.dir.err"
sh=$(sed -n 's/^shell //p' "$tmp/py.srv")
for _ in $(seq 30); do [ -e "${TMPDIR:-/tmp}/blkfloor-py.$sh" ] || break; sleep 0.1; done
diag "with the server:" "$(cat "$tmp/py.srv" "$tmp/py.srv.err")" \
	"python3 each time:" "$(cat "$tmp/py.dir" "$tmp/py.dir.err")"
[ "$(sed '/^shell /d; $d' "$tmp/py.srv")" = "$(sed '/^shell /d; $d' "$tmp/py.dir")" ] &&
	cmp -s "$tmp/py.srv.err" "$tmp/py.dir.err" &&
	[ "$(tail -1 "$tmp/py.srv")" = server ] && [ "$(tail -1 "$tmp/py.dir")" = "no server" ] &&
	grep -qx "$tmp/py \['a', 'b c'\]" "$tmp/py.srv" && grep -qx 'rc=7' "$tmp/py.srv" &&
	grep -qx "'x.ny.n'" <(tr '\\' . < "$tmp/py.srv") && grep -qx '1 2 3 4 5 6' "$tmp/py.srv" &&
	grep -qx 'a message' "$tmp/py.srv.err" && grep -qx 'KeyError: 1' "$tmp/py.srv.err" &&
	[ ! -e "${TMPDIR:-/tmp}/blkfloor-py.$sh" ] || pbad=1
result $pbad "bf_py in the test's Python server prints and returns what python3 -c does, side by side from subshells, and ends with the test"

boots=("broken rig: the rig check fails (no agent port, 1 of 2 disks)"
       "broken rig: a test needing the missing disk and one needing the agent fail (not skip)"
       "broken rig: the run exits non-zero and counts 3 failures"
       "a guest kernel panic fails the run at once, the panic in the log; panic_on_warn was set"
       "a guest that crashes while booting, before the command, is booted once more and says so"
       "a guest that hangs while booting, before the command, is booted once more and says so"
       "a QEMU that ignores SIGTERM at the run's timeout is killed 10 s later (exit 124)"
       "run-vm.sh sent SIGTERM twice still kills a QEMU that ignores SIGTERM"
       "two guests of one kernel started at once, nothing built yet: both boot and run their command")
# The guest boots below test the rig (run-vm.sh, guest-init, rigctl.py,
# run-guest.sh, lib.sh's rig checks) on this kernel, QEMU and busybox,
# nothing else: they run only when one of those changed since they last
# all passed (HARNESS_FORCE=1 runs them anyway). The hash of what they
# passed on is kept in scripts/harness-rig.pass, which is committed: a
# clean clone (CI) boots them only when the rig, or a package under it,
# is not the one they last passed on. The hash is of the files' contents
# and the packages' versions; a stamp that names another rig is ignored.
pkgs=$(dpkg-query -W -f '${Package} ${Version}\n' qemu-system-x86 \
	busybox-static "linux-image-$kver" 2>/dev/null)
righash=$( { echo "$kver"; echo "$pkgs"; cat selftests/vm/* selftests/run-guest.sh selftests/lib.sh \
	selftests/tests/cli/005 selftests/tests/model/004 "$0"; } 2>/dev/null | sha256sum | cut -c1-16)
stamp=scripts/harness-rig.pass
if [ "$kver" != none ] && [ -z "${HARNESS_FORCE:-}" ] &&
   [ "$(cat "$stamp" 2>/dev/null)" = "$righash" ]; then
	why="rig unchanged since these passed (rig hash $righash, $stamp)"
	for d in "${boots[@]}"; do
		n=$((n + 1))
		echo "ok $n $d # SKIP $why"
	done
	exit $rc
fi
if [ "$kver" = none ] || [ ! -f "build/$kver/blkfloor.ko" ]; then
	for d in "${boots[@]}"; do
		n=$((n + 1))
		echo "ok $n $d # SKIP no module built for ${kver:-any kernel}"
	done
	exit $rc
fi
BLKFLOOR_RIG_BREAK=agent,disk selftests/vm/run-vm.sh --kver "$kver" \
	--timeout 600 --uas 64M -- selftests/run-guest.sh -t 120 cli/005 model/004 \
	> "$tmp/broken" 2>&1
st=$?
diag "$(cat "$tmp/broken")"
grep -qx 'not ok 1 rig' "$tmp/broken" &&
	grep -q '^# rig fault: .*no host agent port' "$tmp/broken" &&
	grep -q '^# rig fault: .*1 of 2 disks' "$tmp/broken"
st0=$?
diag "broken rig on $kver"
result $st0 "${boots[0]}"
grep -qE '^not ok [0-9]+ cli/005$' "$tmp/broken" &&
	grep -qE '^not ok [0-9]+ model/004$' "$tmp/broken" &&
	grep -q 'rig fault: no emulated usb disk' "$tmp/broken" &&
	grep -q 'rig fault: no host agent port' "$tmp/broken"
result $? "${boots[1]}"
[ $st != 0 ] && [ "$(counts "$tmp/broken" | awk '{ print $2 }')" -ge 3 ]
st0=$?
diag "broken rig: exit $st"
result $st0 "${boots[2]}"

# sysrq c: a NULL dereference in the kernel, an oops, a panic (oops=panic).
start=$SECONDS
# shellcheck disable=SC2016
selftests/vm/run-vm.sh --kver "$kver" --timeout 600 -- \
	'echo "panic_on_warn=$(cat /proc/sys/kernel/panic_on_warn)"; echo c > /proc/sysrq-trigger; sleep 600' \
	> "$tmp/panic" 2>&1
st=$?
diag "$(cat "$tmp/panic")"
[ $st = 125 ] && [ $((SECONDS - start)) -lt 500 ] &&
	grep -qx 'panic_on_warn=1' "$tmp/panic" &&
	grep -q 'Kernel panic' "$tmp/panic" && grep -q 'sysrq' "$tmp/panic" &&
	grep -q '^run-vm: the guest kernel panicked' "$tmp/panic"
st0=$?
diag "panic: exit $st after $((SECONDS - start)) s"
result $st0 "${boots[3]}"

# A first boot that panics before the command (no init): booted again,
# said so, and the command runs; the panic above (after the command
# started) was not.
BLKFLOOR_RIG_BREAK=boot selftests/vm/run-vm.sh --kver "$kver" --timeout 600 -- \
	'echo command-ran' > "$tmp/boot" 2>&1
st=$?
diag "$(cat "$tmp/boot")"
[ $st = 0 ] && grep -q '^command-ran' "$tmp/boot" &&
	grep -q '^run-vm: the guest .* crashed while booting, before the command started; booting again' "$tmp/boot" &&
	grep -q 'Kernel panic' "$tmp/boot" &&
	! grep -q 'booting again' "$tmp/panic"
st0=$?
diag "crash while booting: exit $st"
result $st0 "${boots[4]}"

# A first boot that hangs silently (waiting for ever for its root device;
# seen once on the debug kernel under load: nothing after the firmware for
# 600 s): booted again at the boot deadline, not left to the run's timeout.
start=$SECONDS
BLKFLOOR_RIG_BREAK=boothang BLKFLOOR_BOOT_TIMEOUT=60 \
	selftests/vm/run-vm.sh --kver "$kver" --timeout 600 -- \
	'echo command-ran' > "$tmp/boothang" 2>&1
st=$?
diag "$(cat "$tmp/boothang")"
[ $st = 0 ] && grep -q '^command-ran' "$tmp/boothang" &&
	grep -q '^run-vm: the guest .* hung while booting: no command started in 60s; booting again' "$tmp/boothang"
st0=$?
diag "hang while booting: exit $st after $((SECONDS - start)) s"
result $st0 "${boots[5]}"

# wedge, a guest command, makes a QEMU that ignores SIGTERM: the guest
# aborts a UAS command that a 1 B/s throttle holds, usb-uas cancels it
# synchronously and QEMU's main loop waits for ever (it says wedge-armed
# first). At the run's timeout run-vm.sh must SIGKILL that QEMU, not wait.
# (timeout 300: a run-vm.sh that waits for ever fails this, not the suite.)
wedge='. selftests/lib.sh; d=$(rig_disk uas); echo 2 > /sys/block/${d#/dev/}/device/timeout; rig throttle uas0 20M 0; echo wedge-armed; dd if=/dev/zero of=$d bs=1M count=60 oflag=direct & sleep 2; rig throttle uas0 1 0; sleep 600'
start=$SECONDS
timeout 300 selftests/vm/run-vm.sh --kver "$kver" --timeout 90 --uas 64M -- \
	"$wedge" \
	> "$tmp/wedge" 2>&1
st=$?
diag "$(grep '^run-vm:' "$tmp/wedge")"
[ $st = 124 ] && grep -q '^run-vm: QEMU did not exit 10 s after SIGTERM: SIGKILL' "$tmp/wedge"
st0=$?
diag "wedged QEMU: exit $st after $((SECONDS - start)) s"
result $st0 "${boots[6]}"

# The same wedge, but run-vm.sh is sent SIGTERM twice, 2 s apart (pkill
# run twice): the second must not end it between its SIGTERM to QEMU and
# the SIGKILL 10 s later, leaving the wedged QEMU running on its own.
selftests/vm/run-vm.sh --kver "$kver" --timeout 600 --uas 64M -- \
	"$wedge" \
	> "$tmp/wedge2" 2>&1 &
vm=$!
for _ in $(seq 300); do grep -q '^wedge-armed' "$tmp/wedge2" && break; sleep 1; done
sleep 20
q=$(pgrep -P $vm qemu-system-x86)
kill -TERM $vm; sleep 2; kill -TERM $vm 2>/dev/null
for _ in $(seq 30); do kill -0 $vm 2>/dev/null || break; sleep 1; done
left=0
for _ in $(seq 20); do
	[ -n "$q" ] && kill -0 "$q" 2>/dev/null || break
	left=$((left + 1))
	sleep 1
done
diag "$(grep '^run-vm:' "$tmp/wedge2")"
if [ -n "$q" ] && kill -0 "$q" 2>/dev/null; then
	diag "QEMU $q: still running ${left} s after run-vm.sh ended"
else
	diag "QEMU ${q:-?}: gone ${left} s after run-vm.sh ended"
fi
[ -n "$q" ] && ! kill -0 "$q" 2>/dev/null && ! kill -0 $vm 2>/dev/null
result $? "${boots[7]}"
[ -n "$q" ] && kill -KILL "$q" 2>/dev/null
wait $vm 2>/dev/null

# Two guests of one kernel started at once in a cache with nothing built
# yet (a clean clone's make check with CHECK_SHARDS=2, or these boots
# beside make check's guests): one builds the initramfs and finds the
# accelerator, the other waits for them: no build step fails and the
# initramfs left is whole. (Seen without: both wrote one initramfs and
# both guests panicked, "Initramfs unpacking failed: junk within
# compressed archive"; or one's mv found its file moved by the other.)
mkdir "$tmp/cache"
two=()
for k in 1 2; do
	BLKFLOOR_VM_CACHE=$tmp/cache selftests/vm/run-vm.sh --kver "$kver" \
		--timeout 600 -- "echo command-ran-$k" > "$tmp/two$k" 2>&1 &
	two+=("$!")
done
wait "${two[0]}"; st1=$?
wait "${two[1]}"; st2=$?
diag "$(cat "$tmp/two1" "$tmp/two2" | grep -v '^ *$' | head -40)"
diag "two guests at once: exit $st1 and $st2"
[ $st1 = 0 ] && [ $st2 = 0 ] &&
	grep -qx command-ran-1 "$tmp/two1" && grep -qx command-ran-2 "$tmp/two2" &&
	! grep -qE '^(mv|cpio|gzip|mktemp): |Initramfs unpacking failed' "$tmp/two1" "$tmp/two2" &&
	gzip -t "$tmp/cache/initrd-$kver.cpio.gz"
result $? "${boots[8]}"
# (a forced run that failed takes back the stamp it would have matched)
if [ $rc = 0 ]; then
	echo "$righash" > "$stamp"
elif [ "$(cat "$stamp" 2>/dev/null)" = "$righash" ]; then
	rm -f "$stamp"
fi
exit $rc
