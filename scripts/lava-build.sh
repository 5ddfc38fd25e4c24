#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-build.sh [KVER] [OUT]: the three files selftests/lava/qemu-job.yaml
# deploys, built here into OUT (default build/lava):
#   vmlinuz           Debian's kernel, /boot/vmlinuz-KVER (default: the
#                     newest 6.12 installed);
#   ramdisk.cpio.gz   a root file system in an initramfs: the programs the
#                     tests run (bash, coreutils, util-linux, kmod, python3
#                     with PyYAML, iproute2, dmsetup, e2fsprogs, ...),
#                     copied with their dependencies from this machine's
#                     Debian packages; the kernel modules the tests load
#                     and their dependencies; blkfloor.ko (built for KVER)
#                     and the blkfloor CLI, installed as make install
#                     does; an /init that mounts what the tests need and
#                     gives LAVA a root shell on the serial console;
#   kselftest.tar.gz  the kselftest tarball (make -C tools/testing/
#                     selftests TARGETS=drivers/block/blkfloor gen_tar),
#                     from scripts/test-kselftest.sh's scratch kernel tree
#                     (run it first: make check-lava does).
# The job unpacks the tarball at /opt/kselftest and adds LAVA's own test
# shell to the ramdisk (overlays); nothing else is fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
kver=${1:-$(ls -d /lib/modules/6.12.*+deb12-amd64 2>/dev/null | xargs -n1 basename | sort -V | tail -1)}
out=${2:-$top/build/lava}
[ -n "$kver" ] && [ -f "/boot/vmlinuz-$kver" ] || { echo "lava-build: no /boot/vmlinuz-$kver" >&2; exit 1; }
tarball=$top/build/kselftest/tar/kselftest-packages/kselftest.tar.gz
[ -f "$tarball" ] || { echo "lava-build: no $tarball (scripts/test-kselftest.sh)" >&2; exit 1; }

make -s -C user >/dev/null
[ -f "build/$kver/blkfloor.ko" ] || scripts/build-module.sh "$kver" >/dev/null

# The Debian packages whose files the tests' programs are, and their
# dependencies (installed ones; the first installed choice of an "a | b").
# Not dpkg, debconf or perl: nothing here installs packages, and the
# kselftest runner does without perl.
pkgs=(busybox-static bash dash coreutils util-linux mount bsdutils kmod grep sed mawk
      findutils procps iproute2 dmsetup e2fsprogs tar gzip diffutils
      python3.11-minimal libpython3.11-stdlib python3-yaml
      libnl-3-200 libnl-genl-3-200)
exclude=dpkg,debconf,perl-base,perl,gawk,tzdata,init-system-helpers,libc-bin
# Modules the tests load (modprobe in lib.sh and the tests), with theirs.
mods=(null_blk scsi_debug sd_mod dm-mod dm-flakey dm-thin-pool dm-delay loop
      dummy_hcd libcomposite usb_f_mass_storage usb-storage uas ext4)

work=$(mktemp -d "$top/build/lava-root.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,run,root,opt,etc,var/tmp}
# Debian 12's merged /usr
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done

python3 - "$exclude" "${pkgs[@]}" > "$work/pkgs" <<'PY'
import subprocess, sys
out = subprocess.run(["dpkg-query", "-W", "-f",
                      "${Package}\t${Status}\t${Provides}\n"],
                     capture_output=True, text=True, check=True).stdout
installed, provides = set(), {}
for line in out.splitlines():
    p, st, prov = line.split("\t")
    if "ok installed" not in st:
        continue
    installed.add(p)
    for x in prov.split(","):
        x = x.strip().split(" ")[0]
        if x:
            provides.setdefault(x, []).append(p)

def deps(p):
    out = subprocess.run(["dpkg-query", "-W", "-f",
                          "${Depends}, ${Pre-Depends}", p],
                         capture_output=True, text=True, check=True).stdout
    for alt in out.split(","):
        for a in alt.split("|"):
            n = a.strip().split(" ")[0].split(":")[0]
            if n in installed:
                yield n
                break
            if n in provides:
                yield provides[n][0]
                break

exclude = set(sys.argv[1].split(","))
todo, seen = list(sys.argv[2:]), set()
for p in todo:
    if p not in installed:
        sys.exit("lava-build: package %s is not installed" % p)
while todo:
    p = todo.pop()
    if p in seen or p in exclude:
        continue
    seen.add(p)
    todo.extend(deps(p))
print("\n".join(sorted(seen)))
PY
# Their files (not documentation, manuals or translations), through tar
# so that /bin and friends stay the symlinks into /usr.
while read -r p; do
	dpkg -L "$p"
done < "$work/pkgs" | grep '^/' | grep -vE '^/usr/share/(doc|man|info|locale|lintian|bug)/' |
	sort -u | while read -r f; do
		if [ -f "$f" ] || [ -L "$f" ]; then printf '%s\n' "${f#/}"; fi
	done > "$work/files"
tar -C / --no-recursion -cf - -T "$work/files" |
	tar -C "$root" --keep-directory-symlink -xf -
ln -sf mawk "$root/usr/bin/awk"
ln -sf dash "$root/usr/bin/sh"
ln -sf python3.11 "$root/usr/bin/python3"

# Modules: the closure of $mods, the module index, blkfloor.ko in extra/.
M=/lib/modules/$kver
for m in "${mods[@]}"; do
	modprobe -S "$kver" --show-depends "$m" ||
		{ echo "lava-build: no module $m for $kver" >&2; exit 1; }
done | awk '$1 == "insmod" { print $2 }' | sort -u > "$work/mods"
while read -r f; do
	mkdir -p "$root$(dirname "$f")"
	cp "$f" "$root$f"
done < "$work/mods"
cp "$M"/modules.order "$M"/modules.builtin "$M"/modules.builtin.modinfo "$root$M/"
install -D -m 0644 "build/$kver/blkfloor.ko" "$root$M/extra/blkfloor.ko"
depmod -b "$root" "$kver"

# The CLI, as make install puts it.
install -D -m 0755 user/blkfloor "$root/usr/local/sbin/blkfloor"

# Who the tests run as (setpriv --reuid=65534), and where they look.
cat > "$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat > "$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
echo blkfloor-lava > "$root/etc/hostname"
: > "$root/etc/fstab"

# /init: what the tests need mounted, then a root shell on the console for
# LAVA (its prompt is the job's boot prompt).
cat > "$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox mkdir -p /dev/pts /dev/shm
/bin/busybox mount -t devpts devpts /dev/pts
/bin/busybox mount -t tmpfs tmpfs /dev/shm
/bin/busybox mount -t tmpfs tmpfs /tmp
/bin/busybox mount -t tmpfs tmpfs /run
/bin/busybox mount -t configfs configfs /sys/kernel/config
/bin/busybox mount -t debugfs debugfs /sys/kernel/debug
# (as systemd and udev make them: the kselftest runner writes each test's
# output to /dev/stdout, bash's <(...) opens /dev/fd/N)
/bin/busybox ln -sf /proc/self/fd /dev/fd
/bin/busybox ln -sf /proc/self/fd/0 /dev/stdin
/bin/busybox ln -sf /proc/self/fd/1 /dev/stdout
/bin/busybox ln -sf /proc/self/fd/2 /dev/stderr
/bin/busybox hostname blkfloor-lava
echo /usr/sbin/modprobe > /proc/sys/kernel/modprobe
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
cd /root
echo "blkfloor-lava: $(uname -r), root shell on the console"
exec /bin/busybox setsid /bin/busybox cttyhack /bin/bash -l
EOF
chmod 0755 "$root/init"
printf 'PS1="blkfloor-lava# "\n' > "$root/root/.bashrc"
cp "$root/root/.bashrc" "$root/root/.profile"

mkdir -p "$out"
( cd "$root" && find . -print0 | cpio --null -o -H newc --quiet ) | gzip -1 > "$out/ramdisk.cpio.gz.tmp"
mv "$out/ramdisk.cpio.gz.tmp" "$out/ramdisk.cpio.gz"
cp "/boot/vmlinuz-$kver" "$out/vmlinuz"
cp "$tarball" "$out/kselftest.tar.gz"
echo "lava-build: $out: vmlinuz ($kver), ramdisk.cpio.gz ($(du -k "$out/ramdisk.cpio.gz" | cut -f1) KiB: $(wc -l < "$work/pkgs") packages, $(wc -l < "$work/mods") modules, blkfloor.ko, the CLI), kselftest.tar.gz"
