// SPDX-License-Identifier: GPL-2.0
/*
 * What tells boots and module builds apart, and the CPU the host gave a
 * run, read from fake proc and sysfs trees: the boot id, the kernel's
 * taint, the path's modules (the drivers up the device's sysfs chain and
 * the USB storage modules) with their srcversion or build ID and taint,
 * /proc/stat's steal time and a kthread's schedstat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the harness and FIXTURE define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "faketree.h"
#include "hostinfo.h"

/*
 * A UAS disk: sd at the SCSI device, uas at the interface, usbcore's
 * "usb" at the USB device, xhci_hcd (module xhci_pci) at the PCI device.
 * uas has no srcversion (Debian's modules have none) but a build ID and
 * taint OE; sd_mod has a srcversion; usb_storage is loaded; xhci_hcd is
 * built in (no initstate).
 */
#define NOTE(hex) "printf '\\004\\000\\000\\000\\024\\000\\000\\000\\003\\000\\000\\000GNU\\000" hex "' "
#define TREE \
	"D=devices/pci0000:00/0000:00:04.0/usb2/2-2/2-2:1.0/host7/target7:0:0/7:0:0:0; " \
	"mkdir -p $D/block/sda class/block bus/scsi/drivers/sd bus/usb/drivers/uas " \
	"  bus/usb/drivers/usb bus/pci/drivers/xhci_hcd " \
	"  module/sd_mod module/uas/notes module/usb_storage module/usbcore " \
	"  module/xhci_pci module/xhci_hcd/parameters && " \
	"P=devices/pci0000:00/0000:00:04.0; " \
	"ln -s $PWD/$D/block/sda class/block/sda && " \
	"ln -s $PWD/bus/scsi/drivers/sd $D/driver && " \
	"ln -s $PWD/bus/usb/drivers/uas $P/usb2/2-2/2-2:1.0/driver && " \
	"ln -s $PWD/bus/usb/drivers/usb $P/usb2/2-2/driver && " \
	"ln -s $PWD/bus/pci/drivers/xhci_hcd $P/driver && " \
	"ln -s $PWD/module/sd_mod bus/scsi/drivers/sd/module && " \
	"ln -s $PWD/module/uas bus/usb/drivers/uas/module && " \
	"ln -s $PWD/module/usbcore bus/usb/drivers/usb/module && " \
	"ln -s $PWD/module/xhci_pci bus/pci/drivers/xhci_hcd/module && " \
	"for m in sd_mod uas usb_storage usbcore xhci_pci; do echo live > module/$m/initstate; done && " \
	"echo 5F0E8A1C2B3D4E5F60718293 > module/sd_mod/srcversion && " \
	"echo OE > module/uas/taint && : > module/sd_mod/taint && " \
	NOTE("\\170\\135\\051\\357\\057\\341\\242\\001\\002\\003\\004\\005\\006\\007\\010\\011\\012\\013\\014\\015") \
	"> module/uas/notes/.note.gnu.build-id && " \
	"mkdir -p ../proc/sys/kernel/random ../proc/42 ../proc/43 && " \
	"echo 2a1c1e44-0c4c-4d1e-9a8e-6b1f0f6b7a01 > ../proc/sys/kernel/random/boot_id && " \
	"echo 12288 > ../proc/sys/kernel/tainted && " \
	"echo 'cpu  100 0 50 800 10 0 5 35 0 0' > ../proc/stat && " \
	"echo kworker/0:1 > ../proc/42/comm && echo blkfloor/7 > ../proc/43/comm && " \
	"echo '250000000 10000000 40' > ../proc/43/schedstat"

FAKETREE_FIXTURE(TREE)

TEST_F(sysfs, boot_taint_and_path_modules)
{
	char proc[96];
	struct bf_hostid h;

	snprintf(proc, sizeof(proc), "%s/proc", self->root);
	bf_hostid_read(proc, self->sys, "sda", &h);
	EXPECT_STREQ("2a1c1e44-0c4c-4d1e-9a8e-6b1f0f6b7a01", h.boot_id);
	EXPECT_STREQ("12288", h.tainted);
	/* sorted; xhci_hcd is built in: not listed */
	EXPECT_STREQ("sd_mod 5F0E8A1C2B3D4E5F60718293, uas 785d29ef2fe1 OE, "
		     "usb_storage ?, usbcore ?, xhci_pci ?", h.modules);
}

TEST_F(sysfs, no_disk_still_names_the_usb_modules)
{
	char proc[96];
	struct bf_hostid h;

	snprintf(proc, sizeof(proc), "%s/proc", self->root);
	bf_hostid_read(proc, self->sys, "nosuch", &h);
	EXPECT_STREQ("sd_mod 5F0E8A1C2B3D4E5F60718293, uas 785d29ef2fe1 OE, "
		     "usb_storage ?", h.modules);
}

TEST_F(sysfs, host_cpu)
{
	char proc[96], line[160];
	struct bf_hostcpu a, b;
	int pid;

	snprintf(proc, sizeof(proc), "%s/proc", self->root);
	pid = bf_find_kthread(proc, "blkfloor/7");
	EXPECT_EQ(43, pid);
	EXPECT_EQ(0, bf_find_kthread(proc, "blkfloor/8"));
	bf_hostcpu_read(proc, pid, &b);
	ASSERT_TRUE(b.have_stat);
	EXPECT_EQ(35ULL, b.steal);
	EXPECT_EQ(1000ULL, b.total);
	ASSERT_TRUE(b.have_thread);
	EXPECT_EQ(250000000ULL, b.run_ns);
	memset(&a, 0, sizeof(a));
	a.have_stat = a.have_thread = true;
	a.steal = 10;
	a.total = 500;
	ASSERT_TRUE(bf_hostcpu_line(&a, &b, 8, line, sizeof(line)));
	EXPECT_STREQ("steal_pct=5.0 thread_cpu_s=0.250 thread_wait_s=0.010 run_s=8.000",
		     line);
	a.have_thread = false;
	ASSERT_TRUE(bf_hostcpu_line(&a, &b, 8, line, sizeof(line)));
	EXPECT_STREQ("steal_pct=5.0 run_s=8.000", line);
	a.have_stat = false;
	EXPECT_FALSE(bf_hostcpu_line(&a, &b, 8, line, sizeof(line)));
}

TEST(parsers)
{
	static const struct {
		const char *text;
		bool ok;
		unsigned long long steal, total;
	} st[] = {
		{ "cpu  100 0 50 800 10 0 5 35 0 0\n", true, 35, 1000 },
		{ "cpu  100 0 50 800\n", true, 0, 950 },	/* old kernels */
		{ "cpu0 100 0 50 800 10 0 5 35 0 0\n", false, 0, 0 },
		{ "intr 1 2 3\n", false, 0, 0 },
	};
	uint64_t s, t, r, w;
	unsigned char note[] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N',
				 'U', 0, 0xab, 0xcd, 0xef, 1, 2, 3, 4, 5, 6,
				 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 };
	char hex[16];

	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		s = t = 0;
		EXPECT_EQ(st[i].ok, bf_procstat_parse(st[i].text, &s, &t))
			TH_LOG("%s", st[i].text);
		if (st[i].ok) {
			EXPECT_EQ(st[i].steal, s);
			EXPECT_EQ(st[i].total, t);
		}
	}
	EXPECT_TRUE(bf_schedstat_parse("250000000 10000000 40\n", &r, &w));
	EXPECT_EQ(10000000ULL, w);
	EXPECT_FALSE(bf_schedstat_parse("x\n", &r, &w));
	EXPECT_TRUE(bf_build_id_hex(note, sizeof(note), hex, sizeof(hex)));
	EXPECT_STREQ("abcdef010203", hex);
	EXPECT_FALSE(bf_build_id_hex(note, 20, hex, sizeof(hex)));
	note[8] = 1;	/* not NT_GNU_BUILD_ID */
	EXPECT_FALSE(bf_build_id_hex(note, sizeof(note), hex, sizeof(hex)));
}

TEST_HARNESS_MAIN
