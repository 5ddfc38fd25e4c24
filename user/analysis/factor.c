// SPDX-License-Identifier: GPL-2.0
/*
 * What an A/B varies (see factor.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "factor.h"

#define M(f)	(1u << BF_FACTOR_##f)
#define MODS	(-1)		/* the path modules' builds */

enum how { H_PLAIN, H_BUS, H_REGION, H_MODULES };

/*
 * The header items, each under the factor it belongs to. @outcome_of: the
 * factors it follows from (a kernel binds its driver, sets queue limits,
 * trains the link); @input: set by whoever ran the test, so the runs of
 * one side must agree on it.
 */
static const struct item {
	enum bf_factor f;
	int key;
	const char *label;
	unsigned int outcome_of;
	bool input;
	enum how how;
} items[] = {
	{ BF_FACTOR_KERNEL, BF_RK_KERNEL, "kernel", 0, true, H_PLAIN },
	{ BF_FACTOR_MODULE, MODS, "", M(KERNEL), true, H_MODULES },
	{ BF_FACTOR_DRIVER, BF_RK_QUIRKS, "usb-storage quirks", 0, true,
	  H_PLAIN },
	{ BF_FACTOR_DRIVER, BF_RK_DRIVER, "driver",
	  M(KERNEL) | M(MODULE) | M(FIRMWARE) | M(DEVICE), false, H_PLAIN },
	{ BF_FACTOR_FIRMWARE, BF_RK_FIRMWARE, "firmware", M(DEVICE), true,
	  H_PLAIN },
	{ BF_FACTOR_FIRMWARE, BF_RK_USB_BCD, "bcdDevice", M(DEVICE), true,
	  H_PLAIN },
	{ BF_FACTOR_DEVICE, BF_RK_USB_ID, "VID:PID", 0, true, H_PLAIN },
	{ BF_FACTOR_DEVICE, BF_RK_MODEL, "model", 0, true, H_PLAIN },
	{ BF_FACTOR_DEVICE, BF_RK_SIZE, "size_bytes", 0, true, H_PLAIN },
	{ BF_FACTOR_DEVICE, BF_RK_TRANSPORT, "bus", 0, true, H_BUS },
	/*
	 * usb-storage does not read VPD page 0x80, so the serial it shows is
	 * the bridge's (iSerial) where uas shows the drive's: a serial that
	 * changes with the driver is the same device.
	 */
	{ BF_FACTOR_DEVICE, BF_RK_SERIAL, "serial", M(DRIVER), true,
	  H_PLAIN },
	{ BF_FACTOR_LINK, BF_RK_USB_SPEED, "link Mb/s",
	  M(KERNEL) | M(MODULE) | M(FIRMWARE) | M(DEVICE), false, H_PLAIN },
	{ BF_FACTOR_QUEUE, BF_RK_MAX_SECTORS, "max_sectors_kb",
	  M(KERNEL) | M(MODULE) | M(DRIVER) | M(FIRMWARE) | M(DEVICE), false,
	  H_PLAIN },
	{ BF_FACTOR_QUEUE, BF_RK_QUEUE_DEPTH, "queue_depth",
	  M(KERNEL) | M(MODULE) | M(DRIVER) | M(FIRMWARE) | M(DEVICE), false,
	  H_PLAIN },
	{ BF_FACTOR_QUEUE, BF_RK_SCHEDULER, "scheduler",
	  M(KERNEL) | M(MODULE) | M(DRIVER) | M(FIRMWARE) | M(DEVICE), false,
	  H_PLAIN },
	{ BF_FACTOR_QUEUE, BF_RK_NOMERGES, "nomerges",
	  M(KERNEL) | M(MODULE) | M(DRIVER) | M(FIRMWARE) | M(DEVICE), false,
	  H_PLAIN },
	{ BF_FACTOR_OP, BF_RK_OP, "op", 0, true, H_PLAIN },
	{ BF_FACTOR_PATTERN, BF_RK_PATTERN, "pattern", 0, true, H_PLAIN },
	{ BF_FACTOR_BS, BF_RK_BS, "bs", 0, true, H_PLAIN },
	{ BF_FACTOR_QD, BF_RK_QD, "qd", 0, true, H_PLAIN },
	/* two whole devices of two sizes: the device's, see outcome() */
	{ BF_FACTOR_REGION, BF_RK_REGION, "region", 0, true, H_REGION },
	{ BF_FACTOR_BLKFLOOR, BF_RK_MODULE, "blkfloor.ko", 0, true, H_PLAIN },
};

#define NITEMS	(sizeof(items) / sizeof(items[0]))

static const char *const names[] = {
	[BF_FACTOR_NONE] = "none", [BF_FACTOR_KERNEL] = "kernel",
	[BF_FACTOR_MODULE] = "module", [BF_FACTOR_DRIVER] = "driver",
	[BF_FACTOR_FIRMWARE] = "firmware", [BF_FACTOR_DEVICE] = "device",
	[BF_FACTOR_LINK] = "link", [BF_FACTOR_QUEUE] = "queue",
	[BF_FACTOR_OP] = "op", [BF_FACTOR_PATTERN] = "pattern",
	[BF_FACTOR_BS] = "bs", [BF_FACTOR_QD] = "qd",
	[BF_FACTOR_REGION] = "region", [BF_FACTOR_BLKFLOOR] = "blkfloor",
	[BF_FACTOR_UNKNOWN] = "unknown", [BF_FACTOR_AUTO] = "auto",
};

const char *bf_factor_name(enum bf_factor f)
{
	return f <= BF_FACTOR_AUTO ? names[f] : "?";
}

const char *bf_factor_names(void)
{
	return "kernel|module|driver|firmware|device|link|queue|op|pattern|bs|qd|region|blkfloor";
}

int bf_factor_parse(const char *s, enum bf_factor *f)
{
	int k;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "enclosure")) {
		*f = BF_FACTOR_DEVICE;
		return 0;
	}
	for (k = BF_FACTOR_KERNEL; k <= BF_FACTOR_BLKFLOOR; k++)
		if (!strcmp(s, names[k])) {
			*f = (enum bf_factor)k;
			return 0;
		}
	return -EINVAL;
}

static void __attribute__((format(printf, 3, 4)))
cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

static bool present(const struct item *it, const struct bf_runsum *r)
{
	return it->how == H_MODULES ? r->modules[0] != '\0' :
	       (r->have >> it->key) & 1;
}

/* the bus a transport is on: uas and usb-storage are both usb */
static const char *bus(const char *t)
{
	return !strcmp(t, "uas") || !strcmp(t, "usb-storage") ? "usb" : t;
}

/*
 * The build of module @name in a "# path_modules:" list ("uas
 * 3beed5a996b4 OE, sd_mod ..."), its taint flags included; false if it
 * is not in the list.
 */
static bool module_build(const char *list, const char *name, char *out,
			 size_t len)
{
	size_t nl = strlen(name);
	const char *p = list;

	while (*p) {
		size_t l = strcspn(p, ",");

		if (l > nl && !strncmp(p, name, nl) && p[nl] == ' ') {
			snprintf(out, len, "%.*s", (int)(l - nl - 1), p + nl + 1);
			return true;
		}
		p += l;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

/* the build without its taint flags: "3beed5a996b4" */
static size_t build_id_len(const char *b)
{
	return strcspn(b, " ");
}

/*
 * Whether item @it differs between runs @x and @y, both of which have
 * it; the label and the two values for a message. Modules differ when
 * one in both lists has two builds (one loaded on one side only is not
 * a build that changed).
 */
static bool differs(const struct item *it, const struct bf_runsum *x,
		    const struct bf_runsum *y, char *label, char *vx,
		    char *vy, size_t len)
{
	const char *p = x->modules;

	snprintf(label, 40, "%s", it->label);
	if (it->how != H_MODULES) {
		const char *a = x->hdr[it->key], *b = y->hdr[it->key];

		snprintf(vx, len, "%s", a[0] ? a : "(none)");
		snprintf(vy, len, "%s", b[0] ? b : "(none)");
		if (it->how == H_BUS)
			return strcmp(bus(a), bus(b)) != 0;
		return strcmp(a, b) != 0;
	}
	while (*p) {
		size_t l = strcspn(p, " ,");
		char name[32], bx[64], by[64];

		if (l && l < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)l, p);
			if (module_build(x->modules, name, bx, sizeof(bx)) &&
			    module_build(y->modules, name, by, sizeof(by)) &&
			    (build_id_len(bx) != build_id_len(by) ||
			     strncmp(bx, by, build_id_len(bx)))) {
				snprintf(label, 40, "%s.ko", name);
				snprintf(vx, len, "%s", bx);
				snprintf(vy, len, "%s", by);
				return true;
			}
		}
		p += strcspn(p, ",");
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

/* "0+SIZE" on a run of SIZE bytes: the whole device */
static bool whole_device(const struct bf_runsum *r)
{
	unsigned long long off, len, size;
	char *end;

	if (!((r->have >> BF_RK_REGION) & 1) || !((r->have >> BF_RK_SIZE) & 1))
		return false;
	if (sscanf(r->hdr[BF_RK_REGION], "%llu+%llu", &off, &len) != 2)
		return false;
	size = strtoull(r->hdr[BF_RK_SIZE], &end, 10);
	return off == 0 && *end == '\0' && len == size;
}

struct diff {
	const struct item *it;
	unsigned int outcome_of;
	char label[40], a[128], b[128];
};

/* the first run of a side that has item @it, or NULL */
static const struct bf_runsum *first_with(const struct item *it,
					  const struct bf_factor_run *s,
					  size_t n, size_t *at)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].header && present(it, s[i].rs)) {
			*at = i;
			return s[i].rs;
		}
	return NULL;
}

/* "A's runs differ in kernel: X (a1) against Y (a2)" */
static bool within(const struct bf_factor_run *s, size_t n, const char *side,
		   struct bf_factor_result *res)
{
	char label[40], x[128], y[128];
	size_t k, i, at = 0;

	for (k = 0; k < NITEMS; k++) {
		const struct item *it = &items[k];
		const struct bf_runsum *ref = first_with(it, s, n, &at);

		if (!it->input || !ref)
			continue;
		for (i = at + 1; i < n; i++) {
			if (!s[i].header || !present(it, s[i].rs) ||
			    !differs(it, ref, s[i].rs, label, x, y, sizeof(x)))
				continue;
			snprintf(res->refused, sizeof(res->refused),
				 "%s's runs differ among themselves in %s: %s (%s) against %s (%s)",
				 side, label, x, s[at].name, y, s[i].name);
			return true;
		}
	}
	return false;
}

/*
 * Whether factor @f explains every difference in @d: each is an item of
 * @f or an outcome of a factor explained so far (a kernel changes the
 * driver, a driver the serial it shows). @ok marks the explained ones.
 */
static bool explains(enum bf_factor f, const struct diff *d, size_t nd,
		     bool *ok)
{
	unsigned int e = 1u << f;
	bool more = true, all = true;
	size_t i;

	for (i = 0; i < nd; i++)
		ok[i] = false;
	while (more) {
		more = false;
		for (i = 0; i < nd; i++) {
			if (ok[i] || (d[i].it->f != f && !(d[i].outcome_of & e)))
				continue;
			ok[i] = true;
			e |= 1u << d[i].it->f;
			more = true;
		}
	}
	for (i = 0; i < nd; i++)
		all &= ok[i];
	return all;
}

/*
 * "kernel (A 6.1, B 6.12)", "device (VID:PID A x, B y)": factor @f's
 * first item in @d that @ok does not explain (all of them if @ok is NULL)
 */
static void name_factor(char *buf, size_t len, enum bf_factor f,
			const struct diff *d, size_t nd, const bool *ok)
{
	const char *sep = strchr(buf, '(') ? ", " : "";
	size_t i;

	for (i = 0; i < nd; i++) {
		if (d[i].it->f != f || (ok && ok[i]))
			continue;
		if (!strcmp(d[i].label, bf_factor_name(f)))
			cat(buf, len, "%s%s (A %s, B %s)", sep, d[i].label,
			    d[i].a, d[i].b);
		else
			cat(buf, len, "%s%s (%s A %s, B %s)", sep,
			    bf_factor_name(f), d[i].label, d[i].a, d[i].b);
		return;
	}
}

int bf_factor_check(const struct bf_factor_run *a, size_t na,
		    const struct bf_factor_run *b, size_t nb,
		    enum bf_factor want, struct bf_factor_result *res)
{
	struct diff d[NITEMS];
	bool ok[NITEMS], blind_a = true, blind_b = true;
	unsigned int roots = 0;
	size_t i, k, nd = 0, ia, ib;
	int f;

	memset(res, 0, sizeof(*res));
	res->vary = want;
	res->inferred = want == BF_FACTOR_AUTO;
	if (!na || !nb)
		return 2;
	for (i = 0; i < na + nb; i++) {
		const struct bf_factor_run *r = i < na ? &a[i] : &b[i - na];

		if (i < na)
			blind_a &= !r->header;
		else
			blind_b &= !r->header;
		if (!r->header)
			cat(res->unknown, sizeof(res->unknown), "%s%s",
			    res->unknown[0] ? ", " : "", r->name);
	}
	if (within(a, na, "A", res) || within(b, nb, "B", res))
		return 1;

	for (k = 0; k < NITEMS; k++) {
		const struct item *it = &items[k];
		const struct bf_runsum *x = first_with(it, a, na, &ia);
		const struct bf_runsum *y = first_with(it, b, nb, &ib);

		if (!x || !y || !differs(it, x, y, d[nd].label, d[nd].a,
					 d[nd].b, sizeof(d[nd].a)))
			continue;
		d[nd].it = it;
		d[nd].outcome_of = it->outcome_of;
		if (it->how == H_REGION && whole_device(x) && whole_device(y))
			d[nd].outcome_of |= M(DEVICE);
		res->differ |= 1u << it->f;
		nd++;
	}

	if (want == BF_FACTOR_AUTO) {
		if (blind_a || blind_b) {
			res->vary = BF_FACTOR_UNKNOWN;
			return 0;
		}
		res->vary = BF_FACTOR_NONE;
		if (!nd)
			return 0;
		for (f = BF_FACTOR_KERNEL; f <= BF_FACTOR_BLKFLOOR; f++)
			if ((res->differ >> f) & 1 &&
			    explains((enum bf_factor)f, d, nd, ok)) {
				res->vary = (enum bf_factor)f;
				break;
			}
	}
	if (res->vary != BF_FACTOR_NONE && res->vary != BF_FACTOR_AUTO) {
		for (i = 0; i < nd; i++)
			if (d[i].it->f == res->vary) {
				snprintf(res->what, sizeof(res->what),
					 "%s A %s, B %s", d[i].label, d[i].a,
					 d[i].b);
				snprintf(res->item, sizeof(res->item), "%s",
					 d[i].label);
				snprintf(res->va, sizeof(res->va), "%s", d[i].a);
				snprintf(res->vb, sizeof(res->vb), "%s", d[i].b);
				break;
			}
		if (explains(res->vary, d, nd, ok))
			return 0;
	}

	if (want == BF_FACTOR_AUTO) {
		/* the factors that no other difference explains */
		for (i = 0; i < nd; i++)
			if (!(d[i].outcome_of & res->differ))
				roots |= 1u << d[i].it->f;
		if (!roots)
			roots = res->differ;
		res->vary = BF_FACTOR_AUTO;
		snprintf(res->refused, sizeof(res->refused),
			 "A and B differ in more than one factor: ");
		for (f = BF_FACTOR_KERNEL; f <= BF_FACTOR_BLKFLOOR; f++)
			if ((roots >> f) & 1)
				name_factor(res->refused, sizeof(res->refused),
					    (enum bf_factor)f, d, nd, NULL);
		return 1;
	}
	snprintf(res->refused, sizeof(res->refused),
		 "--vary %s, but A and B differ in ", bf_factor_name(want));
	for (f = BF_FACTOR_KERNEL; f <= BF_FACTOR_BLKFLOOR; f++)
		name_factor(res->refused, sizeof(res->refused),
			    (enum bf_factor)f, d, nd, ok);
	cat(res->refused, sizeof(res->refused), " too");
	return 1;
}
