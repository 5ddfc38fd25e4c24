/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device identity from sysfs: model, vendor, serial and the transport the
 * block device sits on. Every path starts at a sysfs root prefix ("/sys" in
 * real use, a temporary tree in the unit tests).
 */
#ifndef BLKFLOOR_DEVINFO_H
#define BLKFLOOR_DEVINFO_H

#include <stddef.h>

struct bf_devinfo {
	char name[64];		/* "sda" */
	char model[128];
	char vendor[64];
	char serial[128];
	char transport[32];	/* "uas", "usb-storage", "nvme", "sata", ... */
	char driver[64];	/* SCSI host proc_name or block driver, if known */
};

/*
 * Fill @di for block device @name ("sda", "nullb0"; a partition resolves to
 * its disk). Fields that cannot be read are "" (transport: "unknown").
 * @sysroot is "/sys" (or a test tree's "ROOT/sys"); the block majors are
 * read from the proc/devices beside it ("/proc/devices"). The serial is the
 * SCSI unit serial (VPD page 0x80), the device's serial attribute, or the
 * USB device's serial, in that order.
 * Returns 0, or -ENOENT when @name does not exist under @sysroot.
 */
int bf_devinfo_read(const char *sysroot, const char *name,
		    struct bf_devinfo *di);

/* "sdb" from "/dev/sdb" (symlinks resolved). */
void bf_dev_basename(const char *dev, char *buf, size_t len);

#endif /* BLKFLOOR_DEVINFO_H */
