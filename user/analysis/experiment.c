// SPDX-License-Identifier: GPL-2.0
/*
 * Idle recovery, cool-down and TRIM retest: see experiment.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "experiment.h"

/* A cool-down probe's bytes against the uncapped one's: a cache ... */
#define BF_BYTES_SAME_LO	0.8
#define BF_BYTES_SAME_HI	1.25
/* ... and heat (less power in: far more bytes, or no relapse) */
#define BF_BYTES_HEAT		1.4
/* TRIM brought back this much more than idle alone, near the peak */
#define BF_TRIM_GAIN		2.0
#define BF_TRIM_PEAK		0.8

void bf_diag_cfg_init(struct bf_diag_cfg *cfg, double hi_mbps, double lo_mbps,
		      double cache_bytes)
{
	static const double gaps[] = { 10, 60, 240 };
	size_t i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->hi_mbps = hi_mbps;
	cfg->lo_mbps = lo_mbps;
	for (i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++)
		cfg->gaps_s[i] = gaps[i];
	cfg->ngaps = i;
	/* a probe ends when the floor is back: the budget only bounds a
	 * drive that recovers far more than the cache it showed */
	cfg->probe_bytes = fmax(2 * cache_bytes, hi_mbps * 1e6 * 120);
	cfg->probe_s = 600;
	cfg->hold_s = 3;
}

void bf_diag_cfg_from_report(struct bf_diag_cfg *cfg,
			     const struct bf_report *r)
{
	double period = r->floor_kind == BF_FLOOR_PERIODIC ?
			r->floor_period_s : r->cycle_s;
	double duty = isfinite(r->floor_duty) ? r->floor_duty : 0.5;

	bf_diag_cfg_init(cfg, r->peak_mbps, r->floor_mbps,
			 r->has_step ? r->cache_bytes : 0);
	if (period > 0)
		cfg->floor_burst_bytes = duty * period * r->peak_mbps * 1e6;
}

bool bf_probe_held(const struct bf_sample *s, size_t n, double threshold,
		   double hold_s, double *bytes, double *secs)
{
	double b = 0, t = 0, lb = 0, lt = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double ib = s[i].mbps * 1e6 * s[i].dt;

		if (s[i].mbps < threshold) {
			lb += ib;
			lt += s[i].dt;
			if (lt >= hold_s - 1e-9) {
				*bytes = b;
				*secs = t;
				return true;
			}
			continue;
		}
		/* a dip shorter than the hold is part of the high rate */
		b += lb + ib;
		t += lt + s[i].dt;
		lb = lt = 0;
	}
	*bytes = b;
	*secs = t;
	return false;
}

static void note(const struct bf_drive *drv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(const struct bf_drive *drv, const char *fmt, ...)
{
	char line[400];
	va_list ap;

	if (!drv->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	drv->note(drv->ctx, line);
}

static double series_bytes(const struct bf_series *s)
{
	double b = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		b += s->s[i].mbps * 1e6 * s->s[i].dt;
	return b;
}

static double series_secs(const struct bf_series *s)
{
	double t = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		t += s->s[i].dt;
	return t;
}

/* Idle @gap_s, then a probe (capped at @cap, 0: none) into @g. */
static int gap_probe(const struct bf_drive *drv, const struct bf_diag_cfg *cfg,
		     struct bf_diag *d, double gap_s, double cap,
		     double budget, struct bf_gap *g, double *cost_b,
		     double *cost_s)
{
	struct bf_probe p = {
		.bytes = budget, .secs = cfg->probe_s, .cap_mbps = cap,
		.stop_below = d->threshold, .stop_hold_s = cfg->hold_s,
	};
	struct bf_series s = { 0 };
	double t;
	int ret;

	memset(g, 0, sizeof(*g));
	g->gap_s = gap_s;
	g->have_temp = drv->temp && !drv->temp(drv->ctx, &g->temp_before);
	ret = drv->idle(drv->ctx, gap_s);
	if (ret)
		return ret;
	if (g->have_temp && drv->temp(drv->ctx, &g->temp_after))
		g->have_temp = false;
	ret = drv->write(drv->ctx, &p, &s);
	if (ret) {
		bf_series_free(&s);
		return ret;
	}
	g->relapsed = bf_probe_held(s.s, s.n, d->threshold, cfg->hold_s,
				    &g->held_bytes, &g->held_s);
	t = series_secs(&s);
	*cost_b += series_bytes(&s);
	*cost_s += gap_s + t;
	bf_series_free(&s);
	return 0;
}

static int idle_recovery(const struct bf_drive *drv,
			 const struct bf_diag_cfg *cfg, struct bf_diag *d)
{
	struct bf_evidence *e = &d->ev[d->nev++];
	const struct bf_gap *first, *last;
	char a[32], b[32];
	double gain, span;
	bool burst;
	size_t i;
	int ret;

	e->kind = BF_EXP_IDLE_RECOVERY;
	e->supports = -1;
	for (i = 0; i < cfg->ngaps; i++) {
		struct bf_gap *g = &d->gap[d->ngaps];

		ret = gap_probe(drv, cfg, d, cfg->gaps_s[i], 0, cfg->probe_bytes,
				g, &e->bytes, &e->secs);
		if (ret)
			return ret;
		d->ngaps++;
		bf_fmt_si_bytes(a, sizeof(a), g->held_bytes);
		note(drv, "idle-recovery: after %.0f s idle, %s (%.1f s) at the high rate%s",
		     g->gap_s, a, g->held_s,
		     g->relapsed ? "" : " (the floor did not come back)");
	}
	first = &d->gap[0];
	last = &d->gap[d->ngaps - 1];
	gain = last->held_bytes - first->held_bytes;
	span = last->gap_s - first->gap_s;
	/* more than noise: two intervals' worth at the high rate and a
	 * quarter of what the longest gap gave */
	d->recovers = last->held_bytes > 0 && span > 0 &&
		      gain >= fmax(2 * cfg->hi_mbps * 1e6 * cfg->hold_s / 3,
				   0.25 * last->held_bytes);
	/* no more than the switching floor gives without idle */
	burst = d->recovers &&
		last->held_bytes <= 1.5 * cfg->floor_burst_bytes;
	if (burst)
		d->recovers = false;
	/* the steepest pair of gaps: before a cache is full again */
	for (i = 1; d->recovers && i < d->ngaps; i++) {
		double r = (d->gap[i].held_bytes - d->gap[i - 1].held_bytes) /
			   (d->gap[i].gap_s - d->gap[i - 1].gap_s) * 60;

		d->refill_per_min = fmax(d->refill_per_min, r);
	}
	bf_fmt_si_bytes(a, sizeof(a), last->held_bytes);
	if (d->recovers) {
		bf_fmt_si_bytes(b, sizeof(b), d->refill_per_min);
		snprintf(e->result, sizeof(e->result),
			 "recovers with idle time: %s per idle minute (%s at the high rate after %.0f s idle): a cache refilling or a controller cooling",
			 b, a, last->gap_s);
	} else if (burst) {
		bf_fmt_si_bytes(b, sizeof(b), cfg->floor_burst_bytes);
		snprintf(e->result, sizeof(e->result),
			 "no recovery beyond what the floor gives without idle (%s at the high rate after %.0f s idle; the switching floor holds up to %s at it each cycle): not a cache that refills nor heat; a starved FTL recovers little without TRIM",
			 a, last->gap_s, b);
		e->supports = BF_CLASS_FTL_STARVATION;
	} else {
		snprintf(e->result, sizeof(e->result),
			 "no recovery that grows with idle time (%s at the high rate after %.0f s idle, %.0f s gave as much): not a cache that refills nor heat; a starved FTL recovers little without TRIM",
			 a, last->gap_s, first->gap_s);
		e->supports = BF_CLASS_FTL_STARVATION;
	}
	d->bytes += e->bytes;
	d->secs += e->secs;
	return 0;
}

static int cool_down(const struct bf_drive *drv, const struct bf_diag_cfg *cfg,
		     struct bf_diag *d)
{
	struct bf_evidence *e = &d->ev[d->nev++];
	const struct bf_gap *full = &d->gap[d->ngaps - 1];
	struct bf_gap *cap = &d->capped;
	char a[32], b[32], t[96] = "";
	double rb;
	int ret;

	e->kind = BF_EXP_COOL_DOWN;
	e->supports = -1;
	d->cap_mbps = fmax(d->threshold * 1.1, 0.6 * cfg->hi_mbps);
	if (d->cap_mbps > 0.85 * cfg->hi_mbps) {
		snprintf(e->result, sizeof(e->result),
			 "not run: the step (%.2fx) is too small for a probe capped between the floor and the high rate",
			 cfg->hi_mbps / cfg->lo_mbps);
		return 0;
	}
	ret = gap_probe(drv, cfg, d, full->gap_s, d->cap_mbps,
			fmax(3 * full->held_bytes, cfg->hi_mbps * 1e6 * 10),
			cap, &e->bytes, &e->secs);
	if (ret)
		return ret;
	rb = full->held_bytes > 0 ? cap->held_bytes / full->held_bytes : 0;
	bf_fmt_si_bytes(a, sizeof(a), full->held_bytes);
	bf_fmt_si_bytes(b, sizeof(b), cap->held_bytes);
	if (full->have_temp && cap->have_temp)
		snprintf(t, sizeof(t), "; %.1f -> %.1f °C over the idle gap",
			 cap->temp_before, cap->temp_after);
	note(drv, "cool-down: after %.0f s idle, %s at %.0f MB/s against %s at full speed%s",
	     full->gap_s, b, d->cap_mbps, a, t);
	if (cap->relapsed && rb >= BF_BYTES_SAME_LO && rb <= BF_BYTES_SAME_HI) {
		e->supports = BF_CLASS_CACHE_EXHAUSTION;
		e->confirms = true;
		snprintf(e->result, sizeof(e->result),
			 "relapses after a number of bytes, not a time: %s at full speed in %.0f s, %s capped at %.0f MB/s in %.0f s: a cache running out%s",
			 a, full->held_s, b, d->cap_mbps, cap->held_s, t);
	} else if (!cap->relapsed || rb >= BF_BYTES_HEAT) {
		e->supports = BF_CLASS_THERMAL_THROTTLING;
		e->confirms = true;
		snprintf(e->result, sizeof(e->result),
			 "relapses after a time, not bytes: %s at full speed in %.0f s, %s capped at %.0f MB/s in %.0f s%s: heat, which builds slower at lower power%s",
			 a, full->held_s, b, d->cap_mbps, cap->held_s,
			 cap->relapsed ? "" : " without relapsing", t);
	} else {
		snprintf(e->result, sizeof(e->result),
			 "inconclusive: %s at full speed, %s capped at %.0f MB/s (%.2fx): neither the same bytes nor clearly more%s",
			 a, b, d->cap_mbps, rb, t);
	}
	d->bytes += e->bytes;
	d->secs += e->secs;
	return 0;
}

static int trim_retest(const struct bf_drive *drv,
		       const struct bf_diag_cfg *cfg, struct bf_diag *d)
{
	struct bf_evidence *e = &d->ev[d->nev++];
	const struct bf_gap *full = &d->gap[d->ngaps - 1];
	struct bf_gap g;
	char a[32], b[32];
	int ret;

	e->kind = BF_EXP_TRIM_RETEST;
	e->supports = -1;
	ret = drv->discard(drv->ctx);
	if (ret == -EOPNOTSUPP) {
		snprintf(e->result, sizeof(e->result),
			 "not run: discard does not reach this drive");
		return 0;
	}
	if (ret)
		return ret;
	ret = gap_probe(drv, cfg, d, full->gap_s, 0, cfg->probe_bytes, &g,
			&e->bytes, &e->secs);
	if (ret)
		return ret;
	d->trim_held = g.held_bytes;
	bf_fmt_si_bytes(a, sizeof(a), g.held_bytes);
	bf_fmt_si_bytes(b, sizeof(b), full->held_bytes);
	note(drv, "trim-retest: after TRIM and %.0f s idle, %s at the high rate (%s without TRIM)",
	     full->gap_s, a, b);
	if (g.held_bytes >= BF_TRIM_GAIN * full->held_bytes +
			    cfg->hi_mbps * 1e6 * cfg->hold_s &&
	    g.held_s > 0 &&
	    g.held_bytes / g.held_s / 1e6 >= BF_TRIM_PEAK * cfg->hi_mbps &&
	    !d->recovers) {
		e->supports = BF_CLASS_FTL_STARVATION;
		e->confirms = true;
		snprintf(e->result, sizeof(e->result),
			 "TRIM brought the rate back: %s near the peak after TRIM and %.0f s idle, %s after the same idle without it: a starved FTL",
			 a, full->gap_s, b);
	} else if (g.held_bytes >= BF_TRIM_GAIN * full->held_bytes) {
		snprintf(e->result, sizeof(e->result),
			 "TRIM brought the rate back (%s, against %s without it), but idle alone did too: a cache that TRIM freed, not proof of a starved FTL",
			 a, b);
	} else {
		snprintf(e->result, sizeof(e->result),
			 "TRIM changed little: %s at the high rate after it, %s without: not a starved FTL (or the drive ignores TRIM)",
			 a, b);
	}
	d->bytes += e->bytes;
	d->secs += e->secs;
	return 0;
}

int bf_diagnose(const struct bf_drive *drv, const struct bf_diag_cfg *cfg,
		struct bf_diag *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	if (!(cfg->lo_mbps > 0) || !(cfg->hi_mbps > 1.1 * cfg->lo_mbps) ||
	    !cfg->ngaps || cfg->ngaps > BF_DIAG_MAX_GAPS)
		return -EINVAL;
	d->threshold = sqrt(cfg->hi_mbps * cfg->lo_mbps);
	ret = idle_recovery(drv, cfg, d);
	if (!ret && d->recovers)
		ret = cool_down(drv, cfg, d);
	if (!ret && cfg->trim)
		ret = trim_retest(drv, cfg, d);
	return ret;
}
