// SPDX-License-Identifier: GPL-2.0
/*
 * Device identity and transport from sysfs.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "devinfo.h"
#include "sysfs.h"

static bool prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/*
 * The SCSI host ("host3") in a resolved device path, or -1.
 */
static int scsi_host(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, "/host"))) {
		char *end;
		long n = strtol(p + 5, &end, 10);

		if (end != p + 5 && (*end == '/' || !*end))
			return (int)n;
		p += 5;
	}
	return -1;
}

/* Driver of the USB interface that holds @path (e.g. "uas"). */
static void usb_intf_driver(const char *path, char *buf, size_t len)
{
	char cur[PATH_MAX];
	char *slash;

	buf[0] = '\0';
	bf_fmt(cur, sizeof(cur), "%s", path);
	while ((slash = strrchr(cur, '/'))) {
		*slash = '\0';
		/* an interface directory: "2-1:1.0" */
		if (strchr(slash + 1, ':') && strchr(slash + 1, '-') &&
		    strchr(slash + 1, '.')) {
			char d[PATH_MAX];

			bf_fmt(d, sizeof(d), "%s/%s", cur, slash + 1);
			bf_sysfs_link_base(d, "driver", buf, len);
			if (buf[0])
				return;
		}
	}
}

/*
 * Name under which the block major of @real_dir ("MAJ:MIN" in its dev file)
 * is registered, from the proc/devices beside @sysroot ("/sys" ->
 * "/proc/devices"); "" if unknown.
 */
static void major_name(const char *sysroot, const char *real_dir, char *buf,
		       size_t len)
{
	char path[PATH_MAX], dev[32], line[128], name[64];
	bool block = false;
	unsigned int maj, m;
	const char *slash;
	FILE *f;

	buf[0] = '\0';
	bf_sysfs_str(real_dir, "dev", dev, sizeof(dev));
	if (sscanf(dev, "%u:", &maj) != 1)
		return;
	slash = strrchr(sysroot, '/');
	bf_fmt(path, sizeof(path), "%.*s/proc/devices",
	    slash ? (int)(slash - sysroot) : 0, sysroot);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Block devices:", 14))
			block = true;
		else if (block && sscanf(line, "%u %63s", &m, name) == 2 &&
			 m == maj) {
			bf_fmt(buf, len, "%s", name);
			break;
		}
	}
	fclose(f);
}

/* SCSI unit serial number (VPD page 0x80): 4-byte header, then ASCII. */
static void vpd_serial(const char *dev_dir, char *buf, size_t len)
{
	char path[PATH_MAX];
	unsigned char raw[256];
	size_t n, i, o = 0;
	FILE *f;

	buf[0] = '\0';
	bf_fmt(path, sizeof(path), "%s/vpd_pg80", dev_dir);
	f = fopen(path, "rb");
	if (!f)
		return;
	n = fread(raw, 1, sizeof(raw), f);
	fclose(f);
	if (n <= 4 || raw[1] != 0x80)
		return;
	for (i = 4; i < n && o + 1 < len; i++) {
		if (raw[i] < 0x20 || raw[i] > 0x7e)
			break;
		if (raw[i] == ' ' && (!o || i + 1 == n))
			continue;
		buf[o++] = raw[i];
	}
	while (o && buf[o - 1] == ' ')
		o--;
	buf[o] = '\0';
}

int bf_devinfo_read(const char *sysroot, const char *name,
		    struct bf_devinfo *di)
{
	char cls[PATH_MAX], real[PATH_MAX], dev[PATH_MAX], tmp[PATH_MAX];
	char major[64];
	int host;

	memset(di, 0, sizeof(*di));
	bf_fmt(di->transport, sizeof(di->transport), "unknown");
	bf_fmt(di->name, sizeof(di->name), "%s", name);
	bf_fmt(cls, sizeof(cls), "%s/class/block/%s", sysroot, name);
	if (!realpath(cls, real))
		return -ENOENT;
	/* a partition: use its disk */
	if (bf_sysfs_exists(real, "partition")) {
		char *slash = strrchr(real, '/');

		if (slash) {
			*slash = '\0';
			slash = strrchr(real, '/');
			if (slash)
				bf_fmt(di->name, sizeof(di->name), "%s",
					 slash + 1);
		}
	}
	bf_fmt(dev, sizeof(dev), "%s/device", real);
	bf_sysfs_str(dev, "model", di->model, sizeof(di->model));
	bf_sysfs_str(dev, "vendor", di->vendor, sizeof(di->vendor));
	vpd_serial(dev, di->serial, sizeof(di->serial));
	if (!di->serial[0])
		bf_sysfs_str(dev, "serial", di->serial, sizeof(di->serial));
	if (!di->serial[0])
		bf_sysfs_str(real, "serial", di->serial, sizeof(di->serial));

	host = scsi_host(real);
	if (host >= 0) {
		bf_fmt(tmp, sizeof(tmp), "%s/class/scsi_host/host%d", sysroot,
			 host);
		bf_sysfs_str(tmp, "proc_name", di->driver, sizeof(di->driver));
		/* hosts without a proc_name (uas on 6.12) read "(null)" */
		if (!strcmp(di->driver, "(null)"))
			di->driver[0] = '\0';
	}
	major_name(sysroot, real, major, sizeof(major));

	if (prefix(di->name, "nullb") || !strcmp(major, "nullb")) {
		bf_fmt(di->transport, sizeof(di->transport), "null_blk");
	} else if (strstr(real, "/usb")) {
		char usb[PATH_MAX];

		if (!di->driver[0])
			usb_intf_driver(real, di->driver, sizeof(di->driver));
		if (!strcmp(di->driver, "uas"))
			bf_fmt(di->transport, sizeof(di->transport), "uas");
		else if (!strcmp(di->driver, "usb-storage"))
			bf_fmt(di->transport, sizeof(di->transport),
				 "usb-storage");
		else
			bf_fmt(di->transport, sizeof(di->transport), "usb");
		if (bf_sysfs_up_to(sysroot, real, "idVendor", usb,
				   sizeof(usb))) {
			if (!di->serial[0])
				bf_sysfs_str(usb, "serial", di->serial,
					     sizeof(di->serial));
			if (!di->model[0])
				bf_sysfs_str(usb, "product", di->model,
					  sizeof(di->model));
			if (!di->vendor[0])
				bf_sysfs_str(usb, "manufacturer", di->vendor,
					  sizeof(di->vendor));
		}
	} else if (prefix(di->name, "nvme") || strstr(real, "/nvme")) {
		bf_fmt(di->transport, sizeof(di->transport), "nvme");
	} else if (!strcmp(major, "virtblk") ||
		   (prefix(di->name, "vd") && strstr(real, "/virtio"))) {
		bf_fmt(di->transport, sizeof(di->transport), "virtio_blk");
	} else if (!strcmp(di->driver, "scsi_debug")) {
		bf_fmt(di->transport, sizeof(di->transport), "scsi_debug");
	} else if (strstr(real, "/ata")) {
		bf_fmt(di->transport, sizeof(di->transport), "sata");
	} else if (prefix(di->name, "loop")) {
		bf_fmt(di->transport, sizeof(di->transport), "loop");
	} else if (prefix(di->name, "dm-")) {
		bf_fmt(di->transport, sizeof(di->transport), "device-mapper");
	} else if (prefix(di->name, "md")) {
		bf_fmt(di->transport, sizeof(di->transport), "md");
	} else if (prefix(di->name, "mmcblk")) {
		bf_fmt(di->transport, sizeof(di->transport), "mmc");
	} else if (prefix(di->name, "ublkb")) {
		bf_fmt(di->transport, sizeof(di->transport), "ublk");
	} else if (strstr(real, "/virtio")) {
		bf_fmt(di->transport, sizeof(di->transport), "virtio-scsi");
	} else if (host >= 0) {
		bf_fmt(di->transport, sizeof(di->transport), "scsi%s%s",
			 di->driver[0] ? ":" : "", di->driver);
	}
	return 0;
}

void bf_dev_basename(const char *dev, char *buf, size_t len)
{
	char real[PATH_MAX];
	const char *b;

	if (!realpath(dev, real))
		bf_fmt(real, sizeof(real), "%s", dev);
	b = strrchr(real, '/');
	bf_fmt(buf, len, "%s", b ? b + 1 : real);
}
