// SPDX-License-Identifier: GPL-2.0
/*
 * Following the path of a run's device while it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pathmon.h"

uint64_t bf_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double bf_run_time_of(uint64_t mono_ns, uint64_t start_real_ns)
{
	struct timespec rt, mt;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	return ((double)mono_ns - (mt.tv_sec * 1e9 + mt.tv_nsec) +
		(rt.tv_sec * 1e9 + rt.tv_nsec) - (double)start_real_ns) / 1e9;
}

bool bf_temp_parse(const char *s, int64_t *mc)
{
	char *end;
	double v;

	while (*s == ' ')
		s++;
	if (!*s)
		return false;
	v = strtod(s, &end);
	while (*end == ' ' || *end == '\n')
		end++;
	if (*end || !isfinite(v))
		return false;
	/* an integer is millidegrees (hwmon); a decimal point, degrees */
	if (strchr(s, '.') || fabs(v) < 200)
		v *= 1000;
	if (v < -100000 || v > 300000)
		return false;
	*mc = (int64_t)llround(v);
	return true;
}

int bf_pathmon_init(struct bf_pathmon *pm, const char *disk,
		    const char *temp_file)
{
	memset(pm, 0, sizeof(*pm));
	pm->kmsg = -1;
	pm->st.fd = -1;
	pm->temp_file = temp_file;
	if (bf_path_read("/sys", disk, &pm->path))
		return -ENOENT;
	pm->reread_ns = bf_mono_ns();
	snprintf(pm->st.why, sizeof(pm->st.why), "not recorded");
	pm->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (pm->kmsg < 0) {
		pm->kmsg_err = errno;
		return 0;
	}
	/* only what is logged from now on */
	if (lseek(pm->kmsg, 0, SEEK_END) < 0) {
		pm->kmsg_err = errno;
		close(pm->kmsg);
		pm->kmsg = -1;
	}
	return 0;
}

void bf_pathmon_free(struct bf_pathmon *pm)
{
	if (pm->kmsg >= 0)
		close(pm->kmsg);
	pm->kmsg = -1;
	bf_scsitrace_close(&pm->st);
}

void bf_pathmon_scsi(struct bf_pathmon *pm)
{
	if (pm->path.scsi_id[0])
		bf_scsitrace_open(&pm->st, NULL, pm->path.scsi_id);
	else
		snprintf(pm->st.why, sizeof(pm->st.why),
			 "not recorded: not a SCSI disk");
}

struct note_ctx {
	bf_pathmon_note_fn fn;
	void *arg;
};

static void scsi_result(void *arg, const struct bf_scsires *r)
{
	struct note_ctx *n = arg;
	char text[160];
	int l = bf_scsires_fmt(text, sizeof(text), r);

	if (l >= (int)sizeof(text))
		l = (int)sizeof(text) - 1;
	n->fn(n->arg, "scsi_result", (uint64_t)(r->t * 1e9), text, l);
}

static void read_sample(struct bf_pathmon *pm, struct bf_pathstat *s)
{
	bf_pathstat_read("/sys", &pm->path, s);
	if (pm->temp_file) {
		char buf[64] = "";
		FILE *f = fopen(pm->temp_file, "r");

		s->temp = false;
		if (f) {
			if (fgets(buf, sizeof(buf), f))
				s->temp = bf_temp_parse(buf, &s->temp_mc);
			fclose(f);
		}
	}
}

void bf_pathmon_start(struct bf_pathmon *pm)
{
	read_sample(pm, &pm->last);
	pm->last_ns = bf_mono_ns();
	pm->have_last = true;
}

void bf_pathmon_sample(struct bf_pathmon *pm, uint64_t ios,
		       struct bf_pathiv *iv)
{
	struct bf_pathstat s;
	uint64_t now;

	if (!pm->have_last)
		bf_pathmon_start(pm);
	read_sample(pm, &s);
	now = bf_mono_ns();
	bf_pathiv_diff(&pm->last, &s, now - pm->last_ns, ios, iv);
	pm->last = s;
	pm->last_ns = now;
}

/* The path read again: report what changed (bf_pathmon_events). */
static void path_check(struct bf_pathmon *pm, bool now,
		       bf_pathmon_event_fn fn, void *arg)
{
	uint64_t t = bf_mono_ns();
	struct bf_path p;
	char what[256];
	int d;

	if (!now && t - pm->reread_ns < BF_PATHMON_REREAD_NS)
		return;
	pm->reread_ns = t;
	/* (gone: its disconnect or removal is the event) */
	if (bf_path_read("/sys", pm->path.disk, &p))
		return;
	d = bf_path_diff(&pm->path, &p, what, sizeof(what));
	if (!d)
		return;
	pm->path = p;
	fn(arg, d & BF_PATH_LINK ? BF_EV_LINK : BF_EV_HOST, t, what,
	   (int)strlen(what));
}

void bf_pathmon_events(struct bf_pathmon *pm, bf_pathmon_event_fn fn,
		       bf_pathmon_note_fn note, void *arg)
{
	struct note_ctx nc = { note, arg };

	char rec[2048];
	bool any = false;
	ssize_t n;

	while (pm->kmsg >= 0) {
		enum bf_event_kind k;
		const char *msg;
		uint64_t ts_us;

		n = read(pm->kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (note && bf_kmsg_scsi(rec, &pm->path, &ts_us, &msg))
			note(arg, "kmsg", ts_us * 1000, msg,
			     (int)strcspn(msg, "\n"));
		k = bf_kmsg_event(rec, &pm->path, &ts_us, &msg);
		if (k == BF_EV_NONE)
			continue;
		fn(arg, k, ts_us * 1000, msg, (int)strcspn(msg, "\n"));
		any = true;
	}
	if (note)
		bf_scsitrace_read(&pm->st, scsi_result, &nc);
	path_check(pm, any, fn, arg);
}
