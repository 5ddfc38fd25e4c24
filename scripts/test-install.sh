#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-install.sh: installing blkfloor works, as one KTAP suite.
#
#   - for each kernel: "make install DESTDIR=ROOT PREFIX=/usr KVER=..."
#     puts the module under ROOT/lib/modules/KVER/{extra,updates}, runs
#     depmod -b (modules.dep lists it), installs the CLI (it runs), the man
#     page (groff renders it without warnings) and the uapi header (a C
#     file including it compiles); "make uninstall" with the same
#     variables removes every file again;
#   - on the newest kernel: the in-tree style build (make M=TOP with
#     CONFIG_BLKFLOOR=m through the top-level Kbuild) gives kmod/blkfloor.ko;
#     Kconfig declares BLKFLOOR with help text and the dependencies the
#     code needs; dkms.conf names what the tree has, and, when dkms is
#     installed, "dkms add" and "dkms build" of a copy succeed.
#
# Everything happens in copies of the tree under a temporary directory:
# no object file appears in kmod/ or user/, nothing is installed on the
# host. INSTALL_KERNELS="KVER..." overrides the kernels (default: the
# newest installed 6.1 and 6.12, as make check).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

if [ -z "${INSTALL_KERNELS:-}" ]; then
	k61=$(ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | xargs -rn1 dirname | xargs -rn1 basename | sort -V | tail -1)
	k612=$(ls -d /lib/modules/6.12.*+deb12-amd64/build 2>/dev/null | xargs -rn1 dirname | xargs -rn1 basename | sort -V | tail -1)
	INSTALL_KERNELS="$k61 $k612"
fi
read -r -a kernels <<<"$INSTALL_KERNELS"
newest=$(printf '%s\n' "${kernels[@]}" | sort -V | tail -1)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# copy DIR: the sources make install needs, and the CLI's objects with their
# timestamps (so the copy does not rebuild a CLI that is up to date).
copy() {
	mkdir -p "$1/user/tests"
	cp -p Makefile Kbuild Kconfig dkms.conf "$1/"
	cp -rp kmod include "$1/"
	rm -f "$1"/kmod/*.o "$1"/kmod/*.ko "$1"/kmod/*.mod* "$1"/kmod/.*.cmd \
	      "$1"/kmod/modules.order "$1"/kmod/Module.symvers
	cp -p user/Makefile user/*.h user/blkfloor.8 "$1/user/"
	cp -p user/blkfloor "$1/user/" 2>/dev/null
	for d in analysis nl dev run cmd; do
		mkdir -p "$1/user/$d"
		cp -p user/$d/*.[ch] "$1/user/$d/"
		cp -p user/$d/*.o "$1/user/$d/" 2>/dev/null
	done
	cp -p user/analysis/*.a "$1/user/analysis/" 2>/dev/null
	return 0
}

echo "KTAP version 1"
echo "1..$(( ${#kernels[@]} * 7 + 5 ))"
n=0 rc=0
result() { # ok? description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; rc=1; fi
}
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# dkms.conf as dkms reads it (checked below)
# shellcheck disable=SC1091,SC2034
conf=$( kernel_source_dir=KSRC dkms_tree=DKMS; . ./dkms.conf
	echo "$PACKAGE_NAME|$PACKAGE_VERSION|${BUILT_MODULE_NAME[0]}|${BUILT_MODULE_LOCATION[0]}|${MAKE[0]}" )
IFS='|' read -r pname pver mname mloc mmake <<<"$conf"
ver=$(sed -n 's/^#define BLKFLOOR_VERSION[[:space:]]*"\(.*\)"/\1/p' kmod/blkfloor.h)

# ---- build and install for every kernel, in parallel ----------------------
for k in "${kernels[@]}"; do
	copy "$tmp/tree-$k"
	( cd "$tmp/tree-$k" &&
	  make install DESTDIR="$tmp/root-$k" PREFIX=/usr KVER="$k" \
		>"$tmp/install-$k.log" 2>&1
	  echo $? >"$tmp/install-$k.rc" ) &
done
# ... and the in-tree style build and dkms on the newest one.
if [ -n "$newest" ]; then
	copy "$tmp/intree"
	( cd "$tmp/intree" &&
	  make -C "/lib/modules/$newest/build" M="$tmp/intree" CONFIG_BLKFLOOR=m \
		modules >"$tmp/intree.log" 2>&1
	  echo $? >"$tmp/intree.rc" ) &
	if command -v dkms >/dev/null; then
		src=$tmp/usrsrc/blkfloor-$pver
		copy "$src"
		rm -rf "$src/user"
		mkdir -p "$tmp/dkms" "$tmp/dkmsinst"
		D=(dkms --dkmstree "$tmp/dkms" --sourcetree "$tmp/usrsrc"
		   --installtree "$tmp/dkmsinst")
		( { "${D[@]}" add -m blkfloor -v "$pver" &&
		    "${D[@]}" build -m blkfloor -v "$pver" -k "$newest"; } \
			>"$tmp/dkms.log" 2>&1
		  echo $? >"$tmp/dkms.rc" ) &
	fi
fi
wait

for k in "${kernels[@]}"; do
	root=$tmp/root-$k
	st=$(cat "$tmp/install-$k.rc" 2>/dev/null || echo 1)
	[ "$st" = 0 ] || diag "$(tail -20 "$tmp/install-$k.log")"
	result "$st" "$k: make install DESTDIR PREFIX=/usr KVER succeeds"

	ko=$(cd "$root" 2>/dev/null && ls lib/modules/"$k"/{extra,updates}/blkfloor.ko* 2>/dev/null | head -1)
	bad=0
	if [ -z "$ko" ]; then
		diag "no blkfloor.ko* under $root/lib/modules/$k/extra or updates"
		bad=1
	elif ! grep -q "^${ko#lib/modules/$k/}:" "$root/lib/modules/$k/modules.dep" 2>/dev/null; then
		diag "${ko#lib/modules/$k/} is not in modules.dep (depmod -b did not run?)"
		bad=1
	elif ! grep -q "^alias net-pf-16-proto-16-family-blkfloor blkfloor$" \
		"$root/lib/modules/$k/modules.alias" 2>/dev/null; then
		diag "modules.alias lacks the genetlink family alias (no autoload)"
		bad=1
	elif [ "$(modinfo -F vermagic "$root/$ko" | awk '{print $1}')" != "$k" ]; then
		diag "$ko was built for $(modinfo -F vermagic "$root/$ko")"
		bad=1
	fi
	result $bad "$k: module in ${ko:-lib/modules/$k/extra}, listed by depmod with its family alias"

	out=$("$root/usr/sbin/blkfloor" --version 2>&1)
	st=$?
	[ $st = 0 ] || diag "$out"
	result $st "$k: CLI installed in /usr/sbin and runs ($out)"

	out=$(LC_ALL=C.UTF-8 groff -man -ww -z "$root/usr/share/man/man8/blkfloor.8" 2>&1)
	st=$?
	[ -f "$root/usr/share/man/man8/blkfloor.8" ] && [ -z "$out" ] || st=1
	[ $st = 0 ] || diag "$out"
	result $st "$k: man page installed in /usr/share/man/man8 and renders"

	out=$(printf '#include <linux/blkfloor_verify.h>\nint main(void) { return BLKFLOOR_A_MAX > 0 && sizeof(struct blkfloor_verify_hdr) == 32 ? 0 : 1; }\n' |
	      gcc -Wall -Werror -I"$root/usr/include" -x c -o /dev/null - 2>&1)
	st=$?
	[ -f "$root/usr/include/linux/blkfloor.h" ] && [ -f "$root/usr/include/linux/blkfloor_verify.h" ] || st=1
	[ $st = 0 ] || diag "$out"
	result $st "$k: uapi header installed in /usr/include/linux and compiles"

	out=$(cd "$tmp/tree-$k" && make uninstall DESTDIR="$root" PREFIX=/usr KVER="$k" 2>&1)
	st=$?
	[ $st = 0 ] || diag "$out"
	result $st "$k: make uninstall succeeds"

	left=$(cd "$root" 2>/dev/null && find . \( -type f -o -type l \) \
	       ! -path "./lib/modules/$k/modules.*" | sort)
	[ -z "$left" ] || diag "left behind:" $left
	result "$([ -z "$left" ] && echo 0 || echo 1)" "$k: make uninstall removes every installed file"
done

# ---- in-tree style build ---------------------------------------------------
if [ -n "$newest" ]; then
	st=$(cat "$tmp/intree.rc" 2>/dev/null || echo 1)
	[ -f "$tmp/intree/kmod/blkfloor.ko" ] || st=1
	[ "$st" = 0 ] || diag "$(tail -20 "$tmp/intree.log")"
	result "$st" "$newest: in-tree style build (make M=TOP CONFIG_BLKFLOOR=m via Kbuild) gives kmod/blkfloor.ko"
else
	skip "in-tree style build" "no kernel headers installed"
fi

# ---- KVER fallback --------------------------------------------------------
# A running kernel without headers (a VM, a container): make picks the
# newest installed headers by version, never "..", and never a build link
# left dangling by a removed kernel tree (seen: a deleted debug kernel's
# tree was chosen and plain make failed). On the real /lib/modules, and
# on a made-up module root (KROOT) with the cases side by side.
want=$(ls -d /lib/modules/*/build/Makefile 2>/dev/null | awk -F/ '{ print $(NF - 2) }' | sort -V | tail -1)
# fallback ROOT: the kernel plain make builds for with no headers for KVER.
fallback() {
	KVER=no-such-kernel make -s -n -C "$top" KROOT="$1" module 2>/dev/null |
		sed -n 's|^make -C \(.*\)/\([^/ ]*\)/build .*|\2|p' | head -1
}
got=$(fallback /lib/modules)
[ -n "$want" ] && [ "$got" = "$want" ]
st=$?
[ $st = 0 ] || diag "KVER without headers fell back to '$got', expected '$want'"
fake=$tmp/kroot
for k in 6.1.0-99-fake 6.9.0-fake 6.12.200+fake; do
	mkdir -p "$fake/$k/build" && : > "$fake/$k/build/Makefile"
done
mkdir -p "$fake/6.12.201-zz-gone" && ln -s "$tmp/deleted-tree" "$fake/6.12.201-zz-gone/build"
mkdir -p "$fake/6.13.0-noheaders/kernel"
fgot=$(fallback "$fake")
[ "$fgot" = 6.12.200+fake ] || { diag "made-up module root: fell back to '$fgot', expected 6.12.200+fake (6.12.201-zz-gone has a dangling build link, 6.13.0-noheaders none)"; st=1; }
result $st "no headers for the running kernel: KVER falls back to the newest installed ($want), skipping a dangling build link"

# ---- Kconfig ----------------------------------------------------------------
bad=0
grep -q '^config BLKFLOOR$' Kconfig || { diag "no 'config BLKFLOOR'"; bad=1; }
grep -q '^	tristate "' Kconfig || { diag "BLKFLOOR is not a tristate with a prompt"; bad=1; }
help=$(sed -n '/^	help$/,$p' Kconfig | tail -n +2 | grep -c .)
[ "$help" -ge 3 ] || { diag "help text is $help lines"; bad=1; }
grep -qE '^	depends on .*\bBLOCK\b' Kconfig || { diag "BLKFLOOR does not depend on BLOCK"; bad=1; }
grep -qE '^	depends on .*\bNET\b' Kconfig || { diag "BLKFLOOR does not depend on NET (generic netlink)"; bad=1; }
if grep -q 'crc32c(' kmod/*.c; then
	grep -qE '^	select LIBCRC32C$' Kconfig || { diag "kmod uses crc32c(): select LIBCRC32C"; bad=1; }
fi
grep -q 'obj-$(CONFIG_BLKFLOOR) += kmod/' Kbuild || { diag "top Kbuild does not descend into kmod/"; bad=1; }
result $bad "Kconfig: BLKFLOOR tristate with help, depends on BLOCK and NET, selects its crc32c"

# ---- dkms.conf ----------------------------------------------------------------
bad=0
[ "$pname" = blkfloor ] || { diag "PACKAGE_NAME is '$pname'"; bad=1; }
[ "$pver" = "$ver" ] || { diag "PACKAGE_VERSION $pver, module version $ver"; bad=1; }
[ "$mname" = blkfloor ] || { diag "BUILT_MODULE_NAME is '$mname'"; bad=1; }
[ -f "${mloc%/}/Kbuild" ] || { diag "BUILT_MODULE_LOCATION '$mloc' has no Kbuild"; bad=1; }
case $mmake in
*"M=DKMS/$pname/$pver/build/${mloc%/}"*) ;;
*) diag "MAKE does not build BUILT_MODULE_LOCATION: $mmake"; bad=1 ;;
esac
result $bad "dkms.conf: name, version ($ver) and module location match the tree"

if command -v dkms >/dev/null && [ -n "$newest" ]; then
	st=$(cat "$tmp/dkms.rc" 2>/dev/null || echo 1)
	built=$(find "$tmp/dkms/blkfloor/$pver/$newest" -name 'blkfloor.ko*' 2>/dev/null | head -1)
	[ -n "$built" ] || st=1
	[ "$st" = 0 ] || diag "$(tail -20 "$tmp/dkms.log")" "$(tail -20 "$tmp/dkms/blkfloor/$pver/build/make.log" 2>/dev/null)"
	result "$st" "$newest: dkms add and dkms build of a copy"
else
	skip "dkms add/build" "dkms is not installed"
fi
exit $rc
