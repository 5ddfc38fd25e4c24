// SPDX-License-Identifier: GPL-2.0
/*
 * Incremental trace writing (see traceout.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>

#include "blkfloor.h"
#include "devinfo.h"
#include "hostinfo.h"
#include "trace.h"
#include "traceout.h"
#include "units.h"

/* Flush to the disk at least this often (seconds) while a run goes on. */
#define SYNC_EVERY_S	10.0

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void tracer_init(struct bf_tracer *t, const char *path,
			uint64_t dev_size)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	t->fd = -1;
	t->dev_size = dev_size;
	t->last_sync = mono_s();
}

/*
 * One writer per trace: a command that writes one holds a lock on it, so
 * that attach cannot append to a trace its first writer is still writing.
 */
static int tracer_lock(int fd, const char *path)
{
	if (!flock(fd, LOCK_EX | LOCK_NB) || errno != EWOULDBLOCK)
		return 0;	/* locked, or a filesystem without locks */
	fprintf(stderr, "blkfloor: trace %s is being written by another blkfloor command\n",
		path);
	return -EBUSY;
}

void bf_tracer_fd(struct bf_tracer *t, int fd, const char *name)
{
	tracer_init(t, name, 0);
	t->fd = fd;
}

int bf_tracer_create(struct bf_tracer *t, const char *path, bool force,
		     uint64_t expect_bytes, uint64_t dev_size)
{
	char a[BF_FMT_LEN], b[BF_FMT_LEN];
	struct statvfs vfs;
	struct stat st;
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC, ret;

	tracer_init(t, path, dev_size);
	/* --force truncates only once the checks passed */
	flags |= force ? 0 : O_EXCL;
	if (force && stat(path, &st) && errno == ENOENT)
		t->created = true;
	t->fd = open(path, flags, 0644);
	if (t->fd < 0) {
		ret = -errno;
		if (ret == -EEXIST)
			fprintf(stderr, "blkfloor: trace %s exists: choose another name, or --force to overwrite it\n",
				path);
		else
			fprintf(stderr, "blkfloor: cannot create trace %s: %s\n",
				path, strerror(-ret));
		return ret;
	}
	if (!force)
		t->created = true;
	ret = tracer_lock(t->fd, path);
	if (ret)
		goto fail;
	if (fstat(t->fd, &st)) {
		ret = -errno;
		goto fail;
	}
	/* a FIFO or /dev/stdout (with --force) has no filesystem to check */
	if (!S_ISREG(st.st_mode))
		return 0;
	/* what an overwritten trace frees counts as room */
	if (expect_bytes > (uint64_t)st.st_size)
		expect_bytes -= (uint64_t)st.st_size;
	else
		expect_bytes = 0;
	if (fstatvfs(t->fd, &vfs)) {
		ret = -errno;
		fprintf(stderr, "blkfloor: trace %s: cannot read its filesystem's free space: %s\n",
			path, strerror(-ret));
		goto fail;
	}
	if ((uint64_t)vfs.f_bavail * vfs.f_frsize < expect_bytes) {
		fprintf(stderr, "blkfloor: trace %s: its filesystem has %s free, the trace needs about %s\n",
			path,
			bf_fmt_bytes(a, sizeof(a),
				     (uint64_t)vfs.f_bavail * vfs.f_frsize),
			bf_fmt_bytes(b, sizeof(b), expect_bytes));
		ret = -ENOSPC;
		goto fail;
	}
	if (force && ftruncate(t->fd, 0)) {
		ret = -errno;
		fprintf(stderr, "blkfloor: cannot overwrite trace %s: %s\n",
			path, strerror(-ret));
		goto fail;
	}
	return 0;

fail:
	bf_tracer_discard(t);
	return ret;
}

int bf_tracer_resume(struct bf_tracer *t, const char *path, uint32_t run_id,
		     uint64_t dev_size, uint64_t *next)
{
	struct bf_trace_scan sc;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int fd, ret;

	tracer_init(t, path, dev_size);
	*next = 0;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return bf_tracer_create(t, path, false, 0, dev_size);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "blkfloor: cannot open trace %s: %s\n", path,
			strerror(-ret));
		return ret;
	}
	ret = tracer_lock(fd, path);
	if (ret) {
		close(fd);
		return ret;
	}
	f = fdopen(dup(fd), "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	bf_trace_scan_init(&sc);
	while ((len = getline(&line, &cap, f)) > 0)
		bf_trace_scan_line(&sc, line, (size_t)len,
				   line[len - 1] == '\n');
	free(line);
	fclose(f);
	ret = -EINVAL;
	if (sc.lines && !sc.magic)
		fprintf(stderr, "blkfloor: %s is not a blkfloor trace\n", path);
	else if (sc.bad)
		fprintf(stderr, "blkfloor: trace %s has lines this writer did not write\n",
			path);
	else if (sc.run_id && sc.run_id != run_id)
		fprintf(stderr, "blkfloor: trace %s is of run %u, not run %u\n",
			path, sc.run_id, run_id);
	else if (sc.ended)
		fprintf(stderr, "blkfloor: trace %s is complete already (it has its trailer)\n",
			path);
	else
		ret = 0;
	if (ret) {
		close(fd);
		return ret;
	}
	/* a line cut by a killed writer is not part of the trace */
	if (ftruncate(fd, (off_t)sc.good_len) ||
	    lseek(fd, 0, SEEK_END) < 0) {
		ret = -errno;
		fprintf(stderr, "blkfloor: trace %s: %s\n", path, strerror(-ret));
		close(fd);
		return ret;
	}
	t->fd = fd;
	t->off = sc.good_len;
	t->header_done = sc.header;
	t->gaps_before = sc.gap_ivs;
	*next = sc.have_last ? sc.last + 1 : 0;
	return 0;
}

/* Report a failed write once; the file keeps its whole lines. */
static void tracer_fail(struct bf_tracer *t, int err)
{
	int cut;

	if (t->failed)
		return;
	t->failed = true;
	t->err = err;
	/* Cut a partial line; should that fail too, resuming cuts it. */
	cut = ftruncate(t->fd, (off_t)t->off);
	(void)cut;
	fprintf(stderr, "blkfloor: trace %s: %s: no more intervals are written to it; the run goes on in the kernel",
		t->path, strerror(err));
	if (t->run_id)
		fprintf(stderr, ", and blkfloor attach %u --trace %s (or dump %u) completes the trace while the kernel keeps the run",
			t->run_id, t->path, t->run_id);
	fputc('\n', stderr);
}

static void tracer_put(struct bf_tracer *t, const char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	if (t->fd < 0 || t->failed)
		return;
	while (done < len) {
		n = write(t->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			tracer_fail(t, n < 0 ? errno : ENOSPC);
			return;
		}
		done += (size_t)n;
	}
	t->off += len;
	if (mono_s() - t->last_sync >= SYNC_EVERY_S) {
		t->last_sync = mono_s();
		if (fdatasync(t->fd) && errno != EINVAL && errno != EROFS)
			tracer_fail(t, errno);
	}
}

/* Device size from sysfs when the caller did not know it. */
static uint64_t sysfs_size(const char *name)
{
	char path[160];
	unsigned long long sectors = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/block/%s/size", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &sectors) != 1)
		sectors = 0;
	fclose(f);
	return sectors * 512;
}

void bf_tracer_start(struct bf_tracer *t, struct bf_nl *nl,
		     const struct bf_run_info *ri)
{
	struct bf_trace_meta m = { 0 };
	char opts[BF_FLAGS_LEN];
	struct bf_devinfo di;
	char name[64], modver[64], model[200], events[128];
	struct bf_path path;
	struct bf_hostid hid;
	struct utsname u;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	t->run_id = ri->id;
	if (t->header_done || t->fd < 0)
		return;
	bf_dev_basename(ri->dev, name, sizeof(name));
	bf_devinfo_read("/sys", name, &di);
	bf_module_version(nl, modver, sizeof(modver));
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	if (di.vendor[0] && di.model[0])
		snprintf(model, sizeof(model), "%s %s", di.vendor, di.model);
	else
		snprintf(model, sizeof(model), "%s", di.model);
	m.device = ri->dev;
	m.run_id = ri->id;
	m.size_bytes = t->dev_size ? t->dev_size : sysfs_size(name);
	m.model = model;
	m.serial = di.serial;
	m.transport = di.transport;
	m.kernel = u.release;
	m.op = bf_op_name(ri->op);
	m.pattern = ri->pattern == BLKFLOOR_PATTERN_SEQ ? "seq" : "random";
	m.bs = ri->bs;
	m.qd = ri->qd;
	m.offset = ri->offset;
	m.length = ri->length;
	m.interval_ns = ri->interval_ns ? ri->interval_ns :
			BLKFLOOR_INTERVAL_DEFAULT_NS;
	m.data = bf_data_name(ri->data);
	m.options = bf_flags_str(opts, sizeof(opts), ri->flags);
	m.seed = ri->seed;
	m.start_time_ns = ri->start_time_ns;
	m.cli_version = BLKFLOOR_CLI_VERSION;
	m.module_version = modver;
	bf_hostid_read("/proc", "/sys", name, &hid);
	m.boot_id = hid.boot_id;
	m.tainted = hid.tainted;
	m.modules = hid.modules;
	if (t->pm) {
		path = t->pm->path;
		if (t->pm->temp_file)
			snprintf(path.temp_src, sizeof(path.temp_src), "%s",
				 t->pm->temp_file);
		if (t->pm->kmsg >= 0)
			snprintf(events, sizeof(events),
				 "kernel log (/dev/kmsg), from the start of the run");
		else
			snprintf(events, sizeof(events),
				 "not recorded: /dev/kmsg: %s",
				 strerror(t->pm->kmsg_err));
	} else {
		bf_path_read("/sys", name, &path);
		snprintf(events, sizeof(events),
			 "not recorded (intervals read from the kernel's ring afterwards)");
	}
	m.path = &path;
	m.events = events;
	m.scsi_results = t->pm ? t->pm->st.why :
			 "not recorded (intervals read from the kernel's ring afterwards)";
	f = open_memstream(&buf, &len);
	if (!f) {
		tracer_fail(t, ENOMEM);
		return;
	}
	bf_trace_write_header(f, &m);
	if (fclose(f)) {
		free(buf);
		tracer_fail(t, ENOMEM);
		return;
	}
	tracer_put(t, buf, len);
	free(buf);
	t->header_done = true;
}

void bf_tracer_iv(struct bf_tracer *t, const struct bf_iv *iv)
{
	char line[BF_TRACE_LINE_MAX];

	tracer_put(t, line, bf_trace_fmt_iv(line, sizeof(line), iv));
}

void bf_tracer_gap(struct bf_tracer *t, uint64_t first, uint64_t last)
{
	char line[BF_TRACE_LINE_MAX];

	tracer_put(t, line, bf_trace_fmt_gap(line, sizeof(line), first, last));
}

void bf_tracer_event(struct bf_tracer *t, double ts, const char *kind,
		     const char *msg, int msglen)
{
	char line[BF_TRACE_LINE_MAX];

	tracer_put(t, line, bf_trace_fmt_event(line, sizeof(line), ts, kind,
					       msg, msglen));
}

void bf_tracer_note(struct bf_tracer *t, const char *key, const char *text)
{
	char line[BF_TRACE_NOTE_MAX], *p;
	int n = snprintf(line, sizeof(line) - 1, "# %s: %s", key, text);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line) - 1)
		n = sizeof(line) - 2;
	for (p = line; p < line + n; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	line[n++] = '\n';
	line[n] = '\0';
	tracer_put(t, line, (size_t)n);
}

void bf_tracer_errors(struct bf_tracer *t, const struct bf_run_result *res)
{
	char line[BF_TRACE_LINE_MAX];
	size_t i;

	if (t->ended)
		return;
	for (i = 0; i < res->nerrlog; i++)
		tracer_put(t, line, bf_trace_fmt_error(line, sizeof(line),
						       &res->errlog[i]));
}

void bf_tracer_run_lat(struct bf_tracer *t, const struct bf_run_result *res)
{
	char line[BF_TRACE_LINE_MAX];

	if (t->ended || t->gaps_before)
		return;
	tracer_put(t, line, bf_trace_fmt_run_lat(line, sizeof(line),
						 &res->hist, res->lat_max));
}

void bf_tracer_end(struct bf_tracer *t, const struct bf_run_info *ri,
		   uint64_t dropped)
{
	char buf[BF_TRACE_LINE_MAX];

	if (t->ended)
		return;
	tracer_put(t, buf, bf_trace_fmt_end(buf, sizeof(buf),
					    bf_state_name(ri->state), ri->err,
					    dropped + t->gaps_before));
	t->ended = !t->failed;
}

int bf_tracer_close(struct bf_tracer *t)
{
	int ret = 0;

	if (t->fd < 0)
		return t->failed ? -t->err : 0;
	if (!t->failed && fdatasync(t->fd) && errno != EINVAL &&
	    errno != EROFS)
		tracer_fail(t, errno);
	if (close(t->fd) && !t->failed)
		tracer_fail(t, errno);
	t->fd = -1;
	if (t->failed)
		ret = -t->err;
	return ret;
}

int bf_tracer_rewind(struct bf_tracer *t)
{
	int ret = 0;

	if (t->fd < 0 || t->failed)
		return 0;
	if (!ftruncate(t->fd, 0) && lseek(t->fd, 0, SEEK_SET) >= 0)
		t->off = 0;
	else if (errno != EINVAL && errno != ESPIPE)
		ret = -errno;	/* (a pipe: the next trace follows) */
	t->header_done = false;
	t->ended = false;
	t->run_id = 0;
	t->gaps_before = 0;
	return ret;
}

void bf_tracer_discard(struct bf_tracer *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (t->created)
		unlink(t->path);
	t->created = false;
}
