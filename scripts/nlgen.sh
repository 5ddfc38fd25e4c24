#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nlgen.sh [--check]: generate the netlink code of the blkfloor family from
# its YNL spec with the kernel's own generator, as upstream families do
# (tools/net/ynl/ynl-regen.sh):
#
#   Documentation/netlink/specs/blkfloor.yaml
#     -> include/uapi/linux/blkfloor.h   ynl-gen-c --mode uapi
#     -> kmod/nl_spec.h, kmod/nl_spec.c  ynl-gen-c --mode kernel
#
# Without arguments (make nlgen) the files are rewritten; with --check
# nothing is written and the exit status is 1 when a committed file
# differs from what the generator makes of the spec (diff on stdout).
#
# ynl-gen-c takes the spec from a kernel tree: it validates it against
# ../genetlink-legacy.yaml beside the specs directory and names it in the
# "auto-generated from" line relative to the directory that holds
# MAINTAINERS. So the spec is copied into build/ksrc (make ksrc) first.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
ksrc=build/ksrc
spec=Documentation/netlink/specs/blkfloor.yaml
gen=$ksrc/tools/net/ynl/ynl-gen-c.py
make -s ksrc
for f in "$gen" "$ksrc/MAINTAINERS" "$ksrc/Documentation/netlink/genetlink-legacy.yaml"; do
	[ -f "$f" ] || { echo "nlgen: $f missing (make ksrc)" >&2; exit 1; }
done
mkdir -p "$ksrc/Documentation/netlink/specs"
cp "$spec" "$ksrc/$spec"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# out TREE-PATH MODE ARGS...: generate into $tmp, keeping the file's name
# (the kernel source includes its header by the output file's name).
outs=()
out() {
	local path=$1 name
	shift
	name=$(basename "$path")
	mkdir -p "$tmp/$(dirname "$path")"
	# (the generator runs from its own directory, for its lib/)
	(cd "$(dirname "$gen")" &&
	 timeout 60 python3 ynl-gen-c.py --spec "$OLDPWD/$ksrc/$spec" "$@" \
		-o "$tmp/$path") ||
		{ echo "nlgen: ynl-gen-c $* failed for $name" >&2; exit 1; }
	outs+=("$path")
}
out include/uapi/linux/blkfloor.h --mode uapi --header
out kmod/nl_spec.h --mode kernel --header
out kmod/nl_spec.c --mode kernel --source
rc=0
for f in "${outs[@]}"; do
	if [ $check = 1 ]; then
		if ! diff -u "$f" "$tmp/$f"; then
			echo "nlgen: $f is not what ynl-gen-c makes of $spec (make nlgen)" >&2
			rc=1
		fi
	elif ! cmp -s "$tmp/$f" "$f"; then
		cp "$tmp/$f" "$f"
		echo "nlgen: wrote $f"
	fi
done
exit $rc
