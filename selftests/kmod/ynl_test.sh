#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Drive the live blkfloor family with the kernel's YNL CLI and our spec: if
# the spec disagreed with the module on any attribute type or number, the
# replies would not decode into the fields checked here. (This holds what
# basic/002 checked: the module's version, a write refused without the
# destructive flag with its extack, the run listed by a dump, intervals
# that add up to the run's bytes.) Run as root in a
# guest with blkfloor loaded (or $BLKFLOOR_KO to insmod) and null_blk.
# KTAP output; exit 4 when something needed is missing.
# lib.sh (next to this script when installed, one directory up in a
# checkout) finds the YNL CLI, the spec and the schema, as for every test.
here=$(dirname "$0")
BF_YNL_SCHEMA=1
if [ -f "$here/lib.sh" ]; then . "$here/lib.sh"; else . "$here/../lib.sh"; fi
set -u
dev=/dev/nb_ynl
n=0
fail=0

# (in the QEMU rig everything is there: a missing piece is a failure)
skip_all() {
	echo "KTAP version 1"
	if [ -n "${BLKFLOOR_VM_DIR:-}" ]; then
		echo "# rig fault: $1"; echo "1..1"; echo "not ok 1 setup"; exit 1
	fi
	echo "1..0 # SKIP $1"; exit 4
}

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -n "$BLKFLOOR_YNL" ] || skip_all "no ynl: tools/net/ynl and the blkfloor spec (make ksrc in a checkout)"
[ -n "$BLKFLOOR_YNL_SCHEMA" ] || skip_all "no genetlink-legacy.yaml schema to check the spec against"
if ! grep -q '^blkfloor ' /proc/modules; then
	if [ -n "${BLKFLOOR_KO:-}" ]; then
		modprobe libcrc32c 2>/dev/null
		insmod "$BLKFLOOR_KO" || skip_all "cannot load $BLKFLOOR_KO"
	else
		modprobe blkfloor || skip_all "no blkfloor module"
	fi
fi
# A null_blk of its own (lib.sh), not nullb0: a test that ran before
# may have loaded null_blk with nr_devices=0, and modprobe then makes none.
nullb_create nb_ynl memory_backed=0 size=1024

y() { bf_ynl --output-json "$@"; }

# check NAME PYTHON-EXPR-ON-r COMMAND...: run, parse JSON as r, assert.
check() {
	local name=$1 expr=$2 out
	shift 2
	n=$((n + 1))
	if out=$("$@" 2>&1) &&
	   python3 -I -S -c "$BF_PY_JSON"'
r = loads(sys.argv[1])
sys.exit(0 if ('"$expr"') else 1)' "$out"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		echo "$out" | sed 's/^/# /' | tail -5
		fail=1
	fi
}

echo "KTAP version 1"
echo "1..8"
ver=$(cat /sys/module/blkfloor/version)
check info_get 'r["version"] == "'"$ver"'"' y --do info-get
# The spec was checked against the genetlink-legacy schema by that call;
# it is a file, the same for every call, and the check costs a TCG guest
# seconds each time: the other calls go without it.
no_schema=()
for ((i = 0; i < ${#BF_YNL_CMD[@]}; i++)); do
	if [ "${BF_YNL_CMD[$i]}" = --schema ]; then
		no_schema+=(--no-schema)
		i=$((i + 1))
	else
		no_schema+=("${BF_YNL_CMD[$i]}")
	fi
done
BF_YNL_CMD=("${no_schema[@]}")
size=$(( $(cat /sys/block/${dev#/dev/}/size) * 512 ))
check dev_caps 'r["caps"]["size"] == '"$size"' and r["caps"]["logical-bs"] >= 512 and r["caps"]["disk-name"] == "nb_ynl"' \
	y --do dev-caps --json "{\"dev-path\": \"$dev\"}"
# A destructive run without the flag: refused, with the extack message.
n=$((n + 1))
out=$(y --do run-start --json "{\"dev-path\": \"$dev\", \"op\": \"write\", \"max-bytes\": 1048576}" 2>&1)
rc=$?
echo "# run_start_write_refused: exit $rc: $(printf '%s' "$out" | tail -1)"
if [ $rc != 0 ] && printf '%s\n' "$out" | grep -qi 'destructive\|destroy'; then
	echo "ok $n run_start_write_refused"
else
	echo "not ok $n run_start_write_refused"; fail=1
fi
out=$(y --do run-start --json "{\"dev-path\": \"$dev\", \"op\": \"read\", \"bs\": 4096, \"qd\": 4, \"interval-ns\": 10000000, \"max-time-ns\": 100000000}" 2>&1)
id=$(python3 -I -S -c "$BF_PY_JSON"'
print(loads(sys.argv[1])["run-id"])' "$out" 2>/dev/null)
n=$((n + 1))
[ -n "$id" ] && echo "# run_start: run id $id"
if [ -n "$id" ]; then echo "ok $n run_start"; else echo "not ok $n run_start"; echo "# $out"; fail=1; fi
# The run lasts 100 ms: its reply, once it has ended (each ynl start costs
# a TCG guest seconds, so the first reply is nearly always the last).
for _ in $(seq 50); do
	rg=$(y --do run-get --json "{\"run-id\": ${id:-0}}" 2>&1)
	printf '%s\n' "$rg" | grep -q '"state": "running"' || break
	sleep 0.2
done
check run_get 'r["run-id"] == '"${id:-0}"' and r["state"] == "done" and r["op"] == "read" and r["bytes"] > 0 and r["bs"] == 4096 and r["err-log"] == 16 and r["err-log-dropped"] == 0 and r["intervals"] >= 5' \
	printf '%s\n' "$rg"
check run_get_dump 'any(x["run-id"] == '"${id:-0}"' for x in r)' y --dump run-get
bytes=$(printf '%s\n' "$rg" | python3 -I -S -c "$BF_PY_JSON"'
print(load("-")["bytes"])' 2>/dev/null)
echo "# run ${id:-?}: ${bytes:-?} bytes"
check interval_get_dump 'len(r) >= 5 and all(i["interval"]["bytes"] >= 0 for i in r) and sum(i["interval"]["bytes"] for i in r) == '"${bytes:--1}"' and all(sum(b["count"] for b in i["interval"].get("hist", [])) == i["interval"]["ios"] for i in r) and any(i["interval"].get("hist") for i in r)' \
	y --dump interval-get --json "{\"run-id\": ${id:-0}}"
# (fault/007 fills an error log; a clean run's dumps empty)
check error_get_dump 'r == []' \
	y --dump error-get --json "{\"run-id\": ${id:-0}}"
exit $fail
