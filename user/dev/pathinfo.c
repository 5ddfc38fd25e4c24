// SPDX-License-Identifier: GPL-2.0
/*
 * The path of a block device, its counters, and events from the kernel log.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devinfo.h"
#include "pathinfo.h"
#include "sysfs.h"

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The first file matching @pattern, copied to @out; false if none. */
static bool first_match(const char *pattern, char *out, size_t len)
{
	glob_t g;
	bool ok;

	if (glob(pattern, 0, NULL, &g))
		return false;
	ok = g.gl_pathc > 0;
	if (ok)
		bf_fmt(out, len, "%s", g.gl_pathv[0]);
	globfree(&g);
	return ok;
}

/* "[mq-deadline] none" -> "mq-deadline" */
static void active_sched(const char *s, char *out, size_t len)
{
	const char *o = strchr(s, '['), *c = o ? strchr(o, ']') : NULL;

	if (o && c)
		bf_fmt(out, len, "%.*s", (int)(c - o - 1), o + 1);
	else
		bf_fmt(out, len, "%s", s);
}

static int sysfs_int(const char *dir, const char *attr)
{
	uint64_t v;

	return bf_sysfs_u64(dir, attr, &v) && v <= INT_MAX ? (int)v : -1;
}

static void path_usb(const char *sysroot, const char *real, struct bf_path *p)
{
	char usb[PATH_MAX], vid[8], pid[8];

	if (!bf_sysfs_up_to(sysroot, real, "idVendor", usb, sizeof(usb)))
		return;
	bf_fmt(p->usb_port, sizeof(p->usb_port), "%s", base(usb));
	bf_sysfs_str(usb, "speed", p->usb_speed, sizeof(p->usb_speed));
	bf_sysfs_str(usb, "version", p->usb_version, sizeof(p->usb_version));
	bf_sysfs_str(usb, "idVendor", vid, sizeof(vid));
	bf_sysfs_str(usb, "idProduct", pid, sizeof(pid));
	if (vid[0] && pid[0])
		bf_fmt(p->usb_id, sizeof(p->usb_id), "%s:%s", vid, pid);
	bf_sysfs_str(usb, "bcdDevice", p->usb_bcd, sizeof(p->usb_bcd));
	bf_sysfs_str(usb, "manufacturer", p->usb_manufacturer,
		     sizeof(p->usb_manufacturer));
	bf_sysfs_str(usb, "product", p->usb_product, sizeof(p->usb_product));
}

static void path_temp(const char *dev, struct bf_path *p)
{
	char pat[PATH_MAX];

	/* drivetemp: a "hwmon" glue directory under the SCSI device */
	bf_fmt(pat, sizeof(pat), "%s/hwmon/hwmon*/temp1_input", dev);
	if (first_match(pat, p->temp_src, sizeof(p->temp_src)))
		return;
	/* nvme: the hwmon device right under the controller */
	bf_fmt(pat, sizeof(pat), "%s/hwmon*/temp1_input", dev);
	first_match(pat, p->temp_src, sizeof(p->temp_src));
}

/* The PCIe link above a disk that is not on USB (an NVMe drive). */
static void path_pcie(const char *sysroot, const char *real,
		      struct bf_path *p)
{
	char pci[PATH_MAX], speed[32], width[8];

	if (!bf_sysfs_up_to(sysroot, real, "current_link_speed", pci,
			    sizeof(pci)))
		return;
	bf_sysfs_str(pci, "current_link_speed", speed, sizeof(speed));
	bf_sysfs_str(pci, "current_link_width", width, sizeof(width));
	if (speed[0] && strcmp(speed, "Unknown"))
		bf_fmt(p->pcie_link, sizeof(p->pcie_link), "%s%s%s", speed,
		       width[0] ? " x" : "", width);
}

/* Append "WHAT A -> BUNIT" to @buf at @at when @a and @b differ. */
static size_t diff_str(char *buf, size_t len, size_t at, int *n,
		       const char *what, const char *a, const char *b,
		       const char *unit)
{
	int w;

	if (!strcmp(a, b))
		return at;
	(*n)++;
	if (at >= len)
		return at;
	w = snprintf(buf + at, len - at, "%s%s %s -> %s%s", at ? ", " : "",
		     what, a[0] ? a : "none", b[0] ? b : "none", unit);
	return w < 0 ? at : at + w;
}

static size_t diff_u64(char *buf, size_t len, size_t at, int *n,
		       const char *what, uint64_t a, uint64_t b)
{
	char x[24], y[24];

	snprintf(x, sizeof(x), "%llu", (unsigned long long)a);
	snprintf(y, sizeof(y), "%llu", (unsigned long long)b);
	return diff_str(buf, len, at, n, what, x, y, "");
}

int bf_path_diff(const struct bf_path *a, const struct bf_path *b, char *buf,
		 size_t len)
{
	size_t at = 0;
	int n = 0, what;

	if (len)
		buf[0] = '\0';
	at = diff_str(buf, len, at, &n, "driver", a->driver, b->driver, "");
	at = diff_str(buf, len, at, &n, "usb speed", a->usb_speed,
		      b->usb_speed, " Mb/s");
	at = diff_str(buf, len, at, &n, "usb version", a->usb_version,
		      b->usb_version, "");
	at = diff_str(buf, len, at, &n, "usb device", a->usb_id, b->usb_id,
		      "");
	at = diff_str(buf, len, at, &n, "pcie link", a->pcie_link,
		      b->pcie_link, "");
	what = n ? BF_PATH_LINK : 0;
	n = 0;
	at = diff_u64(buf, len, at, &n, "max_sectors_kb", a->max_sectors_kb,
		      b->max_sectors_kb);
	diff_u64(buf, len, at, &n, "queue_depth", a->queue_depth,
		 b->queue_depth);
	return what | (n ? BF_PATH_HOST : 0);
}

int bf_path_read(const char *sysroot, const char *disk, struct bf_path *p)
{
	char cls[PATH_MAX], real[PATH_MAX], dev[PATH_MAX], q[PATH_MAX];
	char buf[128], mod[PATH_MAX];
	struct bf_devinfo di;
	unsigned int h, c, t, l;

	memset(p, 0, sizeof(*p));
	p->nomerges = -1;
	p->rotational = -1;
	if (bf_devinfo_read(sysroot, disk, &di))
		return -ENOENT;
	bf_fmt(p->disk, sizeof(p->disk), "%s", di.name);
	bf_fmt(cls, sizeof(cls), "%s/class/block/%s", sysroot, p->disk);
	if (!realpath(cls, real))
		return -ENOENT;
	bf_fmt(dev, sizeof(dev), "%s/device", real);
	bf_fmt(q, sizeof(q), "%s/queue", real);

	if (!strcmp(di.transport, "uas") || !strcmp(di.transport, "usb-storage"))
		bf_fmt(p->driver, sizeof(p->driver), "%s", di.transport);
	else
		bf_sysfs_link_base(dev, "driver", p->driver, sizeof(p->driver));
	if (!p->driver[0] && strcmp(di.transport, "unknown"))
		bf_fmt(p->driver, sizeof(p->driver), "%s", di.transport);

	if (realpath(dev, mod) &&
	    sscanf(base(mod), "%u:%u:%u:%u", &h, &c, &t, &l) == 4)
		bf_fmt(p->scsi_id, sizeof(p->scsi_id), "%u:%u:%u:%u",
		       h, c, t, l);
	if (strstr(real, "/usb"))
		path_usb(sysroot, real, p);
	else
		path_pcie(sysroot, real, p);
	if (!strcmp(p->driver, "usb-storage") || !strcmp(p->driver, "uas")) {
		bf_fmt(mod, sizeof(mod), "%s/module/usb_storage/parameters",
		       sysroot);
		bf_sysfs_str(mod, "quirks", p->quirks, sizeof(p->quirks));
	}

	bf_sysfs_str(dev, "rev", p->firmware, sizeof(p->firmware));
	if (!p->firmware[0])
		bf_sysfs_str(dev, "firmware_rev", p->firmware,
			     sizeof(p->firmware));
	bf_sysfs_str(q, "scheduler", buf, sizeof(buf));
	active_sched(buf, p->scheduler, sizeof(p->scheduler));
	bf_sysfs_str(q, "write_cache", p->write_cache, sizeof(p->write_cache));
	bf_sysfs_u64(q, "max_sectors_kb", &p->max_sectors_kb);
	bf_sysfs_u64(q, "max_hw_sectors_kb", &p->max_hw_sectors_kb);
	bf_sysfs_u64(q, "nr_requests", &p->nr_requests);
	if (p->scsi_id[0])
		bf_sysfs_u64(dev, "queue_depth", &p->queue_depth);
	p->nomerges = sysfs_int(q, "nomerges");
	p->rotational = sysfs_int(q, "rotational");
	path_temp(dev, p);
	return 0;
}

bool bf_pathstat_parse(const char *line, struct bf_pathstat *s)
{
	unsigned long long v[17];
	int n, i, used;
	const char *cur = line;

	memset(s, 0, sizeof(*s));
	for (n = 0; n < 17; n++) {
		if (sscanf(cur, " %llu%n", &v[n], &used) != 1)
			break;
		cur += used;
	}
	while (*cur == ' ' || *cur == '\n')
		cur++;
	if (*cur || (n != 11 && n != 15 && n != 17))
		return false;
	for (i = n; i < 17; i++)
		v[i] = 0;
	s->ios[BF_ST_READ] = v[0];
	s->merges[BF_ST_READ] = v[1];
	s->sectors[BF_ST_READ] = v[2];
	s->ios[BF_ST_WRITE] = v[4];
	s->merges[BF_ST_WRITE] = v[5];
	s->sectors[BF_ST_WRITE] = v[6];
	s->in_flight = v[8];
	s->io_ticks_ms = v[9];
	s->ios[BF_ST_DISCARD] = v[11];
	s->merges[BF_ST_DISCARD] = v[12];
	s->sectors[BF_ST_DISCARD] = v[13];
	s->ios[BF_ST_FLUSH] = v[15];
	s->ok = true;
	return true;
}

void bf_pathstat_read(const char *sysroot, const struct bf_path *p,
		      struct bf_pathstat *s)
{
	char dir[PATH_MAX], line[512];
	uint64_t t;

	bf_fmt(dir, sizeof(dir), "%s/class/block/%s", sysroot, p->disk);
	bf_sysfs_str(dir, "stat", line, sizeof(line));
	if (!bf_pathstat_parse(line, s))
		memset(s, 0, sizeof(*s));
	if (p->scsi_id[0]) {
		bf_fmt(dir, sizeof(dir), "%s/class/block/%s/device", sysroot,
		       p->disk);
		s->scsi = bf_sysfs_u64(dir, "iorequest_cnt", &s->scsi_req) &&
			  bf_sysfs_u64(dir, "iodone_cnt", &s->scsi_done) &&
			  bf_sysfs_u64(dir, "ioerr_cnt", &s->scsi_err) &&
			  bf_sysfs_u64(dir, "iotmo_cnt", &s->scsi_tmo);
	}
	if (p->temp_src[0]) {
		char d[PATH_MAX];
		const char *b = base(p->temp_src);

		bf_fmt(d, sizeof(d), "%.*s", (int)(b - p->temp_src - 1),
		       p->temp_src);
		s->temp = bf_sysfs_u64(d, b, &t) && t < 1000000;
		s->temp_mc = (int64_t)t;
	}
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

void bf_pathiv_diff(const struct bf_pathstat *a, const struct bf_pathstat *b,
		    uint64_t dt_ns, uint64_t ios, struct bf_pathiv *iv)
{
	int i;

	memset(iv, 0, sizeof(*iv));
	if (a->ok && b->ok) {
		for (i = BF_ST_READ; i <= BF_ST_DISCARD; i++) {
			iv->requests += delta(a->ios[i], b->ios[i]);
			iv->merges += delta(a->merges[i], b->merges[i]);
			iv->sectors += delta(a->sectors[i], b->sectors[i]);
		}
		if (dt_ns)
			iv->util = delta(a->io_ticks_ms, b->io_ticks_ms) *
				   1e6 / (double)dt_ns;
		if (iv->util > 1)
			iv->util = 1;
		iv->in_flight = b->in_flight;
		if (ios)
			iv->req_per_bio = (double)iv->requests / ios;
		if (iv->requests)
			iv->req_bytes = iv->sectors * 512.0 / iv->requests;
	}
	iv->scsi = a->scsi && b->scsi;
	if (iv->scsi) {
		iv->scsi_done = delta(a->scsi_done, b->scsi_done);
		iv->scsi_err = delta(a->scsi_err, b->scsi_err);
		iv->scsi_tmo = delta(a->scsi_tmo, b->scsi_tmo);
	}
	iv->temp = b->temp;
	iv->temp_c = b->temp_mc / 1000.0;
}

const char *bf_event_name(enum bf_event_kind k)
{
	static const char *const names[] = {
		[BF_EV_NONE] = "none",
		[BF_EV_RESET] = "reset",
		[BF_EV_ABORT] = "abort",
		[BF_EV_TIMEOUT] = "timeout",
		[BF_EV_DISCONNECT] = "disconnect",
		[BF_EV_OFFLINE] = "offline",
		[BF_EV_IOERR] = "io-error",
		[BF_EV_READONLY] = "read-only",
		[BF_EV_BIND] = "bind",
		[BF_EV_LINK] = "link",
		[BF_EV_HOST] = "host",
	};

	return (unsigned int)k < sizeof(names) / sizeof(names[0]) ?
	       names[k] : "unknown";
}

/* Does @msg start with "WORD ID:" (any first word), or "WORD ID:1.0:"? */
static bool about(const char *msg, const char *id)
{
	const char *sp = strchr(msg, ' ');
	size_t n = strlen(id);

	if (!id[0] || !sp || strncmp(sp + 1, id, n))
		return false;
	return sp[1 + n] == ':';
}

/* Does @msg name the disk: "[sdb]", "dev sdb,", "(sdb1)", "sdb: "? */
static bool names_disk(const char *msg, const char *disk)
{
	size_t n = strlen(disk);
	const char *s = msg;

	if (!disk[0])
		return false;
	while ((s = strstr(s, disk))) {
		char before = s == msg ? ' ' : s[-1];
		const char *after = s + n;

		while (*after >= '0' && *after <= '9')	/* a partition */
			after++;
		if ((before == '[' || before == ' ' || before == '(') &&
		    strchr("]),: ", *after) && *after)
			return true;
		s += n;
	}
	return false;
}

static bool about_path(const char *msg, const struct bf_path *p)
{
	char host[32];
	unsigned int h;

	if (about(msg, p->usb_port) || about(msg, p->scsi_id))
		return true;
	if (p->usb_port[0]) {
		char intf[48];

		bf_fmt(intf, sizeof(intf), "%s:1.0", p->usb_port);
		if (about(msg, intf))
			return true;
	}
	if (sscanf(p->scsi_id, "%u:", &h) == 1) {
		bf_fmt(host, sizeof(host), "scsi host%u:", h);
		if (!strncmp(msg, host, strlen(host)))
			return true;
	}
	return names_disk(msg, p->disk);
}

static bool has(const char *msg, const char *word)
{
	return strcasestr(msg, word) != NULL;
}

static enum bf_event_kind kind_of(const char *msg)
{
	if (has(msg, "USB disconnect"))
		return BF_EV_DISCONNECT;
	if (has(msg, "offline"))
		return BF_EV_OFFLINE;
	if (has(msg, "abort"))
		return BF_EV_ABORT;
	/* the error handler's "..._reset_handler success" ends a reset */
	if (has(msg, "reset") && !has(msg, "success") && !has(msg, "FAILED"))
		return BF_EV_RESET;
	if (has(msg, "timing out") || has(msg, "DID_TIME_OUT") ||
	    has(msg, "timed out") || has(msg, "timeout"))
		return BF_EV_TIMEOUT;
	if (has(msg, "I/O error"))
		return BF_EV_IOERR;
	if (has(msg, "read-only"))
		return BF_EV_READONLY;
	if (has(msg, "Mass Storage device detected") ||
	    !strncmp(msg + strcspn(msg, ":") + (msg[strcspn(msg, ":")] ? 1 : 0),
		     " uas", 5))
		return BF_EV_BIND;
	return BF_EV_NONE;
}

enum bf_event_kind bf_kmsg_event(const char *rec, const struct bf_path *p,
				 uint64_t *ts_us, const char **msg)
{
	unsigned long long pri, seq, ts;
	const char *semi = strchr(rec, ';');
	char line[1024];

	*msg = rec;
	if (!semi || sscanf(rec, "%llu,%llu,%llu", &pri, &seq, &ts) != 3)
		return BF_EV_NONE;
	*ts_us = ts;
	*msg = semi + 1;
	/* the text ends at the first newline; " KEY=value" lines follow */
	bf_fmt(line, sizeof(line), "%.*s", (int)strcspn(*msg, "\n"), *msg);
	if (!about_path(line, p))
		return BF_EV_NONE;
	/*
	 * A command's sense and CDB, logged after its result: "Aborted
	 * Command" and "Nak/ack timeout" there are the device's answer, not
	 * the error handler's abort or a command that timed out.
	 */
	if (strstr(line, "Sense Key : ") || strstr(line, "Add. Sense: ") ||
	    strstr(line, "CDB: "))
		return BF_EV_NONE;
	return kind_of(line);
}

bool bf_kmsg_scsi(const char *rec, const struct bf_path *p, uint64_t *ts_us,
		  const char **msg)
{
	static const char *const words[] = {
		"Result: hostbyte=", "Sense Key : ", "Add. Sense: ", "CDB: ",
	};
	unsigned long long pri, seq, ts;
	const char *semi = strchr(rec, ';');
	char line[1024];
	size_t i;

	*msg = rec;
	if (!semi || sscanf(rec, "%llu,%llu,%llu", &pri, &seq, &ts) != 3)
		return false;
	*ts_us = ts;
	*msg = semi + 1;
	bf_fmt(line, sizeof(line), "%.*s", (int)strcspn(*msg, "\n"), *msg);
	if (!p->scsi_id[0] || !about(line, p->scsi_id))
		return false;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(line, words[i]))
			return true;
	return false;
}
