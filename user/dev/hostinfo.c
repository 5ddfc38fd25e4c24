// SPDX-License-Identifier: GPL-2.0
/*
 * Boot, module builds and the CPU the host gave (see hostinfo.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostinfo.h"
#include "sysfs.h"

/* The modules every USB disk's path may hold besides its drivers. */
static const char *const path_mods[] = { "uas", "usb_storage", "xhci_hcd",
					 "sd_mod" };

#define MAXMODS	16

struct mods { char n[MAXMODS][64]; size_t k; };

static void mod_add(struct mods *m, const char *name)
{
	size_t i;

	if (!name[0])
		return;
	for (i = 0; i < m->k; i++)
		if (!strcmp(m->n[i], name))
			return;
	if (m->k < MAXMODS)
		bf_fmt(m->n[m->k++], sizeof(m->n[0]), "%s", name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

bool bf_build_id_hex(const unsigned char *note, size_t len, char *out,
		     size_t outlen)
{
	uint32_t namesz, descsz, type, off, i;

	/* Elf_Nhdr: namesz, descsz, type; the name padded to 4 bytes */
	if (len < 12 || outlen < 13)
		return false;
	memcpy(&namesz, note, 4);
	memcpy(&descsz, note + 4, 4);
	memcpy(&type, note + 8, 4);
	off = 12 + ((namesz + 3) & ~3U);
	if (type != 3 || namesz != 4 || memcmp(note + 12, "GNU", 4) ||
	    descsz < 6 || off + descsz > len)
		return false;
	for (i = 0; i < 6; i++)
		snprintf(out + 2 * i, 3, "%02x", note[off + i]);
	return true;
}

/* "uas 785d29ef2fe1 OE": the module's build and taint; "" if not loaded */
static void mod_id(const char *sysroot, const char *name, char *out,
		   size_t len)
{
	char dir[PATH_MAX], ver[64], taint[16], path[PATH_MAX + 32];
	unsigned char note[256];
	size_t n = 0;
	FILE *f;

	out[0] = '\0';
	bf_fmt(dir, sizeof(dir), "%s/module/%s", sysroot, name);
	if (!bf_sysfs_exists(dir, "initstate"))
		return;		/* built in, or not loaded */
	bf_sysfs_str(dir, "srcversion", ver, sizeof(ver));
	if (!ver[0]) {
		bf_fmt(path, sizeof(path), "%s/notes/.note.gnu.build-id", dir);
		f = fopen(path, "rb");
		if (f) {
			n = fread(note, 1, sizeof(note), f);
			fclose(f);
		}
		if (!bf_build_id_hex(note, n, ver, sizeof(ver)))
			snprintf(ver, sizeof(ver), "?");
	}
	bf_sysfs_str(dir, "taint", taint, sizeof(taint));
	bf_fmt(out, len, "%s %s%s%s", name, ver, taint[0] ? " " : "", taint);
}

/* the drivers' modules of the device's sysfs ancestors */
static void chain_mods(const char *sysroot, const char *disk, struct mods *m)
{
	char link[PATH_MAX], real[PATH_MAX], mod[64];
	char *slash;

	bf_fmt(link, sizeof(link), "%s/class/block/%s", sysroot, disk);
	if (!realpath(link, real))
		return;
	while ((slash = strrchr(real, '/')) && slash > real) {
		char drv[PATH_MAX + 8];

		bf_fmt(drv, sizeof(drv), "%s/driver", real);
		if (realpath(drv, link)) {
			bf_sysfs_link_base(link, "module", mod, sizeof(mod));
			mod_add(m, mod);
		}
		*slash = '\0';
		if (strlen(real) <= strlen(sysroot))
			break;
	}
}

void bf_hostid_read(const char *procroot, const char *sysroot,
		    const char *disk, struct bf_hostid *h)
{
	char dir[PATH_MAX], one[96];
	struct mods m = { .k = 0 };
	size_t i, l = 0;

	memset(h, 0, sizeof(*h));
	bf_fmt(dir, sizeof(dir), "%s/sys/kernel/random", procroot);
	bf_sysfs_str(dir, "boot_id", h->boot_id, sizeof(h->boot_id));
	bf_fmt(dir, sizeof(dir), "%s/sys/kernel", procroot);
	bf_sysfs_str(dir, "tainted", h->tainted, sizeof(h->tainted));
	if (disk && disk[0])
		chain_mods(sysroot, disk, &m);
	for (i = 0; i < sizeof(path_mods) / sizeof(path_mods[0]); i++)
		mod_add(&m, path_mods[i]);
	qsort(m.n, m.k, sizeof(m.n[0]), by_name);
	for (i = 0; i < m.k && l + 1 < sizeof(h->modules); i++) {
		mod_id(sysroot, m.n[i], one, sizeof(one));
		if (!one[0])
			continue;
		bf_fmt(h->modules + l, sizeof(h->modules) - l, "%s%s",
		       l ? ", " : "", one);
		l = strlen(h->modules);
	}
}

bool bf_procstat_parse(const char *text, uint64_t *steal, uint64_t *total)
{
	unsigned long long v[10] = { 0 };
	int n;

	/* user nice system idle iowait irq softirq steal guest guest_nice */
	if (strncmp(text, "cpu ", 4))
		return false;
	n = sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9]);
	if (n < 4)
		return false;
	*steal = v[7];
	/* guest time is already in user and nice */
	*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	return true;
}

bool bf_schedstat_parse(const char *text, uint64_t *run_ns,
			uint64_t *wait_ns)
{
	unsigned long long r, w;

	if (sscanf(text, "%llu %llu", &r, &w) != 2)
		return false;
	*run_ns = r;
	*wait_ns = w;
	return true;
}

int bf_find_kthread(const char *procroot, const char *comm)
{
	char dir[PATH_MAX], name[64];
	struct dirent *e;
	int pid = 0;
	DIR *d = opendir(procroot);

	if (!d)
		return 0;
	while (!pid && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		bf_fmt(dir, sizeof(dir), "%s/%s", procroot, e->d_name);
		bf_sysfs_str(dir, "comm", name, sizeof(name));
		if (!strcmp(name, comm))
			pid = atoi(e->d_name);
	}
	closedir(d);
	return pid;
}

void bf_hostcpu_read(const char *procroot, int pid, struct bf_hostcpu *c)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	memset(c, 0, sizeof(*c));
	bf_fmt(path, sizeof(path), "%s/stat", procroot);
	f = fopen(path, "r");
	if (f) {
		if (fgets(line, sizeof(line), f))
			c->have_stat = bf_procstat_parse(line, &c->steal,
							 &c->total);
		fclose(f);
	}
	if (!pid)
		return;
	bf_fmt(path, sizeof(path), "%s/%d/schedstat", procroot, pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(line, sizeof(line), f))
			c->have_thread = bf_schedstat_parse(line, &c->run_ns,
							    &c->wait_ns);
		fclose(f);
	}
}

bool bf_hostcpu_line(const struct bf_hostcpu *a, const struct bf_hostcpu *b,
		     double secs, char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = '\0';
	if (a->have_stat && b->have_stat && b->total > a->total &&
	    b->steal >= a->steal) {
		bf_fmt(buf, len, "steal_pct=%.1f ",
		       100.0 * (b->steal - a->steal) / (b->total - a->total));
		l = strlen(buf);
	}
	if (a->have_thread && b->have_thread && b->run_ns >= a->run_ns &&
	    b->wait_ns >= a->wait_ns) {
		bf_fmt(buf + l, len - l, "thread_cpu_s=%.3f thread_wait_s=%.3f ",
		       (b->run_ns - a->run_ns) / 1e9,
		       (b->wait_ns - a->wait_ns) / 1e9);
		l = strlen(buf);
	}
	if (!l)
		return false;
	bf_fmt(buf + l, len - l, "run_s=%.3f", secs);
	return true;
}
