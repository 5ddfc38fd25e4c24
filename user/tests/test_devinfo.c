// SPDX-License-Identifier: GPL-2.0
/*
 * Device identity and transport, read from a fake sysfs tree in a temporary
 * directory shaped like the real one (class/block symlinks into devices/).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the harness and its fixture macros define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "devinfo.h"
#include "faketree.h"

#define USB "devices/pci0000:00/0000:00:04.0/usb2/2-1"
#define UAS_DISK USB "/2-1:1.0/host2/target2:0:0/2:0:0:0"
#define BOT USB "/2-2"
#define BOT_DISK BOT "/2-2:1.0/host4/target4:0:0/4:0:0:0"
#define UAS2 USB "/2-3"
#define UAS2_DISK UAS2 "/2-3:1.0/host5/target5:0:0/5:0:0:0"

static const char *const tree =
	/* UAS disk sdb with a partition, SCSI host proc_name uas */
	"mkdir -p " UAS_DISK "/block/sdb/sdb1 class/block class/scsi_host/host2 &&"
	"printf 'QEMU HARDDISK   \\n' > " UAS_DISK "/model &&"
	"printf 'QEMU    \\n' > " UAS_DISK "/vendor &&"
	"ln -s ../../../2:0:0:0 " UAS_DISK "/block/sdb/device &&"
	"touch " UAS_DISK "/block/sdb/sdb1/partition &&"
	"printf '0627\\n' > " USB "/idVendor &&"
	"printf 'BLKFLOOR-UAS0\\n' > " USB "/serial &&"
	"printf 'uas\\n' > class/scsi_host/host2/proc_name &&"
	"ln -s ../../" UAS_DISK "/block/sdb class/block/sdb &&"
	"ln -s ../../" UAS_DISK "/block/sdb/sdb1 class/block/sdb1 &&"
	/* BOT disk sdd: no proc_name, only the interface driver link */
	"mkdir -p " BOT_DISK "/block/sdd bus/usb/drivers/usb-storage &&"
	"printf '0781\\n' > " BOT "/idVendor &&"
	"printf 'Flash Drive\\n' > " BOT "/product &&"
	"ln -s ../../../../../../bus/usb/drivers/usb-storage " BOT "/2-2:1.0/driver &&"
	"ln -s ../../" BOT_DISK "/block/sdd class/block/sdd &&"
	/* NVMe */
	"mkdir -p devices/pci0000:00/0000:00:05.0/nvme/nvme0/nvme0n1 &&"
	"printf 'Samsung SSD 980 1TB\\n' > devices/pci0000:00/0000:00:05.0/nvme/nvme0/model &&"
	"printf 'S64ANS0T123456  \\n' > devices/pci0000:00/0000:00:05.0/nvme/nvme0/serial &&"
	"ln -s .. devices/pci0000:00/0000:00:05.0/nvme/nvme0/nvme0n1/device &&"
	"ln -s ../../devices/pci0000:00/0000:00:05.0/nvme/nvme0/nvme0n1 class/block/nvme0n1 &&"
	/* null_blk */
	"mkdir -p devices/virtual/block/nullb0 &&"
	"ln -s ../../devices/virtual/block/nullb0 class/block/nullb0 &&"
	/* scsi_debug */
	"mkdir -p devices/pseudo_0/adapter0/host3/target3:0:0/3:0:0:0/block/sdc class/scsi_host/host3 &&"
	"printf 'scsi_debug\\n' > class/scsi_host/host3/proc_name &&"
	"ln -s ../../devices/pseudo_0/adapter0/host3/target3:0:0/3:0:0:0/block/sdc class/block/sdc &&"
	/* SATA through ahci */
	"mkdir -p devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda class/scsi_host/host0 &&"
	"printf 'ahci\\n' > class/scsi_host/host0/proc_name &&"
	"ln -s ../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda class/block/sda &&"
	/* null_blk made through configfs: named after its directory */
	"mkdir -p devices/virtual/block/bfcli2 &&"
	"printf '252:1\\n' > devices/virtual/block/bfcli2/dev &&"
	"ln -s ../../devices/virtual/block/bfcli2 class/block/bfcli2 &&"
	"mkdir -p ../proc && printf 'Character devices:\\n  1 mem\\n\\nBlock devices:\\n  8 sd\\n252 nullb\\n253 virtblk\\n' > ../proc/devices &&"
	/* 6.12 uas: proc_name reads (null); the interface driver says uas;
	 * the SCSI unit serial is in VPD page 0x80 */
	"mkdir -p " UAS2_DISK "/block/sde class/scsi_host/host5 bus/usb/drivers/uas &&"
	"printf '(null)\\n' > class/scsi_host/host5/proc_name &&"
	"ln -s ../../../../../../bus/usb/drivers/uas " UAS2 "/2-3:1.0/driver &&"
	"printf '0627\\n' > " UAS2 "/idVendor &&"
	"printf '27842-0000:00:04.0-3\\n' > " UAS2 "/serial &&"
	"printf '\\000\\200\\000\\015BLKFLOOR-UAS0' > " UAS2_DISK "/vpd_pg80 &&"
	"ln -s ../../../5:0:0:0 " UAS2_DISK "/block/sde/device &&"
	"ln -s ../../" UAS2_DISK "/block/sde class/block/sde &&"
	/* virtio_blk */
	"mkdir -p devices/pci0000:00/0000:00:03.0/virtio0/block/vda &&"
	"ln -s ../../devices/pci0000:00/0000:00:03.0/virtio0/block/vda class/block/vda";

FAKETREE_FIXTURE(tree)

TEST_F(sysfs, uas)
{
	struct bf_devinfo di;

	ASSERT_EQ(0, bf_devinfo_read(self->sys, "sdb", &di));
	EXPECT_STREQ("uas", di.transport);
	EXPECT_STREQ("uas", di.driver);
	EXPECT_STREQ("QEMU HARDDISK", di.model);
	EXPECT_STREQ("QEMU", di.vendor);
	EXPECT_STREQ("BLKFLOOR-UAS0", di.serial);	/* from the USB device */
	EXPECT_STREQ("sdb", di.name);
}

TEST_F(sysfs, partition_resolves_to_disk)
{
	struct bf_devinfo di;

	ASSERT_EQ(0, bf_devinfo_read(self->sys, "sdb1", &di));
	EXPECT_STREQ("sdb", di.name);
	EXPECT_STREQ("uas", di.transport);
	EXPECT_STREQ("QEMU HARDDISK", di.model);
}

TEST_F(sysfs, usb_storage_by_interface_driver)
{
	struct bf_devinfo di;

	ASSERT_EQ(0, bf_devinfo_read(self->sys, "sdd", &di));
	EXPECT_STREQ("usb-storage", di.transport);
	EXPECT_STREQ("Flash Drive", di.model);	/* USB product string */
}

TEST_F(sysfs, others)
{
	static const char *const want[][2] = {
		{ "nvme0n1", "nvme" },
		{ "nullb0", "null_blk" },
		{ "sdc", "scsi_debug" },
		{ "sda", "sata" },
		{ "vda", "virtio_blk" },
	};
	struct bf_devinfo di;
	unsigned int i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ASSERT_EQ(0, bf_devinfo_read(self->sys, want[i][0], &di));
		EXPECT_STREQ(want[i][1], di.transport) TH_LOG("%s", want[i][0]);
	}
	ASSERT_EQ(0, bf_devinfo_read(self->sys, "nvme0n1", &di));
	EXPECT_STREQ("Samsung SSD 980 1TB", di.model);
	EXPECT_STREQ("S64ANS0T123456", di.serial);
}

TEST_F(sysfs, null_blk_by_major)
{
	struct bf_devinfo di;

	ASSERT_EQ(0, bf_devinfo_read(self->sys, "bfcli2", &di));
	EXPECT_STREQ("null_blk", di.transport);
}

TEST_F(sysfs, uas_without_proc_name)
{
	struct bf_devinfo di;

	ASSERT_EQ(0, bf_devinfo_read(self->sys, "sde", &di));
	EXPECT_STREQ("uas", di.transport);
	EXPECT_STREQ("uas", di.driver);
	EXPECT_STREQ("BLKFLOOR-UAS0", di.serial);	/* VPD 0x80 first */
}

TEST_F(sysfs, missing)
{
	struct bf_devinfo di;

	EXPECT_EQ(-ENOENT, bf_devinfo_read(self->sys, "sdz", &di));
	EXPECT_STREQ("unknown", di.transport);
}

TEST_HARNESS_MAIN
