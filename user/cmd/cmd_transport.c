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
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "blkfloor.h"
#include "classify.h"
#include "input.h"
#include "json.h"
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

/* One side of the A/B: its trace, what the trace says, its figures. */
struct tside {
	struct bf_input in;
	struct bf_runsum rs;
	struct bf_transport_side s;
};

static void side_free(struct tside *t)
{
	bf_input_free(&t->in);
	bf_runsum_free(&t->rs);
}

/*
 * Read @path, the trace of a run over @driver that exited @rc. Returns 0,
 * or EXIT_REFUSED with the reason said.
 */
static int side_of(const char *path, const char *driver, int rc, bool json,
		   struct tside *t)
{
	const char *drv;
	char err[400];
	FILE *f;
	int ret;

	memset(t, 0, sizeof(*t));
	if (bf_input_read(&t->in, path, BF_FORMAT_AUTO, err, sizeof(err)))
		return bf_refuse("transport", json, "%s", err);
	if (t->in.ld.format != BF_FORMAT_TRACE)
		return bf_refuse("transport", json, "%s: not a blkfloor trace (its first line is not '# blkfloor-trace v1'): transport reads the '# driver:' and '# usb_id:' lines of two",
				 t->in.name);
	f = bf_input_stream(&t->in);
	ret = f ? bf_runsum_read(f, &t->rs, err, sizeof(err)) : -errno;
	if (f)
		fclose(f);
	if (ret)
		return bf_refuse("transport", json, "%s: %s", t->in.name,
				 f ? err : strerror(-ret));
	drv = t->rs.hdr[BF_RK_DRIVER];
	if (!drv[0] || !t->rs.hdr[BF_RK_USB_ID][0])
		return bf_refuse("transport", json, "%s: no '# %s:' line: not the trace of a run on a USB disk",
				 t->in.name, drv[0] ? "usb_id" : "driver");
	if (strcmp(drv, driver))
		return bf_refuse("transport", json, "%s: the run went over %s ('# driver: %s'), not %s",
				 t->in.name, drv, drv, driver);
	t->s.driver = driver;
	/* a run that did not end "done" (or never ended) failed */
	t->s.failed = rc != 0 || t->in.ld.failed || !t->in.ld.ended ||
		      strcmp(t->rs.state, "done");
	t->s.aborts = bf_runsum_events(&t->rs, "abort");
	t->s.resets = bf_runsum_events(&t->rs, "reset");
	t->s.timeouts = bf_runsum_events(&t->rs, "timeout");
	t->s.errors = t->rs.errors;
	if (t->in.ser.n && t->in.ser.s[t->in.ser.n - 1].t > 0)
		t->s.mean_mbps = t->in.ser.s[t->in.ser.n - 1].bytes /
				 t->in.ser.s[t->in.ser.n - 1].t / 1e6;
	return 0;
}

/* The two runs are one workload on one bridge; EXIT_REFUSED if not. */
static int same_setup(const struct tside *a, const struct tside *b,
		      bool force, bool json)
{
	static const enum bf_rkey keys[] = {
		BF_RK_OP, BF_RK_PATTERN, BF_RK_BS, BF_RK_QD,
	};
	const char *x = a->rs.hdr[BF_RK_USB_ID], *y = b->rs.hdr[BF_RK_USB_ID];

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *u = a->rs.hdr[keys[k]], *v = b->rs.hdr[keys[k]];

		if (strcmp(u, v))
			return bf_refuse("transport", json, "the runs differ in %s: %s (%s) against %s (%s): the A/B is one workload over both drivers",
					 bf_rkey_name(keys[k]), u[0] ? u : "-",
					 a->in.name, v[0] ? v : "-", b->in.name);
	}
	if (strcasecmp(x, y) && !force)
		return bf_refuse("transport", json, "the traces are of two USB devices, %s (%s) and %s (%s): the A/B is one bridge over both drivers (--force judges them anyway)",
				 x, a->in.name, y, b->in.name);
	return 0;
}

static void json_side(struct bf_json *j, const char *key,
		      const struct tside *t)
{
	bf_json_obj_open(j, key);
	bf_json_str(j, "file", t->in.path);
	bf_json_str(j, "driver", t->s.driver);
	bf_json_double(j, "mean_MBps", round(t->s.mean_mbps * 1000) / 1000);
	bf_json_u64(j, "aborts", t->s.aborts);
	bf_json_u64(j, "resets", t->s.resets);
	bf_json_u64(j, "timeouts", t->s.timeouts);
	bf_json_u64(j, "io_errors", t->s.errors);
	bf_json_bool(j, "failed", t->s.failed);
	bf_json_str(j, "state", t->rs.state);
	bf_json_obj_close(j);
}

static void str_or_null(struct bf_json *j, const char *key, const char *v)
{
	if (v[0])
		bf_json_str(j, key, v);
	else
		bf_json_null(j, key);
}

/*
 * The verdict on the traces @ta (over @da, exit code @rca) and @tb (over
 * usb-storage, @rcb). An exit code: 0 a verdict, 1 unclear (both runs
 * failed), EXIT_REFUSED for traces that are no such A/B.
 */
static int verdict(const char *ta, const char *da, int rca, const char *tb,
		   int rcb, bool force, bool json)
{
	struct tside a, b;
	unsigned int vid = 0, pid = 0, bcd = 0;
	char out[4096], why[160], entry[1024], quirk[32] = "", *w = NULL;
	const char *mf, *pr;
	enum bf_tverdict v;
	size_t wl = 0;
	FILE *wf;
	int ret;

	ret = side_of(ta, da, rca, json, &a);
	if (ret) {
		side_free(&a);
		return ret;
	}
	ret = side_of(tb, "usb-storage", rcb, json, &b) ?:
	      same_setup(&a, &b, force, json);
	if (ret)
		goto out;
	bf_input_say("transport", &a.in);
	bf_input_say("transport", &b.in);
	sscanf(a.rs.hdr[BF_RK_USB_ID], "%x:%x", &vid, &pid);
	sscanf(a.rs.hdr[BF_RK_USB_BCD], "%x", &bcd);
	/* the bridge's USB strings, never the drive's SCSI model */
	mf = a.rs.hdr[BF_RK_USB_MANUFACTURER];
	pr = a.rs.hdr[BF_RK_USB_PRODUCT];
	v = bf_transport_judge(&a.s, &b.s, why, sizeof(why));
	ret = v == BF_TV_UNCLEAR ? EXIT_FAIL : EXIT_OK;
	if (!json) {
		bf_transport_verdict(&a.s, &b.s, vid, pid, bcd, mf, pr, out,
				     sizeof(out));
		fputs(out, stdout);
		if (v == BF_TV_BOT && (!mf[0] || !pr[0]))
			printf("(the trace does not record the bridge's USB strings: 'lsusb -v -d %04x:%04x' shows iManufacturer and iProduct)\n",
			       vid, pid);
		goto out;
	}
	if (v == BF_TV_BOT) {
		snprintf(quirk, sizeof(quirk), "%04x:%04x:u", vid, pid);
		bf_transport_entry(entry, sizeof(entry), &a.s, &b.s, vid, pid,
				   bcd, mf, pr, why);
	}
	wf = open_memstream(&w, &wl);
	for (int i = 0; wf && i < 2; i++) {
		const struct tside *t = i ? &b : &a;

		for (const char *p = t->in.ld.warn; *p;) {
			int l = (int)strcspn(p, "\n");

			fprintf(wf, "%s%s: %.*s", ftell(wf) ? "\n" : "",
				t->in.name, l, p);
			p += l + (p[l] == '\n');
		}
	}
	if (wf)
		fclose(wf);
	{
		struct bf_json j;

		bf_json_doc_open(&j, stdout);
		bf_json_str(&j, "verdict", bf_tverdict_name(v));
		bf_json_str(&j, "why", why);
		bf_json_str(&j, "usb_id", a.rs.hdr[BF_RK_USB_ID]);
		str_or_null(&j, "usb_manufacturer", mf);
		str_or_null(&j, "usb_product", pr);
		json_side(&j, "uas", &a);
		json_side(&j, "bot", &b);
		str_or_null(&j, "quirk", quirk);
		str_or_null(&j, "unusual_uas", v == BF_TV_BOT ? entry : "");
		bf_json_warnings(&j, "warnings", w);
		bf_json_obj_close(&j);
	}
	free(w);
out:
	side_free(&a);
	side_free(&b);
	return ret;
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
	const char *flags = "u", *dir = NULL, *name = NULL, *tr[2] = { 0 };
	struct bf_bind_state orig, now;
	struct bf_bind_plan p;
	struct sigaction sa;
	struct bf_path path;
	char tmp[] = "/tmp/blkfloor-transport-XXXXXX";
	char ta[512], tb[512], disk[32], dev[64], err[256];
	bool json = false, force = false, traces = false;
	int i, ntr = 0, rca, rcb = -1, ret, rr;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--flags") && i + 1 < argc)
			flags = argv[++i];
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--force"))
			force = true;
		else if (!strcmp(argv[i], "--traces"))
			traces = true;
		else if (traces && (argv[i][0] != '-' || !argv[i][1]) &&
			 ntr < 2)
			tr[ntr++] = argv[i];
		else if (!traces && argv[i][0] != '-' && !name)
			name = argv[i];
		else
			return usage("transport DEV [--flags F] [--dir DIR] [--json] -- RUN-OPTIONS... | transport --traces UAS-TRACE BOT-TRACE [--json]");
	}
	if (traces) {
		if (ntr != 2 || name || i < argc)
			return usage("--traces takes two traces, the UAS run's and the usb-storage run's, and no device");
		return verdict(tr[0], "uas", 0, tr[1], 0, force, json);
	}
	if (!name)
		return usage("no device");
	i = i < argc ? i + 1 : i;	/* what follows "--" goes to run */
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
	/* usb-storage drives Bulk-Only: a device without it cannot be moved */
	ret = bf_usb_intf_has_bot(SYSROOT, orig.intf);
	if (ret <= 0) {
		fprintf(stderr, "blkfloor transport: %s (%04x:%04x): %s; nothing changed\n",
			name, orig.vid, orig.pid, !ret ?
			"its interface has no Bulk-Only alternate setting (class 8, protocol 0x50): usb-storage cannot drive it" :
			"cannot read its USB descriptors");
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
	if (!dir) {
		dir = mkdtemp(tmp);
		if (!dir) {
			perror("blkfloor transport: mkdtemp");
			return EXIT_FAIL;
		}
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
	ret = verdict(ta, orig.driver, rca, tb, rcb, force, json);
	return rr ?: ret;
}

BLKFLOOR_COMMAND(transport,
	"DEV [--flags F] [--dir DIR] [--json] -- RUN-OPTIONS... | --traces UAS BOT",
	do_transport,
	"The same workload on a USB enclosure over its driver now (UAS) and\n"
	"over usb-storage, then the binding put back: adds VID:PID:F to\n"
	"usb-storage's quirks parameter, re-binds the interface, runs, and\n"
	"restores the quirks and the driver (also after SIGINT or SIGTERM).\n"
	"A device whose interface has no Bulk-Only alternate setting is\n"
	"refused before anything changes. Prints both runs and, where UAS\n"
	"aborts, resets or fails while usb-storage does not, or usb-storage is\n"
	"15 % faster, the boot parameter usb-storage.quirks=VID:PID:u and an\n"
	"unusual_uas.h entry with the bridge's USB strings. Exit status: 0 a\n"
	"verdict, 1 a run or the re-binding failed, or both runs failed, 2 bad\n"
	"input or usage.\n"
	"  -- RUN-OPTIONS     blkfloor run's options for both workloads:\n"
	"                     --rw, --size, --time, --bs, --qd, --interval,\n"
	"                     --quiet, --yes-destroy-data (for a write), ...\n"
	"  --flags F          quirk flags for the usb-storage side (default u,\n"
	"                     US_FL_IGNORE_UAS)\n"
	"  --dir DIR          where the two traces go (default a new\n"
	"                     /tmp/blkfloor-transport-XXXXXX)\n"
	"  --traces UAS BOT   the verdict on two traces already taken: a run\n"
	"                     over uas and one over usb-storage ('# driver:'),\n"
	"                     one workload on one bridge ('# usb_id:')\n"
	"  --force            judge traces of two USB devices anyway\n"
	"  --json             one JSON object: verdict, why, both runs, the\n"
	"                     quirk and the unusual_uas.h entry (or null)");
