// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated drive of the experiments' tests: see simdrive.h.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "simdrive.h"

#define STEP_S	0.05

void sim_init(struct simdrive *d, double hi, double lo, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->hi = hi;
	d->lo = lo;
	d->iv_s = 1;
	d->ambient = 30;
	d->temp = 30;
	d->rng.s = seed;
}

/* What the drive allows now, MB/s. */
static double sim_rate(const struct simdrive *d)
{
	double r = d->hi;

	if (d->cache && d->used >= d->cache_bytes)
		r = fmin(r, d->lo);
	if (d->heat && d->throttled)
		r = fmin(r, d->thr_mbps);
	if (d->ftl && d->clean_left <= 0)
		r = fmin(r, d->gc_mbps > 0 && d->gc_period_s > 0 &&
			 (long)(d->wtime / d->gc_period_s) % 2 ? d->gc_mbps :
			 d->lo);
	return r;
}

static void sim_heat(struct simdrive *d, double rate, double dt)
{
	if (!d->heat)
		return;
	d->temp += (d->heat_k * rate - (d->temp - d->ambient) / d->tau_s) * dt;
	if (d->temp >= d->t_hot)
		d->throttled = true;
	else if (d->temp <= d->t_cool)
		d->throttled = false;
}

/*
 * One interval of writing at most @cap (0: none) MB/s, ending early once
 * @max bytes (0: no limit) are written; returns bytes, its length in @dt.
 */
static double sim_interval_max(struct simdrive *d, double cap, double max,
			       double *dt)
{
	double b = 0, t;
	double f = 1 + d->noise * (2 * rng_unif(&d->rng) - 1);

	for (t = 0; t < d->iv_s - 1e-9; t += STEP_S) {
		double r = sim_rate(d);
		double x;

		if (max > 0 && b * f >= max)
			break;
		if (cap > 0)
			r = fmin(r, cap);
		x = r * 1e6 * STEP_S;
		b += x;
		if (d->cache && d->used < d->cache_bytes)
			d->used += x;
		if (d->ftl && d->clean_left > 0)
			d->clean_left -= x;
		sim_heat(d, r, STEP_S);
		d->wtime += STEP_S;
	}
	*dt = t;
	d->t += t;
	d->written += b * f;
	return b * f;
}

static int sim_write(void *ctx, const struct bf_probe *p, struct bf_series *out)
{
	struct simdrive *d = ctx;
	double bytes = 0, secs = 0, low = 0;

	for (;;) {
		bool capped = p->cap_mbps > 0 &&
			      (!(p->cap_bytes > 0) || bytes < p->cap_bytes);
		double dt, r, b;

		/* an interval ends where the capped part does */
		b = sim_interval_max(d, capped ? p->cap_mbps : 0,
				     capped && p->cap_bytes > 0 ?
				     p->cap_bytes - bytes : 0, &dt);
		if (!(dt > 0))
			return 0;
		r = b / dt / 1e6;
		bytes += b;
		secs += dt;
		if (bf_series_push(out, secs, dt, r, bytes))
			return -ENOMEM;
		/* the stop watches past the capped part only */
		low = r < p->stop_below && !(capped && p->cap_bytes > 0) ?
		      low + dt : 0;
		if (p->stop_hold_s > 0 && low >= p->stop_hold_s - 1e-9)
			return 0;
		if ((p->bytes > 0 && bytes >= p->bytes) ||
		    (p->secs > 0 && secs >= p->secs - 1e-9))
			return 0;
	}
}

static int sim_idle(void *ctx, const struct bf_trial *tr)
{
	struct simdrive *d = ctx;
	double t, secs = tr->gap_s;

	for (t = 0; t < secs - 1e-9; t += STEP_S) {
		if (d->cache)
			d->used = fmax(0, d->used - d->refill_bps * STEP_S);
		sim_heat(d, 0, STEP_S);
	}
	d->t += secs;
	d->idle_total += secs;
	return 0;
}

static int sim_discard(void *ctx)
{
	struct simdrive *d = ctx;

	if (!d->discard_ok)
		return -EOPNOTSUPP;
	d->discards++;
	if (d->ftl)
		d->clean_left = d->clean_bytes;
	/* a discard also frees what the cache held */
	if (d->cache)
		d->used = 0;
	return 0;
}

static int sim_temp(void *ctx, double *c)
{
	struct simdrive *d = ctx;

	if (!d->temp_readable)
		return -ENODATA;
	*c = d->temp;
	return 0;
}

void sim_ops(struct simdrive *d, struct bf_drive *drv)
{
	memset(drv, 0, sizeof(*drv));
	drv->write = sim_write;
	drv->idle = sim_idle;
	drv->discard = sim_discard;
	drv->temp = sim_temp;
	drv->ctx = d;
}

void sim_sustain(struct simdrive *d, double secs, struct bf_series *out)
{
	struct bf_probe p = { .secs = secs };

	sim_write(d, &p, out);
}

int sim_run(struct simdrive *d, double region, struct bf_sustain *s,
	    struct bf_series *out)
{
	double bytes = 0, secs = 0;

	while (bytes < region) {
		double dt, b = sim_interval_max(d, 0, region - bytes, &dt);

		if (!(dt > 0))
			break;
		bytes += b;
		secs += dt;
		if (bf_series_push(out, secs, dt, b / dt / 1e6, bytes))
			return -ENOMEM;
		if (bf_sustain_interval(s, dt, b))
			break;
	}
	return 0;
}
