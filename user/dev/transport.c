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

const char *bf_tverdict_name(enum bf_tverdict v)
{
	return v == BF_TV_BOT ? "usb-storage" :
	       v == BF_TV_KEEP_UAS ? "keep-uas" : "unclear";
}

enum bf_tverdict bf_transport_judge(const struct bf_transport_side *uas,
				    const struct bf_transport_side *bot,
				    char *why, size_t len)
{
	if (uas->failed && bot->failed) {
		snprintf(why, len, "both runs failed: neither transport carried the workload");
		return BF_TV_UNCLEAR;
	}
	if (troubled(uas) && !troubled(bot)) {
		snprintf(why, len, "UAS %s where usb-storage does not",
			 uas->failed && !(uas->aborts || uas->resets) ?
			 "fails" : "aborts or resets");
		return BF_TV_BOT;
	}
	if (!troubled(bot) && uas->mean_mbps > 0 &&
	    bot->mean_mbps >= BF_TRANSPORT_FASTER * uas->mean_mbps) {
		snprintf(why, len, "usb-storage is %.2fx as fast as UAS",
			 bot->mean_mbps / uas->mean_mbps);
		return BF_TV_BOT;
	}
	if (bot->failed)
		snprintf(why, len, "the usb-storage run failed");
	else
		snprintf(why, len, "usb-storage is neither steadier nor %.0f %% faster",
			 100 * (BF_TRANSPORT_FASTER - 1));
	return BF_TV_KEEP_UAS;
}

void bf_transport_entry(char *out, size_t len,
			const struct bf_transport_side *uas,
			const struct bf_transport_side *bot, unsigned int vid,
			unsigned int pid, unsigned int bcd, const char *vendor,
			const char *product, const char *why)
{
	char a[200], b[200];

	side_words(a, sizeof(a), uas);
	side_words(b, sizeof(b), bot);
	snprintf(out, len,
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
		 why, a + strlen(uas->driver) + 2, b + strlen(bot->driver) + 2,
		 vid, pid, bcd, bcd, vendor && vendor[0] ? vendor : "Vendor",
		 product && product[0] ? product : "Product");
}

bool bf_transport_verdict(const struct bf_transport_side *uas,
			  const struct bf_transport_side *bot,
			  unsigned int vid, unsigned int pid, unsigned int bcd,
			  const char *vendor, const char *product, char *out,
			  size_t len)
{
	char a[200], b[200], why[160], entry[1024];
	enum bf_tverdict v = bf_transport_judge(uas, bot, why, sizeof(why));

	side_words(a, sizeof(a), uas);
	side_words(b, sizeof(b), bot);
	if (v == BF_TV_UNCLEAR) {
		snprintf(out, len, "%s\n%s\nverdict: unclear (%s)\n", a, b, why);
		return false;
	}
	if (v == BF_TV_KEEP_UAS) {
		snprintf(out, len, "%s\n%s\nverdict: keep UAS (%s)\n", a, b, why);
		return false;
	}
	bf_transport_entry(entry, sizeof(entry), uas, bot, vid, pid, bcd,
			   vendor, product, why);
	snprintf(out, len,
		 "%s\n%s\n"
		 "verdict: usb-storage: %s\n"
		 "\n"
		 "boot parameter (or /sys/module/usb_storage/parameters/quirks):\n"
		 "  usb-storage.quirks=%04x:%04x:u\n"
		 "\n"
		 "drivers/usb/storage/unusual_uas.h:\n%s",
		 a, b, why, vid, pid, entry);
	return true;
}

#define USB_DT_INTERFACE	4
#define USB_CLASS_MASS_STORAGE	8
#define USB_PR_BULK		0x50

int bf_usb_has_bot(const unsigned char *d, size_t n, unsigned int num)
{
	size_t i = 0;
	bool found = false;

	/* the device descriptor, then each configuration's descriptors */
	if (n < 18 || d[0] != 18 || d[1] != 1)
		return -EINVAL;
	for (i = 18; i + 2 <= n; i += d[i]) {
		if (d[i] < 2 || i + d[i] > n)
			return -EINVAL;
		if (d[i + 1] == USB_DT_INTERFACE && d[i] >= 9 &&
		    d[i + 2] == num && d[i + 5] == USB_CLASS_MASS_STORAGE &&
		    d[i + 7] == USB_PR_BULK)
			found = true;
	}
	return i == n ? found : -EINVAL;
}

int bf_usb_intf_has_bot(const char *sysroot, const char *intf)
{
	unsigned char buf[4096];
	unsigned int cfg, num;
	char path[256];
	ssize_t n;
	int fd, e;

	if (sscanf(strchrnul(intf, ':'), ":%u.%u", &cfg, &num) != 2)
		return -EINVAL;
	bf_fmt(path, sizeof(path), "%s/bus/usb/devices/%.*s/descriptors",
	       sysroot, (int)strcspn(intf, ":"), intf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	return bf_usb_has_bot(buf, (size_t)n, num);
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
