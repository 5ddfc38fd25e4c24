// SPDX-License-Identifier: GPL-2.0
/*
 * transport: the same workload on a USB enclosure over its driver now
 * (UAS) and over usb-storage, the binding put back afterwards (also after
 * SIGINT or SIGTERM), and the verdict with the quirk to send upstream.
 * What to write to sysfs and the verdict are transport.c's; this file runs
 * the workloads (blkfloor run, as a child) and waits for the disk.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "blkfloor.h"
#include "classify.h"
#include "pathinfo.h"
#include "runsum.h"
#include "sysfs.h"
#include "transport.h"

#define SYSROOT		"/sys"
#define BIND_WAIT_S	60

static volatile sig_atomic_t stop_sig;
static volatile pid_t child;

/* stop the run in progress (it ends its run and its trace), then restore */
static void on_signal(int sig)
{
	stop_sig = sig;
	if (child > 0)
		kill(child, sig);
}

static int usage(const char *why)
{
	fprintf(stderr, "blkfloor transport: %s\n", why);
	return EXIT_USAGE;
}

/* The disk below interface @intf, bound to a driver: "sdX", or "". */
static void disk_of(const char *intf, char *disk, size_t len, char *drv,
		    size_t dlen)
{
	char dir[256], sub[512], blk[768];
	struct dirent *h, *t, *d, *b;
	DIR *dh, *dt, *dd, *db;

	disk[0] = '\0';
	bf_fmt(dir, sizeof(dir), SYSROOT "/bus/usb/devices/%s", intf);
	bf_sysfs_link_base(dir, "driver", drv, dlen);
	dh = opendir(dir);
	if (!dh)
		return;
	while (!disk[0] && (h = readdir(dh))) {
		if (strncmp(h->d_name, "host", 4))
			continue;
		bf_fmt(sub, sizeof(sub), "%s/%s", dir, h->d_name);
		dt = opendir(sub);
		while (dt && !disk[0] && (t = readdir(dt))) {
			if (strncmp(t->d_name, "target", 6))
				continue;
			bf_fmt(blk, sizeof(blk), "%s/%s", sub, t->d_name);
			dd = opendir(blk);
			while (dd && !disk[0] && (d = readdir(dd))) {
				char bd[1024];

				if (!strchr(d->d_name, ':'))
					continue;
				bf_fmt(bd, sizeof(bd), "%s/%s/block", blk,
				       d->d_name);
				db = opendir(bd);
				while (db && (b = readdir(db)))
					if (b->d_name[0] != '.') {
						bf_fmt(disk, len, "%s",
						       b->d_name);
						break;
					}
				if (db)
					closedir(db);
			}
			if (dd)
				closedir(dd);
		}
		if (dt)
			closedir(dt);
	}
	closedir(dh);
}

/* Wait until @intf has a disk under driver @want (any with ""). */
static int wait_disk(const char *intf, const char *want, char *disk,
		     size_t len)
{
	char drv[32];
	int i;

	for (i = 0; i < BIND_WAIT_S * 10; i++) {
		disk_of(intf, disk, len, drv, sizeof(drv));
		if (disk[0] && (!want[0] || !strcmp(drv, want))) {
			char dev[64];

			bf_fmt(dev, sizeof(dev), "/dev/%s", disk);
			if (!access(dev, F_OK))
				return 0;
		}
		usleep(100000);
	}
	return -ETIMEDOUT;
}

/* blkfloor run DEV ARGS... --trace TRACE, as a child; its exit code. */
static int run_child(const char *dev, int argc, char **argv,
		     const char *trace)
{
	char **av = calloc(argc + 6, sizeof(*av));
	int st, i, n = 0;
	pid_t pid;

	if (!av)
		return -ENOMEM;
	av[n++] = "blkfloor";
	av[n++] = "run";
	av[n++] = (char *)dev;
	for (i = 0; i < argc; i++)
		av[n++] = argv[i];
	av[n++] = "--trace";
	av[n++] = (char *)trace;
	pid = fork();
	if (pid < 0) {
		free(av);
		return -errno;
	}
	if (!pid) {
		if (stop_sig)
			_exit(128 + stop_sig);
		execv("/proc/self/exe", av);
		perror("blkfloor transport: exec");
		_exit(127);
	}
	child = pid;
	free(av);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			child = 0;
			return -errno;
		}
	child = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One side's figures from its trace. */
static int side_of(const char *trace, const char *driver, int rc,
		   struct bf_transport_side *s, struct bf_runsum *rs)
{
	struct bf_series ser = { 0 };
	char err[256];
	FILE *f;
	int ret;

	memset(s, 0, sizeof(*s));
	s->driver = driver;
	s->failed = rc != 0;
	f = fopen(trace, "r");
	if (!f)
		return -errno;
	ret = bf_runsum_read(f, rs, err, sizeof(err));
	fclose(f);
	if (ret)
		return ret;
	s->aborts = bf_runsum_events(rs, "abort");
	s->resets = bf_runsum_events(rs, "reset");
	s->timeouts = bf_runsum_events(rs, "timeout");
	s->errors = rs->errors;
	if (!bf_series_load(trace, &ser, err, sizeof(err))) {
		if (ser.n && ser.s[ser.n - 1].t > 0)
			s->mean_mbps = ser.s[ser.n - 1].bytes /
				       ser.s[ser.n - 1].t / 1e6;
		bf_series_free(&ser);
	}
	return 0;
}

static int verdict(const char *ta, const char *da, int rca, const char *tb,
		   int rcb)
{
	struct bf_transport_side a, b;
	struct bf_runsum ra, rb;
	unsigned int vid = 0, pid = 0, bcd = 0;
	char out[4096];
	int ret;

	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	ret = side_of(ta, da, rca, &a, &ra) ?:
	      side_of(tb, "usb-storage", rcb, &b, &rb);
	if (!ret) {
		sscanf(ra.hdr[BF_RK_USB_ID], "%x:%x", &vid, &pid);
		sscanf(ra.hdr[BF_RK_USB_BCD], "%x", &bcd);
		/* the trace's model is the SCSI vendor, then the product */
		char *mdl = ra.hdr[BF_RK_MODEL], *sp = strchr(mdl, ' ');

		if (sp)
			*sp++ = '\0';
		bf_transport_verdict(&a, &b, vid, pid, bcd, sp ? mdl : "",
				     sp ? sp : mdl, out, sizeof(out));
		fputs(out, stdout);
	} else {
		fprintf(stderr, "blkfloor transport: cannot read the traces %s and %s\n",
			ta, tb);
	}
	bf_runsum_free(&ra);
	bf_runsum_free(&rb);
	return ret ? EXIT_FAIL : EXIT_OK;
}

static int restore(const struct bf_bind_state *orig, char *disk, size_t len)
{
	struct bf_bind_state now;
	struct bf_bind_plan p;
	char err[256];
	int ret;

	if (bf_bind_read(SYSROOT, orig->intf, &now))
		now.driver[0] = '\0';
	ret = bf_bind_plan_restore(orig, now.driver, &p);
	if (!ret)
		ret = bf_bind_apply(SYSROOT, &p, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "blkfloor transport: restoring %s: %s; usb-storage.quirks should be '%s' and the driver %s\n",
			orig->intf, err, orig->quirks, orig->driver);
		return EXIT_FAIL;
	}
	if (wait_disk(orig->intf, orig->driver, disk, len)) {
		fprintf(stderr, "blkfloor transport: %s is not back on %s within %d s\n",
			orig->intf, orig->driver, BIND_WAIT_S);
		return EXIT_FAIL;
	}
	fprintf(stderr, "blkfloor transport: %s back on %s as /dev/%s, usb-storage.quirks '%s'\n",
		orig->intf, orig->driver, disk, orig->quirks);
	return EXIT_OK;
}

static int do_transport(int argc, char **argv)
{
	const char *flags = "u", *dir = NULL, *name = NULL;
	struct bf_bind_state orig, now;
	struct bf_bind_plan p;
	struct sigaction sa;
	struct bf_path path;
	char tmp[] = "/tmp/blkfloor-transport-XXXXXX";
	char ta[512], tb[512], disk[32], dev[64], err[256];
	int i, rca, rcb = -1, ret, rr;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--flags") && i + 1 < argc)
			flags = argv[++i];
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--traces") && i + 2 == argc - 1)
			return verdict(argv[i + 1], "uas", 0, argv[i + 2], 0);
		else if (argv[i][0] != '-' && !name)
			name = argv[i];
		else
			return usage("transport DEV [--flags F] [--dir DIR] -- RUN-OPTIONS... | transport --traces UAS-TRACE BOT-TRACE");
	}
	if (!name)
		return usage("no device");
	i = i < argc ? i + 1 : i;	/* what follows "--" goes to run */
	if (!dir) {
		dir = mkdtemp(tmp);
		if (!dir) {
			perror("blkfloor transport: mkdtemp");
			return EXIT_FAIL;
		}
	}
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (bf_path_read(SYSROOT, name, &path) || !path.usb_port[0] ||
	    (strcmp(path.driver, "uas") && strcmp(path.driver, "usb-storage"))) {
		fprintf(stderr, "blkfloor transport: %s: not a disk of uas or usb-storage\n",
			name);
		return EXIT_FAIL;
	}
	bf_fmt(disk, sizeof(disk), "%s", path.disk);
	bf_fmt(err, sizeof(err), "%s:1.0", path.usb_port);
	if (bf_bind_read(SYSROOT, err, &orig)) {
		fprintf(stderr, "blkfloor transport: %s: no USB interface %s\n",
			name, err);
		return EXIT_FAIL;
	}
	ret = bf_bind_plan_bot(&orig, flags, &p);
	if (ret) {
		fprintf(stderr, "blkfloor transport: usb-storage.quirks '%s' with %04x:%04x:%s: %s\n",
			orig.quirks, orig.vid, orig.pid, flags,
			ret == -E2BIG ? "too long for the kernel's 127 characters" :
					"bad flags or quirks");
		return EXIT_FAIL;
	}
	/* until the binding is back, a signal only stops the current run */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	bf_fmt(ta, sizeof(ta), "%s/%s.trace", dir, orig.driver);
	bf_fmt(tb, sizeof(tb), "%s/usb-storage-%s.trace", dir, flags);
	bf_fmt(dev, sizeof(dev), "/dev/%s", disk);
	fprintf(stderr, "blkfloor transport: %s (%s, %04x:%04x) over %s\n",
		dev, orig.intf, orig.vid, orig.pid, orig.driver);
	rca = run_child(dev, argc - i, argv + i, ta);
	if (rca == EXIT_USAGE || rca < 0) {
		fprintf(stderr, "blkfloor transport: the run over %s did not start: nothing changed\n",
			orig.driver);
		return EXIT_FAIL;
	}
	if (stop_sig)
		goto out;
	fprintf(stderr, "blkfloor transport: binding %s to usb-storage with quirks '%s'\n",
		orig.intf, p.w[0].value);
	ret = bf_bind_apply(SYSROOT, &p, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "blkfloor transport: %s\n", err);
		goto out;
	}
	if (wait_disk(orig.intf, "usb-storage", disk, sizeof(disk))) {
		bf_bind_read(SYSROOT, orig.intf, &now);
		fprintf(stderr, "blkfloor transport: no usb-storage disk on %s within %d s (driver now '%s'): the device may have no Bulk-Only interface\n",
			orig.intf, BIND_WAIT_S, now.driver);
		goto out;
	}
	bf_fmt(dev, sizeof(dev), "/dev/%s", disk);
	fprintf(stderr, "blkfloor transport: %s over usb-storage\n", dev);
	if (!stop_sig)
		rcb = run_child(dev, argc - i, argv + i, tb);
out:
	rr = restore(&orig, disk, sizeof(disk));
	if (stop_sig) {
		fprintf(stderr, "blkfloor transport: stopped by %s; the binding is %s\n",
			strsignal(stop_sig), rr ? "NOT restored" : "restored");
		return EXIT_FAIL;
	}
	if (rcb < 0)
		return EXIT_FAIL;
	fprintf(stderr, "blkfloor transport: traces %s and %s\n", ta, tb);
	ret = verdict(ta, orig.driver, rca, tb, rcb);
	return rr ?: ret;
}

BLKFLOOR_COMMAND(transport,
	"DEV [--flags F] [--dir DIR] -- RUN-OPTIONS... | --traces UAS BOT",
	do_transport,
	"The same workload on a USB enclosure over its driver now (UAS) and\n"
	"over usb-storage, then the binding put back: adds VID:PID:F to\n"
	"usb-storage's quirks parameter, re-binds the interface, runs, and\n"
	"restores the quirks and the driver (also after SIGINT or SIGTERM).\n"
	"Prints both runs and, where UAS aborts or resets while usb-storage\n"
	"does not, or usb-storage is 15 % faster, the boot parameter\n"
	"usb-storage.quirks=VID:PID:u and an unusual_uas.h entry.\n"
	"  -- RUN-OPTIONS     blkfloor run's options for both workloads:\n"
	"                     --rw, --size, --time, --bs, --qd, --interval,\n"
	"                     --quiet, --yes-destroy-data (for a write), ...\n"
	"  --flags F          quirk flags for the usb-storage side (default u,\n"
	"                     US_FL_IGNORE_UAS)\n"
	"  --dir DIR          where the two traces go (default a new\n"
	"                     /tmp/blkfloor-transport-XXXXXX)\n"
	"  --traces UAS BOT   the verdict on two traces already taken");
