#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-harness.sh: the test harness never reports green by accident, as one
# KTAP suite. make check's own counting (scripts/ktap-count.py) and the
# guest runner (selftests/run-guest.sh) are fed what a broken run looks
# like, and each must come out as a failure:
#   - a suite that stops half way (fewer results than its plan: its
#     failure names the test it stopped in and the kernel's first word
#     on why), a suite with no plan, a failed case nested in a passing test, and nested
#     skips counted as skips;
#   - a test pattern that selects no test;
#   - a drive-model measurement (sustain_expect in selftests/lib.sh) with
#     a wrong class: measured again only when the host starved the guest
#     (after waiting up to 60 s for a quiet host), a failure at once
#     otherwise, and after three starved tries;
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
#   - outside the rig, with blkfloor not installed, the suite skips once
#     (a skipped plan with the reason), not once per test.
# No guest boots here: the rig's own breakages (a broken rig, a panic, a
# crash or a hang while booting, a wedged QEMU, two guests at once) are
# scripts/test-rig.sh's, in make check-rig.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "KTAP version 1"
echo "1..13"
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

# A guest that panicked in its second test: the failure line names the
# test and the kernel's first line about it (a WARNING in a test that
# passed before it is not the account).
printf '%s\n' 'KTAP version 1' '1..3' '# a/001: first' '# # WARNING: an old one' \
	'# a/001: took 1 s, guest CPU 1.0 s' 'ok 1 a/001' '# b/002: second' \
	'[   9.1] WARNING: CPU: 0 PID: 7 at drivers/usb/storage/uas.c:1 x' \
	'[   9.2] Kernel panic - not syncing: kernel: panic_on_warn set ...' \
	'run-vm: guest (k, tcg) ended without an exit status; console:' > "$tmp/crash"
why=$(python3 scripts/ktap-count.py "$tmp/crash" g | sed -n 2p)
diag "$why"
[ "$why" = "g: plan 1..3 but 1 results: the suite stopped half way; it stopped in b/002; first account of it: WARNING: CPU: 0 PID: 7 at drivers/usb/storage/uas.c:1 x" ]
result $? "a suite that stopped half way names the test it stopped in and the kernel's first word on why"

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
# 24 % waiting is starved: the thermal model was misclassified at it
r6=$(expect_run - "cache-exhaustion 240" "steady 0")
diag "sustain_expect (status, attempts, quiet windows): pass at once: $r1; wrong, host idle: $r2; wrong, starved, quiet after 3 windows, then right: $r3; starved thrice: $r4; host busy 60 s, then right: $r5; wrong at 24 % waiting, then right: $r6"
[ "$r1" = "0 1 0" ] && [ "$r2" = "1 1 0" ] && [ "$r3" = "0 2 3" ] && [ $q3 = 0 ] &&
	[ "$r4" = "1 3 2" ] && [ $q4 = 0 ] && [ "$r5" = "0 2 30" ] && [ $q5 = 0 ] &&
	[ "$r6" = "0 2 1" ]
result $? "a drive-model measurement is repeated only when the host starved the guest, once the host is quiet or after 60 s"
# A hanging test, run by a copy of run-guest.sh (its tests are next to it),
# out of /tmp (on a shared host, something there may clean up under us).
mkdir -p build
suite=$(mktemp -d "$PWD/build/harness.XXXXXX")
trap 'rm -rf "$tmp" "$suite"' EXIT
mkdir -p "$suite/tests/x"
cp selftests/run-guest.sh selftests/ktap-text.sed "$suite/"
printf '#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0\n# hangs\necho started\nsleep 600\n' \
	> "$suite/tests/x/001"
printf '#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0\n# passes\nexit 0\n' \
	> "$suite/tests/x/002"
# (a test that quotes the kernel log: the phrases at which kunit_parser.py
# stops reading a log, anywhere on a line)
printf '#!/bin/bash\n# SPDX-License-Identifier: GPL-2.0\n# quotes a console\n%s\nexit 0\n' \
	"echo '[ 1.0] Kernel panic - not syncing: VFS: Unable to mount root fs'" \
	"echo 'List of all partitions:'; echo '[ 9.9] reboot: System halted'" \
	> "$suite/tests/x/003"
chmod +x "$suite/tests/x/"*
start=$SECONDS
out=$(TMPDIR=$suite "$suite/run-guest.sh" -t 5 'x/*' 2>&1)
st=$?
diag "$out"
printf '%s\n' "$out" > "$tmp/hang"
[ $st != 0 ] && [ $((SECONDS - start)) -lt 60 ] &&
	[ "$(counts "$tmp/hang")" = "2 1 0" ] &&
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
# (a log cut by such a phrase names its line, the folded complaints after)
printf 'KTAP version 1\n1..6\nok 1 a\n# reboot: System halted\nok 2 b\nok 3 c\nok 4 d\nok 5 e\nok 6 f\n' > "$tmp/cut"
out3=$(python3 scripts/ktap-parse-check.py "$tmp/cut" 2>&1)
diag "$out" "$out2" "$out3"
[ $st = 0 ] && [ $st2 != 0 ] && printf '%s\n' "$out2" | grep -q 'CRASHED' &&
	[ "$(printf '%s\n' "$out3" | sed -n 3p)" = "# cut: kunit_parser stops reading at line 4: # reboot - System halted" ] &&
	printf '%s\n' "$out3" | grep -q '^# cut: (8 more lines like these)$'
result $? "kunit_parser.py reads run-guest.sh's log (a timeout and a test quoting a console's last words included) and an XFAIL cleanly, rejects a nested block that names itself before its KTAP version line, and says where a log was cut for it"

# A rig run where most of what the rig should have is missing: a fake rig
# (BLKFLOOR_VM_DIR set, no agent), modprobe that finds nothing, tests from
# lib.sh's helpers.
mkdir -p "$suite/tests/y" "$suite/bin"
cp selftests/lib.sh "$suite/"
printf '#!/bin/sh\nexit 1\n' > "$suite/bin/modprobe"
# (outside the rig, blkfloor counts as installed: a CLI and a module
# modinfo finds)
printf '#!/bin/sh\nexit 0\n' > "$suite/bin/modinfo"
chmod +x "$suite/bin/modinfo"
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
env -u BLKFLOOR_VM_DIR PATH="$suite/bin:$PATH" TMPDIR=$suite BLKFLOOR=/bin/true \
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
# Outside the rig with blkfloor not installed, no test can run: the suite
# says so once (a skipped plan), not once per test.
rm "$suite/bin/modinfo"
env -u BLKFLOOR_VM_DIR -u BLKFLOOR PATH="$suite/bin:$PATH" TMPDIR=$suite \
	"$suite/run-guest.sh" -t 30 'y/*' > "$tmp/skiponce" 2>&1
st=$?
diag "$(cat "$tmp/skiponce")" "exit $st"
[ $st = 4 ] && grep -qx '1\.\.0 # SKIP blkfloor is not installed .*' "$tmp/skiponce" &&
	! grep -qE '^(not )?ok ' "$tmp/skiponce" && [ "$(counts "$tmp/skiponce")" = "0 0 0" ]
result $? "outside the rig, with blkfloor not installed, the suite skips once, saying why"
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
user/blkfloor classify user/tests/regression-sim/e001.trace --json > "$tmp/jc.json" ||
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

exit $rc
