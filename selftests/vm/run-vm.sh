#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh: run one shell command as root inside a QEMU guest booted on a
# Debian kernel, with the host's root shared read-only over 9p under a
# writable tmpfs overlay (so the guest runs the freshly built module, CLI and
# tests from this tree, at the same paths).
#
# usage: run-vm.sh --kver KVER [options] -- 'shell command'
#   --kver KVER        kernel to boot (/boot/vmlinuz-KVER, /lib/modules/KVER)
#   --usb SIZE[:discard]  add a USB mass-storage (BOT) disk on qemu-xhci,
#                      backed by a sparse file; ids usb0, usb1, ... (repeat)
#   --uas SIZE[:discard]  add a UAS disk (usb-uas + scsi-hd); ids uas0, ...
#   --nvme SIZE        add an emulated NVMe disk (its controller reports a
#                      temperature through the nvme hwmon); ids nvme0, ...
#   --mem MB           guest memory (default 1024)
#   --smp N            guest CPUs (default 2)
#   --timeout S        kill the guest after S seconds (default 600)
#   --share DIR        make host directory DIR writable in the guest, at
#                      the same path (everything else is a tmpfs overlay)
#   --keep             keep the run directory (disk images, logs)
#   --icount SHIFT     TCG only: the guest clock counts instructions, 2^SHIFT
#                      ns each, instead of following the host's (QEMU
#                      -icount). CPU-bound work then takes the same guest
#                      time however loaded the host is; make bench uses it
#                      to compare engines by the work they do per I/O.
#   --icount-sleep on|off  with --icount: while the guest is idle, its clock
#                      follows real time (on, the default) or jumps to the
#                      next timer's deadline (off: QEMU's sleep=off; guest
#                      timers then fire on time whatever the host's load,
#                      and idle waits take no guest time beyond them).
#   --plugin SO[,ARG=V...]  TCG only: load a QEMU TCG plugin (QEMU's
#                      -plugin), such as selftests/bench/tbprof/tbcount.so
#                      for scripts/profile-io.sh.
#
# In the guest, before the command runs:
#   - build/KVER/blkfloor.ko (if built) is installed under
#     /lib/modules/KVER/extra and depmod'ed, so 'modprobe blkfloor' works;
#   - $BLKFLOOR_RIG names the virtio-serial port of the host agent
#     (selftests/vm/rigctl.py) that throttles, models and unplugs the disks;
#   - $BLKFLOOR_VM_DIR is the host run directory (readable); the agent
#     writes a drive model's temperature to $BLKFLOOR_VM_DIR/out/temp-DEV;
#   - a USB 2 (EHCI) controller, ehci.0, with no device: the agent's
#     relink moves a usb-storage disk onto it;
#   - $BLKFLOOR_RIG_USB and $BLKFLOOR_RIG_UAS count the --usb and --uas
#     disks: a test's missing disk of a kind the rig was given is a rig
#     fault; with no --usb the tests use the USB gadget (lib.sh).
#
# $BLKFLOOR_VM_APPEND is added to the guest kernel's command line (e.g.
# "loglevel=7" to see the boot's timing on the console, with --keep).
#
# The command's output is streamed to stdout; its exit status is run-vm.sh's
# exit status. 124 means the guest timed out, 125 that it never reported a
# status (boot failure or panic: see the console log printed on stderr).
# A guest that has not started the command BLKFLOOR_BOOT_TIMEOUT seconds
# (default 300) after QEMU started hung while booting: it is booted once
# more, as one that crashed while booting is.
# Its initramfs and the accelerator it found are kept in build/vm, or in
# $BLKFLOOR_VM_CACHE (the harness's own test of guests started at once).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kver=
timeout=600
mem=1024
smp=2
keep=0
share=
icount=
icount_sleep=on
plugin=
usb=()
uas=()
nvme=()

usage() {
	sed -n '/^# usage:/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--usb) usb+=("$2"); shift 2 ;;
	--uas) uas+=("$2"); shift 2 ;;
	--nvme) nvme+=("$2"); shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--share) share=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--keep) keep=1; shift ;;
	--icount) icount=$2; shift 2 ;;
	--icount-sleep) icount_sleep=$2; shift 2 ;;
	--plugin) plugin=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$kver" ] && [ $# -ge 1 ] || usage

vmlinuz=/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || { echo "run-vm: no kernel $vmlinuz (make deps)" >&2; exit 2; }
[ -d "/lib/modules/$kver" ] || { echo "run-vm: no /lib/modules/$kver" >&2; exit 2; }

cache=${BLKFLOOR_VM_CACHE:-$top/build/vm}
mkdir -p "$cache"
dir=$(mktemp -d "$cache/run.XXXXXX")
qpid=
apid=

# stop_qemu: SIGTERM, then SIGKILL if QEMU is still there 10 s later. A
# nap SECONDS: sleep without starting a program (bash's read -t on a pipe
# no one writes to, opened once): the wait for the guest polls five times
# a second for as long as it runs, and make check runs four guests (with
# sleep(1), about 20 s of the host's CPU a make check).
nap() {
	[ -n "${napfd:-}" ] || exec {napfd}<> <(:)
	read -rt "$1" -u "$napfd" _ || :
}

# QEMU whose main loop waits for a block request that never completes
# ignores SIGTERM: usb-uas cancels a command synchronously when the guest
# aborts it or resets the device, and a command held by a throttle of
# 1 B/s never completes (Documentation/testing.rst, the bridge model).
stop_qemu() {
	local i
	kill "$qpid" 2>/dev/null || return 0
	for i in $(seq 50); do
		kill -0 "$qpid" 2>/dev/null || return 0
		nap 0.2
	done
	echo "run-vm: QEMU did not exit 10 s after SIGTERM: SIGKILL" >&2
	kill -KILL "$qpid" 2>/dev/null
}

# (A signal while cleaning up is ignored: a second SIGTERM, say from
# pkill run twice, must not end run-vm.sh between stop_qemu's SIGTERM and
# its SIGKILL and leave a wedged QEMU running on its own.)
cleanup() {
	trap '' INT TERM
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	[ -n "$qpid" ] && stop_qemu
	wait 2>/dev/null
	if [ "$keep" = 1 ]; then
		echo "run-vm: kept $dir" >&2
	else
		rm -rf "$dir"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- initramfs: busybox + the modules needed to reach the 9p root ----------
# (Guests started at once build it, and find the accelerator, one at a
# time: the others wait for the lock and find it done.)
exec {cachelock}>>"$cache/lock"
flock "$cachelock"
initrd=$cache/initrd-$kver.cpio.gz
if [ ! -s "$initrd" ] || [ "$here/run-vm.sh" -nt "$initrd" ] ||
   [ "$here/guest-init" -nt "$initrd" ]; then
	stage=$(mktemp -d "$cache/initrd.XXXXXX")
	mkdir -p "$stage"/{bin,dev,proc,sys,host,rw,newroot,out,mod}
	cp /bin/busybox "$stage/bin/busybox"
	for m in virtio_pci virtio_console 9pnet_virtio 9p overlay; do
		modprobe -S "$kver" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' > "$stage/mod/order.host"
	: > "$stage/mod/order"
	while read -r ko; do
		base=$(basename "$ko")
		case $ko in
		*.xz) xz -dc "$ko" > "$stage/mod/${base%.xz}"; base=${base%.xz} ;;
		*.zst) zstd -qdc "$ko" > "$stage/mod/${base%.zst}"; base=${base%.zst} ;;
		*) cp "$ko" "$stage/mod/$base" ;;
		esac
		echo "$base" >> "$stage/mod/order"
	done < "$stage/mod/order.host"
	cp "$here/guest-init" "$stage/init"
	chmod +x "$stage/init"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$stage.gz" &&
		mv "$stage.gz" "$initrd"
	rm -rf "$stage" "$stage.gz"
fi

# --- accelerator: KVM only if it really works (nested KVM often does not) --
accel_file=$cache/accel
if [ ! -s "$accel_file" ]; then
	accel=tcg
	if [ -w /dev/kvm ]; then
		# A kernel with no root panics and exits at once under a working
		# KVM; a broken nested KVM hangs or asserts.
		if timeout 20 qemu-system-x86_64 -accel kvm -machine q35 -m 256 \
			-nographic -nodefaults -no-reboot -serial none \
			-kernel "$vmlinuz" -append "panic=-1 root=/dev/nonexistent" \
			>/dev/null 2>&1; then
			accel=kvm
		fi
	fi
	echo "$accel" > "$accel_file"
fi
accel=$(cat "$accel_file")
exec {cachelock}>&-
cpu=max
[ "$accel" = kvm ] && cpu=host
# TCG runs the vCPUs in one thread (thread=single, not MTTCG). With a
# thread each, a vCPU can run its translation of code that another vCPU
# is patching live (text_poke_bp) and die on the int3: "Oops: int3" in
# sched_clock_cpu or __schedule, seen at boot and once as a test enabled
# a tracepoint. In one thread, a write to code drops its translations
# before any vCPU runs again. Alone, CPU-bound tests take ~10 % longer;
# beside the other guest and the host's suites, no longer.
accel_opts=$accel
[ "$accel" = tcg ] && accel_opts=tcg,thread=single
icountargs=()
if [ -n "$icount" ]; then
	[[ $icount =~ ^[0-9]+$ ]] && [ "$icount" -le 10 ] ||
		{ echo "run-vm: --icount takes a shift of 0 to 10" >&2; exit 2; }
	[ "$accel" = tcg ] ||
		{ echo "run-vm: --icount needs TCG (this host uses $accel)" >&2; exit 2; }
	[[ $icount_sleep =~ ^(on|off)$ ]] ||
		{ echo "run-vm: --icount-sleep takes on or off" >&2; exit 2; }
	# sleep=on: an idle guest still follows real time (9p, timers), and
	# a guest timer fires as late as the host wakes QEMU up. sleep=off:
	# an idle guest's clock jumps to its next timer, so timers fire on
	# time in guest time, however loaded the host is.
	icountargs=(-icount "shift=$icount,sleep=$icount_sleep")
fi
if [ -n "$plugin" ]; then
	[ "$accel" = tcg ] ||
		{ echo "run-vm: --plugin needs TCG (this host uses $accel)" >&2; exit 2; }
	icountargs+=(-plugin "$plugin")
fi

# --- the module: depmod on the host (over 9p in a TCG guest it takes minutes)
ko=$top/build/$kver/blkfloor.ko
if [ -f "$ko" ]; then
	m=$dir/mods/lib/modules/$kver
	mkdir -p "$m/extra"
	cp -as "/lib/modules/$kver/kernel" "$m/kernel"
	cp /lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} "$m/" 2>/dev/null
	cp "$ko" "$m/extra/"
	depmod -b "$dir/mods" "$kver" || { echo "run-vm: depmod failed" >&2; exit 2; }
fi

# console_text: a console log quoted in a test's diagnostics, as plain
# text: terminal escapes (ESC c, ESC [2J...) and control bytes removed,
# and the phrases at which the kernel's KTAP reader stops reading a log
# reworded (../ktap-text.sed), so that a quoted panic does not cut the
# KTAP that follows.
console_text() {
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1b.//g' | sed -f "$here/../ktap-text.sed" |
		tr -d '\000-\010\013\014\016-\037\177'
}

# --- the command, disks, devices --------------------------------------------
printf '%s\n' "$*" > "$dir/cmd.sh"
mkdir -p "$dir/out"

# An EHCI controller with no device on it: the host agent's relink plugs
# a usb-storage disk into it to emulate a link that came back at USB 2.
devs=(-device qemu-xhci,id=xhci -device usb-ehci,id=ehci)
disk_args() { # kind index spec
	local kind=$1 i=$2 spec=$3 size discard=ignore
	size=${spec%%:*}
	[ "$spec" != "$size" ] && [ "${spec#*:}" = discard ] && discard=unmap
	truncate -s "$size" "$dir/$kind$i.img" || exit 2
	local drv="if=none,id=drv-$kind$i,file=$dir/$kind$i.img,format=raw"
	drv+=",cache=unsafe,discard=$discard,aio=threads"
	devs+=(-drive "$drv")
	if [ "$kind" = nvme ]; then
		devs+=(-device "nvme,drive=drv-nvme$i,id=nvme$i,serial=BLKFLOOR-NVME$i")
	elif [ "$kind" = usb ]; then
		devs+=(-device "usb-storage,bus=xhci.0,drive=drv-usb$i,id=usb$i,serial=BLKFLOOR-USB$i")
	else
		devs+=(-device "usb-uas,bus=xhci.0,id=uasctl$i")
		devs+=(-device "scsi-hd,bus=uasctl$i.0,scsi-id=0,lun=0,drive=drv-uas$i,id=uas$i,serial=BLKFLOOR-UAS$i")
	fi
}
for i in "${!usb[@]}"; do disk_args usb "$i" "${usb[$i]}"; done
for i in "${!uas[@]}"; do disk_args uas "$i" "${uas[$i]}"; done
for i in "${!nvme[@]}"; do disk_args nvme "$i" "${nvme[$i]}"; done

# panic_on_warn: a WARN (and a KASAN report) ends the guest, which then
# reports no status: the run fails, whatever the tests said until then.
# guest-init sets it after boot on every kernel, before the command runs.
# On Debian's kernels it is on the command line too, for boot itself. Not
# on a KASAN kernel (make check-debug): there an early-boot KASAN report
# under TCG (handle_edge_irq during identify_cpu, not every boot; QEMU's,
# not blkfloor's) would panic the guest before anything is tested; and
# kasan_multi_shot, or that first report would silence every later one.
append="console=ttyS0 quiet loglevel=1 panic=-1 oops=panic"
if grep -qsx CONFIG_KASAN=y "/boot/config-$kver" "/lib/modules/$kver/build/.config"; then
	append+=" kasan_multi_shot"
else
	append+=" panic_on_warn=1"
fi
append+=" no_timer_check bfvm.dir=$dir bfvm.top=$top bfvm.kver=$kver${BLKFLOOR_VM_APPEND:+ $BLKFLOOR_VM_APPEND}"
# BLKFLOOR_RIG_BREAK=agent,disk (the harness's own test, scripts/
# test-harness.sh): no host agent port; the guest is told to expect one
# usb-storage disk more than it has.
nexp=$((${#usb[@]} + ${#uas[@]})) nusb=${#usb[@]}
case ,${BLKFLOOR_RIG_BREAK:-}, in *,disk,*) nexp=$((nexp + 1)) nusb=$((nusb + 1)) ;; esac
append+=" bfvm.disks=$nexp bfvm.usb=$nusb bfvm.uas=${#uas[@]}"
[ ${#nvme[@]} -gt 0 ] && append+=" bfvm.nvme=${#nvme[@]}"
shareargs=()
if [ -n "$share" ]; then
	shareargs=(-virtfs "local,path=$share,mount_tag=share,security_model=none")
	append+=" bfvm.share=$share"
fi

rigargs=(-chardev "socket,id=rig,path=$dir/rig.sock,server=on,wait=off"
	 -device virtserialport,chardev=rig,name=org.blkfloor.rig)
case ,${BLKFLOOR_RIG_BREAK:-}, in *,agent,*) rigargs=() ;; esac

# boot: start QEMU and the host agent, stream the guest's output, and wait
# for QEMU to end; returns 124 at the deadline, 123 at the boot deadline.
boot() {
	local append=$append
	rm -f "$dir/qmp.sock" "$dir/rig.sock" "$dir/console.log" "$dir/guest.out"
	rm -rf "$dir/out" && mkdir -p "$dir/out"
	# BLKFLOOR_RIG_BREAK=boot (test-harness.sh): the first boot finds no
	# init and panics before the command.
	# BLKFLOOR_RIG_BREAK=boothang: the first boot waits for ever for a
	# root device that never comes.
	case ,${BLKFLOOR_RIG_BREAK:-}, in
	*,boot,*) [ "${booted:-0}" != 0 ] || append+=" rdinit=/nonexistent root=/dev/nonexistent" ;;
	*,boothang,*) [ "${booted:-0}" != 0 ] || append+=" rdinit=/nonexistent root=/dev/nonexistent rootwait" ;;
	esac
	booted=$((${booted:-0} + 1))
	qemu-system-x86_64 -accel "$accel_opts" -machine q35 -cpu "$cpu" -m "$mem" \
		-smp "$smp" "${icountargs[@]}" -nographic -nodefaults -no-reboot -nic none \
		-serial "file:$dir/console.log" \
		-chardev "file,id=out,path=$dir/guest.out" \
		-device virtio-serial-pci,id=vser \
		-device virtserialport,chardev=out,name=org.blkfloor.out \
		"${rigargs[@]}" \
		-qmp "unix:$dir/qmp.sock,server=on,wait=off" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$dir/out,mount_tag=out,security_model=none" \
		"${shareargs[@]}" \
		-kernel "$vmlinuz" -initrd "$initrd" -append "$append" \
		"${devs[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	qpid=$!

	if [ -f "$here/rigctl.py" ]; then
		for _ in $(seq 50); do [ -S "$dir/qmp.sock" ] && break; nap 0.1; done
		python3 "$here/rigctl.py" --qmp "$dir/qmp.sock" --rig "$dir/rig.sock" \
			--log "$dir/rigctl.log" --temp-dir "$dir/out" </dev/null >/dev/null 2>&1 &
		apid=$!
	fi

	# Stream the guest's output while it runs; stop at the deadline, or
	# at the boot deadline if the command has not started by then.
	touch "$dir/guest.out"
	tail -n +1 -f --pid="$qpid" "$dir/guest.out" &
	tpid=$!
	local boot_deadline=$((SECONDS + ${BLKFLOOR_BOOT_TIMEOUT:-300})) started=
	while kill -0 "$qpid" 2>/dev/null; do
		if [ -z "$started" ] && [ $SECONDS -ge $boot_deadline ]; then
			if grep -q 'guest-init: command starts' "$dir/console.log"; then
				started=1
			else
				kill "$qpid" 2>/dev/null
				wait "$qpid" 2>/dev/null
				wait "$tpid" 2>/dev/null
				return 123
			fi
		fi
		if [ $SECONDS -ge $deadline ]; then
			echo "run-vm: guest ($kver) timed out after ${timeout}s" >&2
			stop_qemu
			wait "$tpid" 2>/dev/null
			tail -n 40 "$dir/console.log" >&2
			return 124
		fi
		nap 0.2
	done
	wait "$qpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	return 0
}

# A guest that crashed while booting, before guest-init started the command
# (nothing of this project ran), is booted once more. Under TCG the
# kernel's own code patching can crash a boot: "Oops: int3" in
# sched_clock_cpu from text_poke_bp, seen once in hundreds of boots, when a
# vCPU runs a stale translation of the patched instruction. A second crash,
# or any crash after the command started, is the run's failure.
# boot_again: stop the first boot's host agent and boot once more.
boot_again() {
	[ -z "$apid" ] || { kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null; apid=; }
	boot
}
deadline=$((SECONDS + timeout))
boot
st=$?
if [ $st = 123 ]; then
	echo "run-vm: the guest ($kver, $accel) hung while booting: no command started in ${BLKFLOOR_BOOT_TIMEOUT:-300}s; booting again. The end of its console:" >&2
	# (the console's last line may lack its newline)
	{ tail -n 20 "$dir/console.log"; echo; } | console_text >&2
	boot_again
	st=$?
elif [ $st = 0 ] && [ ! -s "$dir/out/rc" ] && grep -q 'Kernel panic' "$dir/console.log" &&
   ! grep -q 'guest-init: command starts' "$dir/console.log"; then
	echo "run-vm: the guest ($kver, $accel) crashed while booting, before the command started; booting again. Its console:" >&2
	grep -E 'Oops|RIP:|Kernel panic|Call Trace|^\[ *[0-9.]+\]  [a-z_]' "$dir/console.log" |
		head -n 30 | console_text >&2
	boot_again
	st=$?
fi
if [ $st = 123 ]; then
	echo "run-vm: the guest ($kver, $accel) hung while booting again; console:" >&2
	tail -n 40 "$dir/console.log" >&2
	exit 125
fi
[ $st = 124 ] && exit 124

if [ ! -s "$dir/out/rc" ]; then
	echo "run-vm: guest ($kver, $accel) ended without an exit status; console:" >&2
	# The kernel's console from where the command started (guest-init's
	# mark; warnings and errors only from there on: the splat and the
	# panic), or the end of the boot log.
	# (not anchored: the firmware's escape codes may start its line)
	if grep -q 'guest-init: command starts' "$dir/console.log"; then
		sed -n '/guest-init: command starts/,$p' "$dir/console.log" |
			awk 'NR <= 400; NR == 401 { print "run-vm: (console cut at 400 lines)" }' >&2
	else
		tail -n 60 "$dir/console.log" >&2
	fi
	grep -q 'Kernel panic' "$dir/console.log" &&
		echo "run-vm: the guest kernel panicked" >&2
	tail -n 5 "$dir/qemu.log" >&2
	exit 125
fi
rc=$(cat "$dir/out/rc")
# A command killed by a signal (the guest's OOM killer, say) leaves its
# output cut short with nothing said: say it, with the kernel's words.
if [ "$rc" -gt 128 ] 2>/dev/null; then
	echo "run-vm: the command was killed by signal $((rc - 128)) (exit $rc); the console's errors from where it started:" >&2
	sed -n '/guest-init: command starts/,$p' "$dir/console.log" |
		grep -E 'Out of memory|Killed process|oom|BUG|WARNING|Oops' | head -n 20 | console_text >&2
fi
exit "$rc"
