// SPDX-License-Identifier: GPL-2.0
/*
 * Transport A/B: the sysfs writes and the verdict (see transport.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"
#include "transport.h"

/* the flags usb-storage's quirks parameter knows (usb_stor_adjust_quirks) */
static const char QUIRK_FLAGS[] = "abcdefghijklmnoprstuwxy";

int bf_quirks_with(const char *cur, unsigned int vid, unsigned int pid,
		   const char *flags, char *out, size_t len)
{
	char buf[BF_QUIRKS_MAX + 2], *save = NULL, *e;
	size_t at = 0;
	int n;

	if (!flags[0] || strspn(flags, QUIRK_FLAGS) != strlen(flags) ||
	    vid > 0xffff || pid > 0xffff || strlen(cur) > BF_QUIRKS_MAX)
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", cur);
	out[0] = '\0';
	for (e = strtok_r(buf, ",\n", &save); e;
	     e = strtok_r(NULL, ",\n", &save)) {
		unsigned int v, p;

		if (sscanf(e, "%x:%x:", &v, &p) != 2)
			return -EINVAL;
		if (v == vid && p == pid)
			continue;
		n = snprintf(out + at, len - at, "%s%s", at ? "," : "", e);
		if (n < 0 || (size_t)n >= len - at)
			return -E2BIG;
		at += n;
	}
	n = snprintf(out + at, len - at, "%s%04x:%04x:%s", at ? "," : "", vid,
		     pid, flags);
	if (n < 0 || (size_t)n >= len - at || at + n > BF_QUIRKS_MAX)
		return -E2BIG;
	return 0;
}

static int add(struct bf_bind_plan *p, const char *path, const char *value)
{
	struct bf_sysfs_write *w;

	if (p->n >= sizeof(p->w) / sizeof(p->w[0]))
		return -E2BIG;
	w = &p->w[p->n++];
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(w->value, sizeof(w->value), "%s", value);
	return 0;
}

#define QUIRKS_PARAM	"module/usb_storage/parameters/quirks"

/* unbind from @drv (if any), then let the kernel pick a driver */
static int rebind(struct bf_bind_plan *p, const char *intf, const char *drv)
{
	char path[96];
	int ret = 0;

	if (drv[0]) {
		snprintf(path, sizeof(path), "bus/usb/drivers/%s/unbind", drv);
		ret = add(p, path, intf);
	}
	return ret ?: add(p, "bus/usb/drivers_probe", intf);
}

int bf_bind_plan_bot(const struct bf_bind_state *s, const char *flags,
		     struct bf_bind_plan *p)
{
	char q[BF_QUIRKS_MAX + 1];
	int ret;

	memset(p, 0, sizeof(*p));
	if (!s->intf[0])
		return -EINVAL;
	ret = bf_quirks_with(s->quirks, s->vid, s->pid, flags, q, sizeof(q));
	return ret ?: add(p, QUIRKS_PARAM, q) ?: rebind(p, s->intf, s->driver);
}

int bf_bind_plan_restore(const struct bf_bind_state *orig, const char *now,
			 struct bf_bind_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (!orig->intf[0])
		return -EINVAL;
	/* the quirks first: the probe must see the old ones */
	return add(p, QUIRKS_PARAM, orig->quirks) ?:
	       rebind(p, orig->intf, now);
}

static void side_words(char *b, size_t len, const struct bf_transport_side *s)
{
	int n = snprintf(b, len, "%s: %.1f MB/s mean", s->driver,
			 s->mean_mbps);

	if (n < 0 || (size_t)n >= len)
		return;
	if (s->aborts || s->resets || s->timeouts || s->errors)
		snprintf(b + n, len - n, ", %llu aborts, %llu resets, %llu timeouts, %llu I/O errors%s",
			 s->aborts, s->resets, s->timeouts, s->errors,
			 s->failed ? ", the run failed" : "");
	else
		snprintf(b + n, len - n, ", no aborts, resets or errors%s",
			 s->failed ? ", the run failed" : "");
}

static bool troubled(const struct bf_transport_side *s)
{
	return s->aborts || s->resets || s->timeouts || s->errors || s->failed;
}

bool bf_transport_verdict(const struct bf_transport_side *uas,
			  const struct bf_transport_side *bot,
			  unsigned int vid, unsigned int pid, unsigned int bcd,
			  const char *vendor, const char *product, char *out,
			  size_t len)
{
	char a[200], b[200], why[160];
	bool worse = troubled(uas) && !troubled(bot);
	bool slower = !troubled(bot) && uas->mean_mbps > 0 &&
		      bot->mean_mbps >= BF_TRANSPORT_FASTER * uas->mean_mbps;

	side_words(a, sizeof(a), uas);
	side_words(b, sizeof(b), bot);
	if (worse)
		snprintf(why, sizeof(why), "UAS aborts or resets where usb-storage does not");
	else if (slower)
		snprintf(why, sizeof(why), "usb-storage is %.2fx as fast as UAS",
			 bot->mean_mbps / uas->mean_mbps);
	if (!worse && !slower) {
		snprintf(out, len, "%s\n%s\nverdict: keep UAS (usb-storage is neither steadier nor %.0f %% faster)\n",
			 a, b, 100 * (BF_TRANSPORT_FASTER - 1));
		return false;
	}
	snprintf(out, len,
		 "%s\n%s\n"
		 "verdict: usb-storage: %s\n"
		 "\n"
		 "boot parameter (or /sys/module/usb_storage/parameters/quirks):\n"
		 "  usb-storage.quirks=%04x:%04x:u\n"
		 "\n"
		 "drivers/usb/storage/unusual_uas.h:\n"
		 "/*\n"
		 " * %s.\n"
		 " * UAS: %s\n"
		 " * usb-storage: %s\n"
		 " * (the transport A/B of blkfloor)\n"
		 " */\n"
		 "UNUSUAL_DEV(0x%04x, 0x%04x, 0x%04x, 0x%04x,\n"
		 "\t\t\"%s\",\n"
		 "\t\t\"%s\",\n"
		 "\t\tUSB_SC_DEVICE, USB_PR_DEVICE, NULL,\n"
		 "\t\tUS_FL_IGNORE_UAS),\n",
		 a, b, why, vid, pid, why, a + strlen(uas->driver) + 2,
		 b + strlen(bot->driver) + 2, vid, pid, bcd, bcd,
		 vendor && vendor[0] ? vendor : "Vendor",
		 product && product[0] ? product : "Product");
	return true;
}

int bf_bind_read(const char *sysroot, const char *intf,
		 struct bf_bind_state *s)
{
	char dir[256], dev[256], v[16];

	memset(s, 0, sizeof(*s));
	bf_fmt(dir, sizeof(dir), "%s/bus/usb/devices/%s", sysroot, intf);
	if (!bf_sysfs_exists(dir, "bInterfaceClass"))
		return -ENOENT;
	bf_fmt(s->intf, sizeof(s->intf), "%s", intf);
	bf_sysfs_link_base(dir, "driver", s->driver, sizeof(s->driver));
	/* the USB device: the interface's name up to its ':' */
	bf_fmt(dev, sizeof(dev), "%s/bus/usb/devices/%.*s", sysroot,
	       (int)strcspn(intf, ":"), intf);
	bf_sysfs_str(dev, "idVendor", v, sizeof(v));
	if (sscanf(v, "%x", &s->vid) != 1)
		return -ENOENT;
	bf_sysfs_str(dev, "idProduct", v, sizeof(v));
	if (sscanf(v, "%x", &s->pid) != 1)
		return -ENOENT;
	bf_fmt(dir, sizeof(dir), "%s/module/usb_storage/parameters", sysroot);
	bf_sysfs_str(dir, "quirks", s->quirks, sizeof(s->quirks));
	return 0;
}

int bf_bind_apply(const char *sysroot, const struct bf_bind_plan *p,
		  char *err, size_t errlen)
{
	char path[256];
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct bf_sysfs_write *w = &p->w[i];
		/* an empty value as one newline: a write of nothing sets nothing */
		const char *v = w->value[0] ? w->value : "\n";
		ssize_t n;
		int fd, e;

		bf_fmt(path, sizeof(path), "%s/%s", sysroot, w->path);
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			e = errno;
			snprintf(err, errlen, "%s: %s", path, strerror(e));
			return -e;
		}
		n = write(fd, v, strlen(v));
		e = n < 0 ? errno : 0;
		close(fd);
		if (n < 0) {
			snprintf(err, errlen, "writing '%s' to %s: %s", w->value,
				 path, strerror(e));
			return -e;
		}
	}
	return 0;
}
