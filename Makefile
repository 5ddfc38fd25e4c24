# SPDX-License-Identifier: GPL-2.0
#
# blkfloor: build the module and the CLI, run the tests, install.
#
#   make                    module for the running kernel (or KVER/KDIR) + CLI
#   make KVER=6.1.0-57-amd64
#   make check              everything: host unit tests, then guest selftests
#                           on Debian's 6.1 and 6.12 kernels
#   make check-rig          the guest rig broken on purpose (too slow for
#                           check; CI runs both)
#   make check-lava         the LAVA job run by lava-run on a QEMU device
#   make demo               sustain --diagnose on an emulated UAS drive in a
#                           guest: the cause an experiment confirms
#   make deps               install what the above need (Debian packages)
#   make nlgen              regenerate the netlink code from the YNL spec

KROOT	?= /lib/modules
KVER	?= $(shell uname -r)
ifeq ($(wildcard $(KROOT)/$(KVER)/build/Makefile),)
# No headers for the running kernel (a VM or container host): fall back to
# the newest installed kernel headers (version order: 6.12 after 6.9). Only
# a build directory with a Makefile counts: a build link left dangling by
# a removed kernel tree is not headers.
KVER	:= $(shell ls -d $(KROOT)/*/build/Makefile 2>/dev/null | \
		awk -F/ '{ print $$(NF - 2) }' | sort -V | tail -1)
endif
KDIR	?= $(KROOT)/$(KVER)/build
PREFIX	?= /usr/local
DESTDIR	?=
MODDIR	?= $(KROOT)/$(KVER)/extra
BUILD	:= $(CURDIR)/build

# The kernel sources we take kselftest headers, checkpatch, ynl and the
# KTAP parser (kunit_parser.py, the judge of every make check log) from,
# and every Makefile (scripts/config-check.py reads which option builds a
# module a test loads).
KSRC_TAR := /usr/src/linux-source-6.12.tar.xz
KSRC	 := $(BUILD)/ksrc

all: module cli

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod CONFIG_BLKFLOOR=m modules

# Build against one kernel into build/KVER/ (W=1, and sparse with C=1).
module-%:
	@scripts/build-module.sh $*

cli:
	$(MAKE) -C user

# Regenerate include/uapi/linux/blkfloor.h and kmod/nl_spec.[ch] from the
# YNL spec with the kernel's ynl-gen-c (commit the result).
nlgen:
	@scripts/nlgen.sh

# (the stamp's name changes when the list does)
ksrc: $(KSRC)/.stamp-5
$(KSRC)/.stamp-5: | $(KSRC_TAR)
	@mkdir -p $(KSRC)
	tar -xf $(KSRC_TAR) -C $(KSRC) --strip-components=1 --wildcards \
		'*/tools/testing/selftests/kselftest.h' \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/Makefile' \
		'*/tools/testing/selftests/lib.mk' \
		'*/tools/testing/selftests/run_kselftest.sh' \
		'*/tools/testing/selftests/kselftest/*' \
		'*/tools/testing/kunit/kunit_parser.py' \
		'*/tools/testing/kunit/kunit_printer.py' \
		'*/scripts/subarch.include' \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' '*/tools/net/ynl' \
		'*/Documentation/netlink/genetlink*.yaml' '*/MAINTAINERS' \
		'*/Makefile'
	@touch $@

$(KSRC_TAR):
	scripts/deps.sh

deps:
	@scripts/deps.sh

check:
	@scripts/check.sh

# The rig's own failures (nine guests broken on purpose): CI runs it after
# check.
check-rig:
	@scripts/check.sh rig

# The LAVA job (selftests/lava/) through LAVA's own dispatcher, lava-run,
# on a QEMU device here; installs lava-dispatcher first.
check-lava:
	@scripts/check.sh lava

# Not part of check: builds a KASAN/lockdep/kmemleak 6.12 kernel first.
check-debug:
	@scripts/debug-kernel.sh

# Not part of check: a real driver A/B, uas.ko variants built from
# linux-source-6.12 and compared in 6.12 guests (about 4 minutes once built).
check-ab:
	@scripts/check-ab.sh

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh

# Guest instructions per I/O by function, blkfloor beside bare (TCG only).
profile:
	@scripts/profile-io.sh

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod CONFIG_BLKFLOOR=m \
		INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=extra modules_install
	-depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	install -D -m 0755 user/blkfloor $(DESTDIR)$(PREFIX)/sbin/blkfloor
	install -D -m 0644 user/blkfloor.8 $(DESTDIR)$(PREFIX)/share/man/man8/blkfloor.8
	install -D -m 0644 include/uapi/linux/blkfloor.h \
		$(DESTDIR)$(PREFIX)/include/linux/blkfloor.h
	install -D -m 0644 include/uapi/linux/blkfloor_verify.h \
		$(DESTDIR)$(PREFIX)/include/linux/blkfloor_verify.h

uninstall:
	rm -f $(DESTDIR)$(MODDIR)/blkfloor.ko* $(DESTDIR)$(PREFIX)/sbin/blkfloor \
		$(DESTDIR)$(PREFIX)/share/man/man8/blkfloor.8 \
		$(DESTDIR)$(PREFIX)/include/linux/blkfloor.h \
		$(DESTDIR)$(PREFIX)/include/linux/blkfloor_verify.h
	-depmod $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	$(MAKE) -C user clean
	rm -rf $(BUILD)

.PHONY: all module cli nlgen ksrc deps check check-rig check-lava check-debug check-ab demo bench profile install uninstall clean
