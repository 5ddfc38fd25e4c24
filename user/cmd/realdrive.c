// SPDX-License-Identifier: GPL-2.0
/*
 * The experiments on a real device: see realdrive.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devinfo.h"
#include "pathinfo.h"
#include "pathmon.h"
#include "realdrive.h"
#include "result.h"
#include "traceout.h"

/* A probe's stop: the rate under @below for @hold seconds. */
struct probe_watch {
	double below, hold, low;
};

static bool probe_watch(void *arg, const struct bf_iv *iv)
{
	struct probe_watch *w = arg;
	double dt = (iv->end_ns - iv->start_ns) / 1e9;

	if (dt <= 0)
		return false;
	w->low = iv->bytes / dt / 1e6 < w->below ? w->low + dt : 0;
	return w->hold > 0 && w->low >= w->hold - 1e-9;
}

/* A probe run's intervals into the trace, at their time into the traced
 * run and after its bytes: the experiments' data, after their idle lines */
static void trace_probe(struct bf_realdrive *rd, const struct bf_run_result *res)
{
	double shift;
	size_t i;

	if (!rd->trace || !rd->run_start_ns)
		return;
	shift = (double)res->info.start_time_ns - (double)rd->run_start_ns;
	for (i = 0; i < res->niv; i++) {
		struct bf_iv iv = res->iv[i];

		if (!iv.have)
			continue;
		iv.index = rd->trace_index++;
		iv.start_ns = (uint64_t)(iv.start_ns + shift);
		iv.end_ns = (uint64_t)(iv.end_ns + shift);
		iv.bytes_total += rd->trace_bytes;
		iv.have_path = false;
		bf_tracer_iv(rd->trace, &iv);
	}
	rd->trace_bytes += res->info.bytes;
}

/*
 * One part of a probe: writes from rd->pos on, wrapping at the region's
 * end, at most @max_b bytes and @max_s seconds (0: no limit), capped at
 * @cap MB/s (0: none), stopped by @w (NULL: not watched).
 */
static int rd_part(struct bf_realdrive *rd, double max_b, double max_s,
		   double cap, struct probe_watch *w, struct bf_series *out,
		   double *wrote_b, double *wrote_s)
{
	uint64_t bs = rd->o->bs, end = rd->start + rd->len;
	struct bf_tracer *saved = rd->c->trace;
	double bytes = 0, secs = 0;
	int ret = 0;

	/* the probes are not the traced run */
	rd->c->trace = NULL;
	rd->c->flat = false;
	rd->c->watch = w ? probe_watch : NULL;
	rd->c->watch_arg = w;
	rd->c->status = NULL;
	for (;;) {
		struct bf_run_result res;
		struct bf_run_req req;
		double left_b = max_b > 0 ? max_b - bytes : 0;
		double left_s = max_s > 0 ? max_s - secs : 0;
		uint64_t wrote;
		bool stopped;

		if ((max_b > 0 && left_b < bs) || (max_s > 0 && left_s <= 0))
			break;
		if (rd->pos + bs > end)
			rd->pos = rd->start;
		bf_req_base(&req, rd->o, rd->c->dev);
		req.op = BLKFLOOR_OP_WRITE;
		req.pattern = BLKFLOOR_PATTERN_SEQ;
		req.bs = rd->o->bs;
		req.qd = rd->o->qd;
		req.offset = rd->pos;
		req.length = bf_round_down(end - rd->pos, bs);
		if (left_b > 0)
			req.max_bytes = bf_round_down((uint64_t)left_b, bs);
		if (left_s > 0)
			req.max_time_ns = (uint64_t)(left_s * 1e9);
		if (cap > 0)
			req.rate_bps = (uint64_t)(cap * 1e6);
		ret = bf_measure(rd->c, &req, rd->o, "probe", &res);
		if (!ret && (res.interrupted ||
			     res.info.state == BLKFLOOR_STATE_FAILED))
			ret = res.interrupted ? -EINTR : res.info.err ?
			      res.info.err : -EIO;
		if (!ret)
			ret = bf_result_series(&res, out);
		if (!ret)
			trace_probe(rd, &res);
		rd->pos += res.info.bytes;
		bytes += res.info.bytes;
		secs += res.info.elapsed_ns / 1e9;
		stopped = res.watch_stopped;
		wrote = res.info.bytes;
		bf_result_free(&res);
		/* the floor came back, or the run ended short of the region */
		if (ret || stopped || !wrote || rd->pos + bs <= end)
			break;
	}
	rd->c->watch = NULL;
	rd->c->trace = saved;
	*wrote_b = bytes;
	*wrote_s = secs;
	return ret;
}

static int rd_write(void *ctx, const struct bf_probe *p, struct bf_series *out)
{
	struct bf_realdrive *rd = ctx;
	struct probe_watch w = { .below = p->stop_below, .hold = p->stop_hold_s };
	double b = 0, s = 0;
	int ret;

	/* a capped first part: not watched, the rate is under the floor */
	if (p->cap_mbps > 0 && p->cap_bytes > 0) {
		ret = rd_part(rd, p->cap_bytes, p->secs, p->cap_mbps, NULL, out,
			      &b, &s);
		if (ret)
			return ret;
		return rd_part(rd, p->bytes > 0 ? fmax(p->bytes - b, 1) : 0,
			       p->secs > 0 ? fmax(p->secs - s, 1e-3) : 0, 0,
			       &w, out, &b, &s);
	}
	return rd_part(rd, p->bytes, p->secs, p->cap_mbps, &w, out, &b, &s);
}

static int rd_idle(void *ctx, const struct bf_trial *t)
{
	struct bf_realdrive *rd = ctx;
	double secs = t->gap_s;
	struct timespec ts = {
		.tv_sec = (time_t)secs,
		.tv_nsec = (long)((secs - (time_t)secs) * 1e9),
	};

	if (secs > 0 && !rd->o->quiet && !rd->o->json)
		fprintf(stderr, "diagnose: idle for %g s\n", secs);
	if (rd->trace && rd->run_start_ns) {
		struct timespec now;
		char line[200];

		clock_gettime(CLOCK_REALTIME, &now);
		bf_trial_words(t, (now.tv_sec * 1e9 + now.tv_nsec -
				   (double)rd->run_start_ns) / 1e9,
			       line, sizeof(line));
		bf_tracer_note(rd->trace, "experiment", line);
	}
	while (secs > 0 && nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}

static int rd_discard(void *ctx)
{
	struct bf_realdrive *rd = ctx;
	struct bf_run_result res;
	struct bf_tracer *saved = rd->c->trace;
	struct bf_run_req req;
	int ret;

	if (!rd->c->caps.discard_max)
		return -EOPNOTSUPP;
	bf_req_base(&req, rd->o, rd->c->dev);
	req.op = BLKFLOOR_OP_DISCARD;
	req.pattern = BLKFLOOR_PATTERN_SEQ;
	req.bs = rd->o->bs;
	req.qd = rd->o->qd;
	req.offset = rd->start;
	req.length = rd->len;
	rd->c->trace = NULL;
	rd->c->flat = true;
	ret = bf_measure(rd->c, &req, rd->o, "discard", &res);
	rd->c->trace = saved;
	if (!ret)
		ret = bf_run_exit_code(&res) ? -EIO : 0;
	bf_result_free(&res);
	return ret;
}

static int rd_temp(void *ctx, double *c)
{
	struct bf_realdrive *rd = ctx;
	struct bf_pathstat st = { 0 };
	struct bf_path p;
	char buf[64];
	int64_t mc;
	FILE *f;

	if (rd->o->temp_file) {
		f = fopen(rd->o->temp_file, "r");
		if (!f)
			return -ENODATA;
		if (!fgets(buf, sizeof(buf), f) || !bf_temp_parse(buf, &mc)) {
			fclose(f);
			return -ENODATA;
		}
		fclose(f);
		*c = mc / 1000.0;
		return 0;
	}
	if (bf_path_read("/sys", rd->disk, &p) || !p.temp_src[0])
		return -ENODATA;
	bf_pathstat_read("/sys", &p, &st);
	if (!st.temp)
		return -ENODATA;
	*c = st.temp_mc / 1000.0;
	return 0;
}

static void rd_note(void *ctx, const char *line)
{
	struct bf_realdrive *rd = ctx;

	if (rd->trace)
		bf_tracer_note(rd->trace, "experiment", line);
	if (!rd->o->quiet && !rd->o->json)
		fprintf(stderr, "diagnose: %s\n", line);
}

void bf_realdrive_init(struct bf_realdrive *rd, struct bf_ctx *c,
		       const struct bf_opts *o, uint64_t start, uint64_t len,
		       uint64_t pos, struct bf_tracer *trace,
		       struct bf_drive *drv)
{
	memset(rd, 0, sizeof(*rd));
	rd->c = c;
	rd->o = o;
	rd->start = start;
	rd->len = len;
	rd->pos = pos;
	rd->trace = trace;
	bf_dev_basename(c->dev, rd->disk, sizeof(rd->disk));
	memset(drv, 0, sizeof(*drv));
	drv->write = rd_write;
	drv->idle = rd_idle;
	drv->discard = rd_discard;
	drv->temp = rd_temp;
	drv->note = rd_note;
	drv->ctx = rd;
}
