#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-ab: a real driver A/B, as a maintainer changing uas.c runs
# one. uas.ko is built out of tree in four variants (scripts/uas-variants.sh:
# v0 an unchanged rebuild, v1 max_hw_sectors = 64, v2 udelay(400) per
# command, v3 DID_ERROR on 1 command in 300), then in 6.12 guests with an
# emulated UAS disk:
#   boot 1: each variant against the stock module, interleaved (rmmod uas;
#           insmod), three short runs a side (six for v2);
#   boot 2: the stock module alone; boot 3: the variants alone (A and B
#           each in a boot of its own).
# blkfloor compare must call the rebuild no regression (within one boot
# and across boots) and each fault a regression naming its row: v1
# requests per bio or request size, v2 latency or rate, v3 SCSI errors
# retried and recovered, with the host byte (DID_ERROR) it set.
# Across single boots a rate or latency change is inconclusive by design
# (the noise between boots is unknown), so v2 across boots must only not
# be called "no regression". KTAP on standard output; the emails of the
# interleaved v1 and v2 comparisons as diagnostics. About 10 minutes
# under TCG with the variants built (2.5 more to build them): not part
# of make check.
cd "$(dirname "$0")/.." || exit 2
kver=${AB_KVER:-6.12.118+deb12-amd64}
vdir=build/uas-ab
keep=${BLKFLOOR_KEEP_DIR:-}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! scripts/uas-variants.sh "$kver" "$vdir" >"$log" 2>&1 ||
   ! make -s cli >>"$log" 2>&1 ||
   ! make -s "module-$kver" >>"$log" 2>&1; then
	echo "KTAP version 1"
	echo "1..1"
	sed 's/^/# /' "$log"
	echo "not ok 1 build the uas variants, the CLI and the module"
	exit 1
fi
out=${keep:-$(mktemp -d /tmp/bf-ab.XXXXXX)}
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -f "$log"; rm -rf "$out"' EXIT
chmod 777 "$out"

load_of() { [ "$1" = v2 ] && echo r || echo w; }

# boot 1: interleaved, stock then variant, three rounds (six for v2: its
# 400 us per command is about the spread of QD1 reads between runs)
steps=()
for v in v0 v1 v2 v3; do
	l=$(load_of $v)
	for i in 1 2 3 $([ $v = v2 ] && echo 4 5 6); do
		steps+=("$v-a$i:stock:$l" "$v-b$i:$PWD/$vdir/$v/uas.ko:$l")
	done
done
# boot 2: the stock module; boot 3: the variants, each in boots of their own
steps2=() steps3=()
for l in w r; do
	for i in 1 2 3; do
		steps2+=("x-a-$l$i:stock:$l")
	done
done
for v in v0 v1 v2 v3; do
	for l in $(load_of $v) $([ $v = v0 ] && echo r); do
		for i in 1 2 3; do
			steps3+=("x-$v-$l$i:$PWD/$vdir/$v/uas.ko:$l")
		done
	done
done

vm() { # boot STEP...
	local b=$1
	shift
	selftests/vm/run-vm.sh --kver "$kver" --uas 256M --share "$out" -- \
		selftests/ab/ab-guest.sh "$out" "$@" >"$out/boot$b.log" 2>&1
}

echo "KTAP version 1"
echo "1..10"
n=0 rc=0 failed=0
result() { # ok? name
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else
		echo "not ok $n $2"; rc=1; failed=$((failed + 1)); fi
}
booted=0
vm 1 "${steps[@]}" && vm 2 "${steps2[@]}" && vm 3 "${steps3[@]}" && booted=1
if [ $booted = 0 ]; then
	tail -n 20 "$out"/boot*.log | sed 's/^/# /'
fi
result $((1 - booted)) "three boots ran every step"

cmp_ab() { # name expect-exit-test grep-reasons A-glob B-glob [scsi-result]
	local name=$1 want=$2 why=$3 a=$4 b=$5 res=${6:-} got
	# shellcheck disable=SC2086
	user/blkfloor compare $a -- $b --json >"$out/$name.json" 2>"$out/$name.err"
	got=$?
	user/blkfloor compare $a -- $b --format email >"$out/$name.email" 2>/dev/null
	echo "# $name: exit $got"
	# shellcheck disable=SC2086
	if ! eval "[ $got $want ]"; then
		sed 's/^/# /' "$out/$name.email" "$out/$name.err"
		result 1 "$name"
		return
	fi
	# the reasons, and the first SCSI result compare quotes
	if [ -n "$why" ] && ! python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
ok = any(re.search(sys.argv[2], r) for r in d["reasons"])
if sys.argv[3]:
    ok = ok and re.search(sys.argv[3], (d.get("scsi_result") or {}).get("result", ""))
sys.exit(0 if ok else 1)
' "$out/$name.json" "$why" "$res"; then
		echo "# $name: no reason matches /$why/${res:+, or no SCSI result /$res/}"
		sed 's/^/# /' "$out/$name.email"
		result 1 "$name"
		return
	fi
	result 0 "$name"
}

if [ $booted = 1 ]; then
	o=$out
	# v3's errors are retried: said so, with the host byte it set
	v3why="scsi errors .*retried and recovered, no I/O error in B"
	cmp_ab v0_interleaved_no_regression "!= 1 -a \$got != 2" "" "$o/v0-a?.trace" "$o/v0-b?.trace"
	cmp_ab v1_interleaved_request_size "= 1" "requests/bio|request size" "$o/v1-a?.trace" "$o/v1-b?.trace"
	cmp_ab v2_interleaved_latency "= 1" "latency|MB/s" "$o/v2-a?.trace" "$o/v2-b?.trace"
	cmp_ab v3_interleaved_scsi_errors "= 1" "$v3why" "$o/v3-a?.trace" "$o/v3-b?.trace" host=DID_ERROR
	cmp_ab v0_boots_writes_no_regression "!= 1 -a \$got != 2" "" "$o/x-a-w?.trace" "$o/x-v0-w?.trace"
	cmp_ab v0_boots_reads_no_regression "!= 1 -a \$got != 2" "" "$o/x-a-r?.trace" "$o/x-v0-r?.trace"
	cmp_ab v1_boots_request_size "= 1" "requests/bio|request size" "$o/x-a-w?.trace" "$o/x-v1-w?.trace"
	cmp_ab v2_boots_not_clean "!= 0 -a \$got != 2" "" "$o/x-a-r?.trace" "$o/x-v2-r?.trace"
	cmp_ab v3_boots_scsi_errors "= 1" "$v3why" "$o/x-a-w?.trace" "$o/x-v3-w?.trace" host=DID_ERROR
	for v in v1 v2; do
		echo "# --- the email of the interleaved $v comparison ---"
		sed 's/^/# /' "$out/${v}_interleaved_"*.email
	done
	# what the unchanged rebuild was called, and why
	for t in v0_interleaved_no_regression v0_boots_writes_no_regression \
		 v0_boots_reads_no_regression; do
		echo "# --- $t: the verdict ---"
		sed -n '/^verdict:/,/^$/p' "$out/$t.email" | sed 's/^/# /'
	done
else
	for t in v0_interleaved_no_regression v1_interleaved_request_size \
		 v2_interleaved_latency v3_interleaved_scsi_errors \
		 v0_boots_writes_no_regression v0_boots_reads_no_regression \
		 v1_boots_request_size v2_boots_not_clean v3_boots_scsi_errors; do
		result 1 "$t"
	done
fi
echo "# $((n - failed)) passed, $failed failed"
exit $rc
