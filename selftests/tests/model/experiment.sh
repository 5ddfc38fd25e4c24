# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the model/ tests that run issue 28's experiments by hand
# (an idle gap, a discard, a link reset between two writes), sourced after
# lib.sh. Each write is one `blkfloor run` with a trace at 200 ms.

# xrun DEV NAME [run options...]: one sequential write (or --rw trim) on
# DEV; its JSON summary in $XDIR/NAME.json, its trace in $XDIR/NAME.csv.
# Prints the rate, and the rates per interval, as diagnostics.
xrun() {
	local dev=$1 name=$2
	shift 2
	"$BLKFLOOR" run "$dev" --rw write --yes-destroy-data --quiet --json \
		--interval 200ms --qd 8 --force --trace "$XDIR/$name.csv" "$@" \
		> "$XDIR/$name.json" 2> "$XDIR/$name.err" ||
		{ sed 's/^/# /' "$XDIR/$name.err"; fail "$name: blkfloor run failed"; }
	diag "$name: $(json_get "$XDIR/$name.json" '"%d bytes in %.2f s, %.1f MB/s" % (j["bytes"], j["elapsed_s"], j["mbps"])')"
	diag "$name MB/s: $(trace_col "$XDIR/$name.csv" MBps | awk '{ printf "%.0f ", $1 }')"
}

# trace_col TRACE NAME: the values of column NAME of a trace's intervals.
trace_col() {
	awk -F, -v want="$2" '/^index,/ { for (i = 1; i <= NF; i++) if ($i == want) c = i; next }
		/^[0-9]/ && c { print $c }' "$1"
}

# fast_bytes JSON FAST SLOW: the bytes a write went at FAST before it fell
# to SLOW (rates in bytes/s), from its size S and time T alone:
# T = R / FAST + (S - R) / SLOW. Interval-free, so a 200 ms sample that
# straddles the step costs nothing.
fast_bytes() {
	json_get "$1" "int(max(0, (j['bytes'] / $3 - j['elapsed_s']) / (1 / $3 - 1 / $2)))"
}

# state_get DEV KEY: one key of the model's state (rig model-state).
state_get() {
	rig model-state "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# within A B REL: A is within REL (a fraction) of B.
within() {
	bf_py "import sys; a, b = float('$1'), float('$2'); sys.exit(0 if abs(a - b) <= $3 * abs(b) else 1)"
}

# BLKFLOOR_KEEP_DIR: keep the traces and summaries there (for a report:
# usage.rst's plots), in a directory per test run.
if [ -n "${BLKFLOOR_KEEP_DIR:-}" ]; then
	XDIR=$(mktemp -d "$BLKFLOOR_KEEP_DIR/$(basename "$0").XXXXXX") ||
		fail "cannot make a directory in BLKFLOOR_KEEP_DIR=$BLKFLOOR_KEEP_DIR"
	diag "traces kept in $XDIR"
else
	XDIR=$(mktemp -d)
	on_exit "rm -rf $XDIR"
fi
