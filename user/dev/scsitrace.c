// SPDX-License-Identifier: GPL-2.0
/*
 * The SCSI results of a run's disk, from a tracepoint (see scsitrace.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scsitrace.h"

#define EVENT	"events/scsi/scsi_dispatch_cmd_done"

static const char *const default_roots[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing", NULL,
};

/* Write @s to @dir/@file; 0 or -errno. */
static int put(const char *dir, const char *file, const char *s)
{
	char path[512];
	size_t l = strlen(s);
	int fd, ret = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, l);
	if (n != (ssize_t)l)
		ret = n < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

int bf_scsitrace_open(struct bf_scsitrace *st, const char *const *roots,
		      const char *hctl)
{
	unsigned int h, c, t;
	unsigned long long l;
	const char *root = NULL, *step;
	char inst[320], filter[160];
	int i, ret;

	memset(st, 0, sizeof(*st));
	st->fd = -1;
	if (!roots)
		roots = default_roots;
	if (!hctl || sscanf(hctl, "%u:%u:%u:%llu", &h, &c, &t, &l) != 4) {
		snprintf(st->why, sizeof(st->why),
			 "not recorded: not a SCSI disk");
		return -ENODEV;
	}
	for (i = 0; roots[i]; i++) {
		snprintf(inst, sizeof(inst), "%s/instances", roots[i]);
		if (!access(inst, W_OK)) {
			root = roots[i];
			break;
		}
	}
	if (!root) {
		ret = -errno;
		snprintf(st->why, sizeof(st->why),
			 "not recorded: no tracefs to write to (%s): %s",
			 roots[0] ? roots[0] : "none", strerror(-ret));
		return ret;
	}
	snprintf(st->dir, sizeof(st->dir), "%s/instances/blkfloor-%d", root,
		 (int)getpid());
	/* a crashed run of a process with our pid left its instance */
	rmdir(st->dir);
	step = "mkdir";
	if (mkdir(st->dir, 0700)) {
		ret = -errno;
		st->dir[0] = '\0';
		goto fail;
	}
	snprintf(filter, sizeof(filter),
		 "host_no == %u && channel == %u && id == %u && lun == %llu && result != 0",
		 h, c, t, l);
	/* the kernel log's clock, so that the two line up */
	step = "trace_clock mono";
	ret = put(st->dir, "trace_clock", "mono");
	if (!ret) {
		step = "buffer_size_kb";
		ret = put(st->dir, "buffer_size_kb", "64");
	}
	if (!ret) {
		step = "the event's filter";
		ret = put(st->dir, EVENT "/filter", filter);
	}
	if (!ret) {
		step = "the event";
		ret = put(st->dir, EVENT "/enable", "1");
	}
	if (ret)
		goto fail;
	snprintf(inst, sizeof(inst), "%s/trace_pipe", st->dir);
	step = "trace_pipe";
	st->fd = open(inst, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (st->fd < 0) {
		ret = -errno;
		goto fail;
	}
	snprintf(st->why, sizeof(st->why),
		 "scsi:scsi_dispatch_cmd_done, results other than 0 (%s)",
		 root);
	return 0;
fail:
	snprintf(st->why, sizeof(st->why), "not recorded: %s: %s", step,
		 strerror(-ret));
	bf_scsitrace_close(st);
	return ret;
}

void bf_scsitrace_read(struct bf_scsitrace *st, bf_scsitrace_fn fn, void *arg)
{
	struct bf_scsires r;
	ssize_t n;

	while (st->fd >= 0) {
		char *p, *nl;

		if (st->len >= sizeof(st->buf) - 1)
			st->len = 0;	/* a line longer than any the event prints */
		n = read(st->fd, st->buf + st->len, sizeof(st->buf) - 1 - st->len);
		if (n <= 0)
			break;
		st->len += (size_t)n;
		st->buf[st->len] = '\0';
		for (p = st->buf; (nl = strchr(p, '\n')); p = nl + 1) {
			*nl = '\0';
			if (bf_scsires_parse(p, &r))
				fn(arg, &r);
		}
		st->len -= (size_t)(p - st->buf);
		memmove(st->buf, p, st->len);
	}
}

void bf_scsitrace_close(struct bf_scsitrace *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	if (st->dir[0]) {
		put(st->dir, EVENT "/enable", "0");
		rmdir(st->dir);
	}
	st->dir[0] = '\0';
}

/* the word after "@key=" up to a blank or ')' */
static bool word(const char *s, const char *key, char *out, size_t len)
{
	const char *p = strstr(s, key);
	size_t n;

	if (!p)
		return false;
	p += strlen(key);
	n = strcspn(p, " )");
	if (!n || n >= len)
		return false;
	snprintf(out, len, "%.*s", (int)n, p);
	return true;
}

bool bf_scsires_parse(const char *line, struct bf_scsires *r)
{
	const char *ev = strstr(line, ": scsi_dispatch_cmd_done: ");
	const char *cmnd, *res, *p;
	char v[32];

	memset(r, 0, sizeof(*r));
	if (!ev)
		return false;
	/* the timestamp ends just before the event's name */
	for (p = ev; p > line && p[-1] != ' '; p--)
		;
	r->t = strtod(p, NULL);
	cmnd = strstr(ev, " cmnd=(");
	res = strstr(ev, " result=(");
	if (!cmnd || !res)
		return false;
	snprintf(r->opcode, sizeof(r->opcode), "%.*s",
		 (int)strcspn(cmnd + 7, " )"), cmnd + 7);
	p = strstr(cmnd, " lba=");
	if (p && p < res) {
		r->lba = strtoull(p + 5, NULL, 10);
		r->have_lba = true;
	}
	if (!word(res, " host=", r->host, sizeof(r->host)) ||
	    !word(res, " status=", r->status, sizeof(r->status)))
		return false;
	if (word(res, "sense=(key=", v, sizeof(v))) {
		r->key = (unsigned int)strtoul(v, NULL, 0);
		r->have_sense = true;
	}
	if (word(res, " asc=", v, sizeof(v)))
		r->asc = (unsigned int)strtoul(v, NULL, 0);
	if (word(res, " ascq=", v, sizeof(v)))
		r->ascq = (unsigned int)strtoul(v, NULL, 0);
	return r->opcode[0] != '\0';
}

int bf_scsires_fmt(char *buf, size_t len, const struct bf_scsires *r)
{
	char lba[32] = "", sense[40] = "-";

	if (r->have_lba)
		snprintf(lba, sizeof(lba), " lba=%llu", r->lba);
	if (r->have_sense)
		snprintf(sense, sizeof(sense), "0x%x/0x%x/0x%x", r->key, r->asc,
			 r->ascq);
	return snprintf(buf, len, "%s%s host=%s status=%s sense=%s", r->opcode,
			lba, r->host, r->status, sense);
}
