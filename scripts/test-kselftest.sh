#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kselftest.sh: selftests/ is a kselftest target, as one KTAP suite.
#
# A scratch kernel tree under build/kselftest/linux gets what the kselftest
# build needs from linux-source-6.12 (make ksrc: tools/testing/selftests'
# Makefile, lib.mk, runner and headers; scripts/subarch.include), the uapi
# header where an in-tree build has it (include/uapi/linux/, and
# usr/include/linux/ as headers_install leaves it), the YNL spec, and
# selftests/ copied to tools/testing/selftests/drivers/block/blkfloor/.
# Then
#   make -C tools/testing/selftests TARGETS=drivers/block/blkfloor \
#       install INSTALL_PATH=build/kselftest/install
# must succeed, run_kselftest.sh -l must list every test (and nothing
# else), and the installed copy must hold the helpers the tests look up
# next to lib.sh (abi_test, nlop, nlfuzz), config and settings. make
# check then runs the installed suite in a guest (scripts/check.sh).
# The tarball labs install (gen_tar) holds the same suite, with the quick
# profile and the LAVA helper; in it, kselftest's KSELFTEST_<TEST>_ARGS
# reach the test (lib.sh takes NAME=VALUE arguments) and ksft-profile.sh
# quick runs exactly the tests the file quick lists. (Run as nobody, from
# a copy outside the checkout with the checkout hidden, so
# that every test stops at require_guest's "needs root" skip, after
# lib.sh read its arguments: nothing is loaded or written here.)
# Last, a standalone build of a copy of selftests/ from inside another make
# (as make check does it: MAKELEVEL 1, where lib.mk leaves OUTPUT empty)
# must put its programs in that copy, and nowhere else.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
ksft=$top/build/ksrc/tools/testing/selftests
out=$top/build/kselftest
tree=$out/linux
inst=$out/install
target=drivers/block/blkfloor

echo "KTAP version 1"
echo "1..10"
n=0 rc=0
result() { # status description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

bad=0
[ -f "$ksft/lib.mk" ] && [ -f "$ksft/kselftest/runner.sh" ] ||
	{ diag "no kselftest framework in build/ksrc (make ksrc)"; bad=1; }
if [ $bad = 0 ]; then
	rm -rf "$out"
	mkdir -p "$tree/tools/testing" "$tree/tools/net" "$tree/scripts" \
		"$tree/include/uapi/linux" "$tree/usr/include/linux" \
		"$tree/Documentation/netlink/specs"
	cp -a "$ksft" "$tree/tools/testing/" &&
	cp -a "$top/build/ksrc/tools/net/ynl" "$tree/tools/net/" &&
	cp -a "$top/build/ksrc/Documentation/netlink/genetlink-legacy.yaml" \
		"$tree/Documentation/netlink/" &&
	cp -a "$top/build/ksrc/scripts/subarch.include" "$tree/scripts/" &&
	cp -a include/uapi/linux/blkfloor*.h "$tree/include/uapi/linux/" &&
	cp -a include/uapi/linux/blkfloor*.h "$tree/usr/include/linux/" &&
	cp -a Documentation/netlink/specs/blkfloor.yaml "$tree/Documentation/netlink/specs/" || bad=1
	dst=$tree/tools/testing/selftests/$target
	mkdir -p "$dst/kmod" "$dst/fault" &&
	cp -a selftests/Makefile selftests/config selftests/settings \
		selftests/lib.sh selftests/run-guest.sh selftests/ktap-text.sed selftests/tests \
		selftests/quick selftests/ksft-profile.sh selftests/lava "$dst/" &&
	cp -a selftests/kmod/abi_test.c selftests/kmod/ynl_test.sh "$dst/kmod/" &&
	cp -a selftests/fault/*.c "$dst/fault/" || bad=1
fi
result $bad "selftests/ copied into tools/testing/selftests/$target of a linux-source-6.12 tree"

log=$out/install.log
if [ $bad = 0 ]; then
	make -C "$tree/tools/testing/selftests" TARGETS=$target install \
		INSTALL_PATH="$inst" >"$log" 2>&1
	st=$?
else
	st=1
fi
[ $st = 0 ] || diag "$(tail -20 "$log" 2>/dev/null)"
result $st "make -C tools/testing/selftests TARGETS=$target install INSTALL_PATH=DIR"

want=$(cd selftests/tests && ls -d */[0-9][0-9][0-9] | tr / - | sed "s|^|$target:|" | sort)
got=$( [ -x "$inst/run_kselftest.sh" ] && "$inst/run_kselftest.sh" -l 2>&1 | sort)
diag "run_kselftest.sh -l:" "$got"
missing=$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$got"))
extra=$(comm -13 <(printf '%s\n' "$want") <(printf '%s\n' "$got"))
[ -n "$missing" ] && diag "not listed:" $missing
[ -n "$extra" ] && diag "listed but no such test:" $extra
[ -n "$got" ] && [ -z "$missing" ] && [ -z "$extra" ]
result $? "run_kselftest.sh -l lists every test ($(printf '%s\n' "$want" | wc -l)) and nothing else"

bad=0
for f in abi_test nlop nlfuzz lib.sh config settings tests/run/001; do
	[ -e "$inst/$target/$f" ] || { diag "installed suite lacks $f"; bad=1; }
done
grep -q '^timeout=[0-9]' "$inst/$target/settings" 2>/dev/null || { diag "settings has no timeout"; bad=1; }
for c in BLK_DEV_NULL_BLK CONFIGFS_FS SCSI_DEBUG DM_FLAKEY BLK_DEV_LOOP \
	 USB_STORAGE USB_UAS USB_XHCI_HCD BLKFLOOR; do
	grep -q "^CONFIG_$c=[ym]" "$inst/$target/config" 2>/dev/null ||
		{ diag "config lacks CONFIG_$c"; bad=1; }
done
result $bad "installed: helpers next to lib.sh, settings with a timeout, a config fragment"

# Relocatable: a test run from a moved copy finds lib.sh and its helpers
# (bf_prog) there, not in this checkout: checked without root, where every
# test stops at require_guest's "needs root" skip after sourcing lib.sh.
bad=0
moved=$(mktemp -d)
cp -a "$inst/$target" "$moved/suite"
o=$(cd / && env -i PATH=/usr/bin:/bin bash -c '
	d=$1; shift
	. "$d/lib.sh"
	echo "selftests=$BLKFLOOR_SELFTESTS top=$BLKFLOOR_TOP abi_test=$(bf_prog abi_test)"' _ "$moved/suite" 2>&1)
diag "$o"
[ "$o" = "selftests=$moved/suite top= abi_test=$moved/suite/abi_test" ] || bad=1
rm -rf "$moved"
result $bad "an installed copy moved elsewhere finds lib.sh and its helpers in itself"

# One ynl lookup (lib.sh) for every test: the YNL CLI, the spec and the
# schema are found in a checkout (make ksrc), in the kernel tree and in
# the installed copy, moved elsewhere; bf_ynl starts (its --help: the
# family itself needs the module).
bad=0
moved=$(mktemp -d)
cp -a "$inst/$target" "$moved/suite"
for d in "$top/selftests" "$tree/tools/testing/selftests/$target" "$moved/suite"; do
	# (lib.sh takes the sourcing shell's arguments as a test's NAME=VALUE
	# arguments: shift the directory out first)
	o=$(cd / && env -i PATH=/usr/bin:/bin bash -c '
		d=$1; shift
		. "$d/lib.sh"
		echo "ynl=$BLKFLOOR_YNL spec=$BLKFLOOR_SPEC schema=$BLKFLOOR_YNL_SCHEMA"
		[ -n "$BLKFLOOR_YNL" ] && [ -n "$BLKFLOOR_YNL_SCHEMA" ] &&
			grep -q "^name: blkfloor" "$BLKFLOOR_SPEC" &&
			bf_ynl --help | grep -q -- --dump' _ "$d" 2>&1) ||
		{ diag "$d: no ynl: $o"; bad=1; continue; }
	case $o in
	*"ynl=$top/build/ksrc/"*|*"ynl=$d/"*) diag "$d: $o" ;;
	*) diag "$d: ynl from elsewhere: $o"; bad=1 ;;
	esac
done
rm -rf "$moved"
result $bad "lib.sh finds the YNL CLI, spec and schema in a checkout, a kernel tree and an installed copy"
# Standalone, from inside another make. The copy sits in a scratch
# checkout whose kmod/Kbuild marks it standalone; its TOP has the uapi
# header and build/ksrc. A program outside the copy would be written at
# $OUTPUT/NAME with OUTPUT empty: /abi_test.
sa=$out/standalone
rm -rf "$sa" && mkdir -p "$sa/kmod" "$sa/include/uapi/linux" "$sa/build" "$sa/user" &&
	touch "$sa/kmod/Kbuild" &&
	cp -a include/uapi/linux/blkfloor*.h "$sa/include/uapi/linux/" &&
	ln -s "$top/build/ksrc" "$sa/build/ksrc" &&
	cp -a selftests "$sa/" && rm -f "$sa"/selftests/{abi_test,nlop,nlfuzz,blkfloor} &&
	printf 'blkfloor:\n\tprintf "#!/bin/sh\\n" > blkfloor && chmod +x blkfloor\n' > "$sa/user/Makefile"
marker=$(mktemp)
MAKELEVEL=1 make -s -C "$sa/selftests" >"$out/standalone.log" 2>&1
st=$?
stray=$(find / -xdev -maxdepth 1 -newer "$marker" -name 'abi_test' 2>/dev/null)
rm -f "$marker"
diag "$(cat "$out/standalone.log")"
[ $st = 0 ] && [ -x "$sa/selftests/abi_test" ] && [ -z "$stray" ]
result $? "a standalone build inside another make (MAKELEVEL 1) writes its programs into selftests/${stray:+, not $stray}"
rm -rf "$sa"

tarball=$out/tar/kselftest-packages/kselftest.tar.gz
make -C "$tree/tools/testing/selftests" TARGETS=$target gen_tar \
	INSTALL_PATH="$out/tar" >"$out/gen_tar.log" 2>&1
st=$?
# Unpacked where nobody may enter (results 9 and 10 run it as nobody):
# not in the checkout, which may sit in a directory only root may enter
# (root's home is 0700 on Debian).
untar=$(mktemp -d /tmp/blkfloor-ksft.XXXXXX)
trap 'rm -rf "$untar"' EXIT
bad=0
if [ $st = 0 ] && tar -xzf "$tarball" -C "$untar"; then
	got=$("$untar/run_kselftest.sh" -l 2>&1 | sort)
	[ "$got" = "$want" ] || { diag "the tarball's run_kselftest.sh -l differs from the tests:" "$got"; bad=1; }
	for f in lib.sh run-guest.sh ktap-text.sed quick ksft-profile.sh lava/ksft-lava.sh lava/blkfloor-kselftest.yaml abi_test tests/usb/001; do
		[ -e "$untar/$target/$f" ] || { diag "the tarball lacks $target/$f"; bad=1; }
	done
else
	diag "$(tail -20 "$out/gen_tar.log")"
	bad=1
fi
result $bad "make ... gen_tar: a kselftest tarball whose run_kselftest.sh lists every test, with the quick profile and the LAVA helper"

# asnobody CMD...: CMD as nobody, its output through a pipe nobody made
# (run_kselftest.sh opens /dev/stdout, which nobody cannot on root's pipe),
# with the checkout hidden (an empty tmpfs over it, in a mount namespace
# of its own): what a lab unpacks must need nothing of the checkout, and
# a run that reached into it fails here in every clone, not only in one
# under a directory nobody may enter.
asnobody() {
	chown -R 65534:65534 "$untar" &&
	unshare -m --propagation private bash -c '
		mount -t tmpfs -o mode=0700 blkfloor-hidden "$0" || exit
		exec setpriv --reuid=65534 --regid=65534 --clear-groups \
			bash -c "set -o pipefail; env -i PATH=/usr/bin:/bin \"\$@\" 2>&1 | cat" bash "$@"' "$top" "$@"
}
bad=0
o=$(asnobody KSELFTEST_BASIC_001_ARGS="BLKFLOOR_TEST_DEV=/dev/blkfloor-ksft-arg BLKFLOOR_TEST_DEV_ID=ksft-id" \
	"$untar/run_kselftest.sh" -t $target:basic-001 2>&1)
diag "$o"
printf '%s\n' "$o" | grep -q "^# # BLKFLOOR_TEST_DEV=/dev/blkfloor-ksft-arg (from the test's arguments)$" &&
	printf '%s\n' "$o" | grep -q "^# # BLKFLOOR_TEST_DEV_ID=ksft-id (from the test's arguments)$" &&
	printf '%s\n' "$o" | grep -q "^ok 1 selftests: $target: basic-001 # SKIP" || bad=1
o=$(asnobody KSELFTEST_BASIC_001_ARGS="BLKFLOOR_BOGUS=1" "$untar/run_kselftest.sh" -t $target:basic-001 2>&1)
diag "$o"
printf '%s\n' "$o" | grep -q "^# # FAIL: unknown argument 'BLKFLOOR_BOGUS=1'" &&
	printf '%s\n' "$o" | grep -q "^not ok 1 selftests: $target: basic-001" || bad=1
result $bad "KSELFTEST_BASIC_001_ARGS=\"BLKFLOOR_TEST_DEV=... BLKFLOOR_TEST_DEV_ID=...\" reaches the test through run_kselftest.sh; an unknown argument fails it"

bad=0
o=$(asnobody "$untar/$target/ksft-profile.sh" quick 2>&1)
st=$?
want_q=$(sed 's/#.*//' selftests/quick | awk 'NF { gsub("/", "-", $1); print $1 }')
got_q=$(printf '%s\n' "$o" | sed -n "s|^ok [0-9]* selftests: $target: \([^ ]*\) # SKIP.*|\1|p")
diag "ksft-profile.sh quick (as nobody: each test skips, needs root): exit $st" "$got_q"
[ $st = 0 ] && [ "$got_q" = "$want_q" ] || bad=1
o=$(asnobody KSELFTEST_BASIC_001_ARGS="BLKFLOOR_BOGUS=1" "$untar/$target/ksft-profile.sh" quick 2>&1)
st=$?
diag "with basic-001 failing: exit $st"
[ $st = 1 ] || bad=1
result $bad "ksft-profile.sh quick runs the tests of selftests/quick, in order, and exits 1 when one fails"
exit $rc
