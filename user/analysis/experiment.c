// SPDX-License-Identifier: GPL-2.0
/*
 * Idle recovery, cool-down and TRIM retest: see experiment.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"

/* A cool-down probe's bytes against the uncapped one's: a cache ... */
#define BF_BYTES_SAME_LO	0.8
#define BF_BYTES_SAME_HI	1.25
/* ... and heat (less power in: far more bytes, or no relapse) */
#define BF_BYTES_HEAT		1.4
/* a cool-down under the floor: its cap, a share of the floor; what is
 * left at full speed after it, a share of the uncapped probe's bytes:
 * at most this for a cache, at least this for heat */
#define BF_UNDER_FLOOR		0.4
#define BF_UNDER_CACHE		0.1
#define BF_UNDER_HEAT		0.25
/* TRIM brought back this much more than idle alone, near the peak */
#define BF_TRIM_GAIN		2.0
#define BF_TRIM_PEAK		0.8
/* a gap gave back all there is: this share of the most any gap gave */
#define BF_COMPLETE		0.8

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

/* bf_probe_held(); *@low: the first sample of the run that ended it */
static bool held(const struct bf_sample *s, size_t n, double threshold,
		 double hold_s, double *bytes, double *secs, size_t *low)
{
	double b = 0, t = 0, lb = 0, lt = 0;
	size_t i, first = 0;

	for (i = 0; i < n; i++) {
		double ib = s[i].mbps * 1e6 * s[i].dt;

		if (s[i].mbps < threshold) {
			if (!(lt > 0))
				first = i;
			lb += ib;
			lt += s[i].dt;
			if (lt >= hold_s - 1e-9) {
				*bytes = b;
				*secs = t;
				*low = first;
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
	*low = n;
	return false;
}

bool bf_probe_held(const struct bf_sample *s, size_t n, double threshold,
		   double hold_s, double *bytes, double *secs)
{
	size_t low;

	return held(s, n, threshold, hold_s, bytes, secs, &low);
}

static void note(const struct bf_drive *drv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(const struct bf_drive *drv, const char *fmt, ...)
{
	char line[400];
	va_list ap;

	if (!drv || !drv->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	drv->note(drv->ctx, line);
}

/* The first sample past a probe's first @cap_bytes (its capped part). */
static size_t past_cap(const struct bf_sample *s, size_t n, double cap_bytes)
{
	double b = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double ib = s[i].mbps * 1e6 * s[i].dt;

		if (b + ib / 2 >= cap_bytes)
			break;
		b += ib;
	}
	return i;
}

/*
 * What a probe held at the high rate, from its samples. The interval in
 * which the floor came back mixes both rates: the share of it at the high
 * rate, (m - floor) / (high - floor), counts too, so a probe resolves
 * less than an interval (a cache of two intervals, a refill of a
 * quarter of one).
 */
static void measure(const struct bf_diag_cfg *cfg, double threshold,
		    struct bf_gap *g, const struct bf_sample *s, size_t n)
{
	size_t i, low, k = g->trial.cap_bytes > 0 ?
			  past_cap(s, n, g->trial.cap_bytes) : 0;

	g->relapsed = held(s + k, n - k, threshold, cfg->hold_s,
			   &g->held_bytes, &g->held_s, &low);
	if (g->relapsed && cfg->hi_mbps > cfg->lo_mbps) {
		const struct bf_sample *x = &s[k + low];
		double f = (x->mbps - cfg->lo_mbps) /
			   (cfg->hi_mbps - cfg->lo_mbps);

		f = fmin(fmax(f, 0), 1);
		g->held_bytes += f * cfg->hi_mbps * 1e6 * x->dt;
		g->held_s += f * x->dt;
	}
	g->bytes = g->secs = 0;
	for (i = 0; i < n; i++) {
		g->bytes += s[i].mbps * 1e6 * s[i].dt;
		g->secs += s[i].dt;
	}
}

/* One interval's bytes at the high rate: what a probe can resolve. */
static double iv_bytes(const struct bf_diag_cfg *cfg)
{
	return cfg->hi_mbps * 1e6 * cfg->hold_s / 3;
}

static const struct bf_gap *longest(const struct bf_diag *d)
{
	const struct bf_gap *l = NULL;
	size_t i;

	for (i = 0; i < d->ngaps; i++)
		if (!l || d->gap[i].trial.gap_s >= l->trial.gap_s)
			l = &d->gap[i];
	return l;
}

/*
 * The cool-down's reference: the longest gap's probe, the same idle as
 * the cool-down's, unless it held less than a complete recovery of the
 * most any gap gave back (more idle cannot give less: a loaded host
 * stalled it); then the probe that held the most. Not the most always:
 * the probes of a complete recovery differ by an interval's noise, and
 * their maximum is biased high.
 */
static const struct bf_gap *most(const struct bf_diag *d)
{
	const struct bf_gap *m = NULL, *l = longest(d);
	size_t i;

	for (i = 0; i < d->ngaps; i++)
		if (d->gap[i].trial.gap_s > 0 &&
		    (!m || d->gap[i].held_bytes > m->held_bytes))
			m = &d->gap[i];
	return m && l->held_bytes < BF_COMPLETE * m->held_bytes ? m : l;
}

static double shortest_idle(const struct bf_diag *d)
{
	double m = INFINITY;
	size_t i;

	for (i = 0; i < d->ngaps; i++)
		if (d->gap[i].trial.gap_s > 0)
			m = fmin(m, d->gap[i].trial.gap_s);
	return m;
}

static int by_gap(const void *a, const void *b)
{
	const struct bf_gap *x = a, *y = b;

	return (x->trial.gap_s > y->trial.gap_s) -
	       (x->trial.gap_s < y->trial.gap_s);
}

static void secs_words(char *buf, size_t len, double s)
{
	snprintf(buf, len, "%g s", round(s * 10) / 10);
}

/* "0 B at once, 50.0 MB after 1 s idle, ..." (sorted by gap) */
static void gaps_words(const struct bf_diag *d, char *buf, size_t len)
{
	bool idle = false;
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < d->ngaps && n < len; i++) {
		const struct bf_gap *g = &d->gap[i];
		char b[32], s[32];
		int k;

		bf_fmt_si_bytes(b, sizeof(b), g->held_bytes);
		secs_words(s, sizeof(s), g->trial.gap_s);
		if (g->trial.gap_s > 0)
			k = snprintf(buf + n, len - n, "%s%s after %s%s",
				     i ? ", " : "", b, s, idle ? "" : " idle");
		else
			k = snprintf(buf + n, len - n, "%s%s at once",
				     i ? ", " : "", b);
		if (k < 0)
			break;
		idle |= g->trial.gap_s > 0;
		n += (size_t)k;
	}
}

/*
 * Idle recovery from d->gap[] (the probe at once, if any, and the idle
 * gaps): a recovery is the most any gap gave back, above what the floor
 * gives at once by two intervals at the high rate and a quarter of it,
 * and above what a switching floor gives each cycle. It is complete at
 * the shortest gap that gave at least BF_COMPLETE of that; its rate is the
 * steepest rise between neighbouring gaps up to there.
 */
static void judge_idle(const struct bf_diag_cfg *cfg, struct bf_diag *d,
		       struct bf_evidence *e)
{
	double base = 0, best = 0, prev_s = 0, prev_b = 0, longest_s = 0;
	char list[200], a[32], s[32];
	bool burst;
	size_t i;

	qsort(d->gap, d->ngaps, sizeof(d->gap[0]), by_gap);
	d->have_base = d->ngaps && d->gap[0].trial.gap_s == 0;
	if (d->have_base)
		base = prev_b = d->gap[0].held_bytes;
	for (i = 0; i < d->ngaps; i++) {
		best = fmax(best, d->gap[i].held_bytes);
		longest_s = fmax(longest_s, d->gap[i].trial.gap_s);
	}
	d->recovers = best > 0 && longest_s > 0 &&
		      best - base >= fmax(1.5 * iv_bytes(cfg), 0.25 * best);
	/* no more than the switching floor gives without idle */
	burst = d->recovers && best <= 1.5 * cfg->floor_burst_bytes;
	if (burst)
		d->recovers = false;
	d->complete_s = 0;
	d->refill_per_min = 0;
	for (i = 0; d->recovers && i < d->ngaps; i++) {
		const struct bf_gap *g = &d->gap[i];

		if (!(g->trial.gap_s > 0))
			continue;
		if (g->trial.gap_s > prev_s)
			d->refill_per_min = fmax(d->refill_per_min,
						 (g->held_bytes - prev_b) /
						 (g->trial.gap_s - prev_s) * 60);
		prev_s = g->trial.gap_s;
		prev_b = g->held_bytes;
		if (g->held_bytes >= BF_COMPLETE * best) {
			d->complete_s = g->trial.gap_s;
			break;
		}
	}
	/* complete at the shortest gap: no rise was measured, only a bound */
	d->refill_at_least = d->recovers &&
			     d->complete_s <= shortest_idle(d);
	if (!e)
		return;
	e->kind = BF_EXP_IDLE_RECOVERY;
	e->supports = -1;
	e->confirms = false;
	gaps_words(d, list, sizeof(list));
	if (d->recovers) {
		bf_fmt_si_bytes(a, sizeof(a), d->refill_per_min);
		secs_words(s, sizeof(s), d->complete_s);
		if (d->complete_s < longest_s)
			snprintf(e->result, sizeof(e->result),
				 "recovers with idle time, complete within %s idle: %s%s per idle minute (%s at the high rate): a cache refilling or a controller cooling%s",
				 s, d->refill_at_least ? "at least " : "", a,
				 list, d->refill_at_least ?
				 "; shorter gaps would measure the rate" : "");
		else
			snprintf(e->result, sizeof(e->result),
				 "recovers with idle time: %s per idle minute (%s at the high rate): a cache refilling or a controller cooling",
				 a, list);
	} else if (burst) {
		bf_fmt_si_bytes(a, sizeof(a), cfg->floor_burst_bytes);
		snprintf(e->result, sizeof(e->result),
			 "no recovery beyond what the floor gives without idle (%s at the high rate; the switching floor holds up to %s at it each cycle): not a cache that refills nor heat; a starved FTL recovers little without TRIM",
			 list, a);
		e->supports = BF_CLASS_FTL_STARVATION;
	} else if (best >= 2 * iv_bytes(cfg)) {
		/* the floor gives as much at once: no recovery, and no
		 * absence of one either */
		snprintf(e->result, sizeof(e->result),
			 "the probe at once on the floor held as much as after idle (%s at the high rate): the rate comes back without idle; no cause from idle time",
			 list);
	} else {
		snprintf(e->result, sizeof(e->result),
			 "no recovery with idle time (%s at the high rate): not a cache that refills nor heat; a starved FTL recovers little without TRIM",
			 list);
		e->supports = BF_CLASS_FTL_STARVATION;
	}
	e->bytes = e->secs = 0;
	for (i = 0; i < d->ngaps; i++) {
		e->bytes += d->gap[i].bytes;
		e->secs += d->gap[i].trial.gap_s + d->gap[i].secs;
	}
}

/*
 * Cool-down from d->capped (after the longest gap) against most(): capped
 * between floor and high rate, the bytes before the relapse; capped
 * under the floor for the bytes the uncapped probe held, what is left at
 * full speed.
 */
static void judge_cool(const struct bf_diag_cfg *cfg, struct bf_diag *d,
		       struct bf_evidence *e)
{
	const struct bf_gap *full = most(d), *cap = &d->capped;
	char a[32], b[32], g[32], t[96] = "";
	double rb;

	e->kind = BF_EXP_COOL_DOWN;
	e->supports = -1;
	e->confirms = false;
	e->bytes = cap->bytes;
	e->secs = cap->trial.gap_s + cap->secs;
	d->cap_mbps = cap->trial.cap_mbps;
	bf_fmt_si_bytes(a, sizeof(a), full->held_bytes);
	bf_fmt_si_bytes(b, sizeof(b), cap->held_bytes);
	secs_words(g, sizeof(g), cap->trial.gap_s);
	if (full->have_temp && cap->have_temp)
		snprintf(t, sizeof(t), "; %.1f -> %.1f °C over the idle gap",
			 cap->temp_before, cap->temp_after);
	if (cap->trial.cap_bytes > 0) {
		char c[32];
		double left = full->held_bytes > 0 ?
			      cap->held_bytes / full->held_bytes : 0;

		bf_fmt_si_bytes(c, sizeof(c), cap->trial.cap_bytes);
		/* a probe resolves about an interval: nothing left is under
		 * a quarter of one, and heat's rest is most of one or more */
		if (cap->held_bytes <= fmax(BF_UNDER_CACHE * full->held_bytes,
					    0.25 * iv_bytes(cfg))) {
			e->supports = BF_CLASS_CACHE_EXHAUSTION;
			e->confirms = true;
			snprintf(e->result, sizeof(e->result),
				 "relapses after a number of bytes, not a time: after %s idle, %s written at %.0f MB/s (under the floor) left %s at full speed, where %s went without them: the slow bytes used a cache up%s",
				 g, c, d->cap_mbps, b, a, t);
		} else if (cap->held_bytes >= fmax(BF_UNDER_HEAT * full->held_bytes,
						   0.75 * iv_bytes(cfg))) {
			e->supports = BF_CLASS_THERMAL_THROTTLING;
			e->confirms = true;
			snprintf(e->result, sizeof(e->result),
				 "relapses after a time, not bytes: after %s idle, %s written at %.0f MB/s (under the floor) still left %s at full speed (%s went without them, %.0f %%): the drive cooled while it wrote slowly: heat%s",
				 g, c, d->cap_mbps, b, a, 100 * left, t);
		} else {
			snprintf(e->result, sizeof(e->result),
				 "inconclusive: after %s idle, %s written at %.0f MB/s left %s at full speed, %.0f %% of the %s without them: neither none nor clearly more%s",
				 g, c, d->cap_mbps, b, 100 * left, a, t);
		}
		return;
	}
	rb = full->held_bytes > 0 ? cap->held_bytes / full->held_bytes : 0;
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
}

static void judge_trim(const struct bf_diag_cfg *cfg, struct bf_diag *d,
		       struct bf_evidence *e)
{
	const struct bf_gap *full = longest(d), *g = &d->trimmed;
	char a[32], b[32], s[32];

	e->kind = BF_EXP_TRIM_RETEST;
	e->supports = -1;
	e->confirms = false;
	e->bytes = g->bytes;
	e->secs = g->trial.gap_s + g->secs;
	d->trim_held = g->held_bytes;
	bf_fmt_si_bytes(a, sizeof(a), g->held_bytes);
	bf_fmt_si_bytes(b, sizeof(b), full->held_bytes);
	secs_words(s, sizeof(s), g->trial.gap_s);
	if (g->held_bytes >= BF_TRIM_GAIN * full->held_bytes +
			     cfg->hi_mbps * 1e6 * cfg->hold_s &&
	    g->held_s > 0 &&
	    g->held_bytes / g->held_s / 1e6 >= BF_TRIM_PEAK * cfg->hi_mbps &&
	    !d->recovers) {
		e->supports = BF_CLASS_FTL_STARVATION;
		e->confirms = true;
		snprintf(e->result, sizeof(e->result),
			 "TRIM brought the rate back: %s near the peak after TRIM and %s idle, %s after the same idle without it: a starved FTL",
			 a, s, b);
	} else if (g->held_bytes >= BF_TRIM_GAIN * full->held_bytes) {
		snprintf(e->result, sizeof(e->result),
			 "TRIM brought the rate back (%s, against %s without it), but idle alone did too: a cache that TRIM freed, not proof of a starved FTL",
			 a, b);
	} else {
		snprintf(e->result, sizeof(e->result),
			 "TRIM changed little: %s at the high rate after it, %s without: not a starved FTL (or the drive ignores TRIM)",
			 a, b);
	}
}

/* Run one trial on the drive into @g. */
static int run_trial(const struct bf_drive *drv, const struct bf_diag_cfg *cfg,
		     const struct bf_diag *d, const struct bf_trial *t,
		     double budget, struct bf_gap *g)
{
	struct bf_probe p = {
		.bytes = t->cap_bytes + budget,
		.secs = cfg->probe_s,
		.cap_mbps = t->cap_mbps, .cap_bytes = t->cap_bytes,
		.stop_below = d->threshold, .stop_hold_s = cfg->hold_s,
	};
	struct bf_series s = { 0 };
	int ret;

	if (t->cap_bytes > 0 && t->cap_mbps > 0)
		p.secs += t->cap_bytes / (t->cap_mbps * 1e6);
	memset(g, 0, sizeof(*g));
	g->trial = *t;
	g->have_temp = drv->temp && !drv->temp(drv->ctx, &g->temp_before);
	ret = drv->idle(drv->ctx, t);
	if (ret)
		return ret;
	if (g->have_temp && drv->temp(drv->ctx, &g->temp_after))
		g->have_temp = false;
	ret = drv->write(drv->ctx, &p, &s);
	if (!ret)
		measure(cfg, d->threshold, g, s.s, s.n);
	bf_series_free(&s);
	return ret;
}

static int idle_trial(const struct bf_drive *drv,
		      const struct bf_diag_cfg *cfg, struct bf_diag *d,
		      double gap_s)
{
	struct bf_trial t = { .gap_s = gap_s };
	struct bf_gap *g = &d->gap[d->ngaps];
	char a[32], s[32];
	int ret;

	if (d->ngaps >= BF_DIAG_MAX_TRIALS)
		return 0;
	ret = run_trial(drv, cfg, d, &t, cfg->probe_bytes, g);
	if (ret)
		return ret;
	d->ngaps++;
	bf_fmt_si_bytes(a, sizeof(a), g->held_bytes);
	secs_words(s, sizeof(s), gap_s);
	note(drv, "idle-recovery: %s%s%s, %s (%.1f s) at the high rate%s",
	     gap_s > 0 ? "after " : "at once", gap_s > 0 ? s : "",
	     gap_s > 0 ? " idle" : "", a, g->held_s,
	     g->relapsed ? "" : " (the floor did not come back)");
	return 0;
}

static int idle_recovery(const struct bf_drive *drv,
			 const struct bf_diag_cfg *cfg, struct bf_diag *d)
{
	struct bf_evidence *e = &d->ev[d->nev++];
	double first = cfg->gaps_s[0];
	size_t i;
	int ret;

	/* what the floor gives at once, with no idle at all */
	ret = idle_trial(drv, cfg, d, 0);
	for (i = 0; !ret && i < cfg->ngaps; i++) {
		first = fmin(first, cfg->gaps_s[i]);
		ret = idle_trial(drv, cfg, d, cfg->gaps_s[i]);
	}
	if (ret)
		return ret;
	judge_idle(cfg, d, NULL);
	/* all back after the shortest gap: shorter ones measure the rate */
	if (d->recovers && d->complete_s <= first && !cfg->no_short) {
		static const double part[] = { 0.1, 0.3 };

		for (i = 0; !ret && i < sizeof(part) / sizeof(part[0]); i++)
			if (first * part[i] >= 0.5)
				ret = idle_trial(drv, cfg, d, first * part[i]);
		if (ret)
			return ret;
	}
	judge_idle(cfg, d, e);
	d->bytes += e->bytes;
	d->secs += e->secs;
	return 0;
}

static int cool_down(const struct bf_drive *drv, const struct bf_diag_cfg *cfg,
		     struct bf_diag *d)
{
	const struct bf_gap *full = most(d);
	struct bf_trial t = { .gap_s = longest(d)->trial.gap_s };
	struct bf_evidence *e;
	char a[32], b[32];
	int ret;

	/* between the floor and the high rate where the step allows, else
	 * under the floor for the bytes the uncapped probe held */
	t.cap_mbps = fmax(d->threshold * 1.1, 0.6 * cfg->hi_mbps);
	if (t.cap_mbps > 0.85 * cfg->hi_mbps) {
		t.cap_mbps = BF_UNDER_FLOOR * cfg->lo_mbps;
		t.cap_bytes = full->held_bytes;
	}
	ret = run_trial(drv, cfg, d, &t,
			fmax(3 * full->held_bytes, cfg->hi_mbps * 1e6 * 10),
			&d->capped);
	if (ret)
		return ret;
	d->have_capped = true;
	e = &d->ev[d->nev++];
	judge_cool(cfg, d, e);
	bf_fmt_si_bytes(a, sizeof(a), full->held_bytes);
	bf_fmt_si_bytes(b, sizeof(b), d->capped.held_bytes);
	note(drv, "cool-down: after %.0f s idle, %s at the high rate%s at %.0f MB/s, against %s without a cap",
	     t.gap_s, b, t.cap_bytes > 0 ? " after writing" : " capped",
	     t.cap_mbps, a);
	d->bytes += e->bytes;
	d->secs += e->secs;
	return 0;
}

static int trim_retest(const struct bf_drive *drv,
		       const struct bf_diag_cfg *cfg, struct bf_diag *d)
{
	struct bf_evidence *e = &d->ev[d->nev++];
	const struct bf_gap *full = longest(d);
	struct bf_trial t = { .gap_s = full->trial.gap_s, .discard = true };
	char a[32];
	int ret;

	ret = drv->discard(drv->ctx);
	if (ret == -EOPNOTSUPP) {
		memset(e, 0, sizeof(*e));
		e->kind = BF_EXP_TRIM_RETEST;
		e->supports = -1;
		snprintf(e->result, sizeof(e->result),
			 "not run: discard does not reach this drive");
		return 0;
	}
	if (ret)
		return ret;
	ret = run_trial(drv, cfg, d, &t, cfg->probe_bytes, &d->trimmed);
	if (ret)
		return ret;
	d->have_trim = true;
	judge_trim(cfg, d, e);
	bf_fmt_si_bytes(a, sizeof(a), d->trimmed.held_bytes);
	note(drv, "trim-retest: after TRIM and %.0f s idle, %s at the high rate",
	     t.gap_s, a);
	d->bytes += e->bytes;
	d->secs += e->secs;
	return 0;
}

static bool cfg_ok(const struct bf_diag_cfg *cfg)
{
	return cfg->lo_mbps > 0 && cfg->hi_mbps > 1.1 * cfg->lo_mbps &&
	       cfg->hold_s > 0;
}

int bf_diagnose(const struct bf_drive *drv, const struct bf_diag_cfg *cfg,
		struct bf_diag *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	if (!cfg_ok(cfg) || !cfg->ngaps || cfg->ngaps > BF_DIAG_MAX_GAPS)
		return -EINVAL;
	d->threshold = sqrt(cfg->hi_mbps * cfg->lo_mbps);
	ret = idle_recovery(drv, cfg, d);
	if (!ret && d->recovers)
		ret = cool_down(drv, cfg, d);
	if (!ret && cfg->trim)
		ret = trim_retest(drv, cfg, d);
	return ret;
}

int bf_diag_from_trials(const struct bf_diag_cfg *cfg,
			const struct bf_trial *t, size_t n,
			const struct bf_sample *s, const size_t *first,
			struct bf_diag *d)
{
	struct bf_evidence *e;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!cfg_ok(cfg))
		return -EINVAL;
	d->threshold = sqrt(cfg->hi_mbps * cfg->lo_mbps);
	for (i = 0; i < n; i++) {
		struct bf_gap *g;

		if (t[i].discard)
			g = &d->trimmed, d->have_trim = true;
		else if (t[i].cap_mbps > 0)
			g = &d->capped, d->have_capped = true;
		else if (d->ngaps < BF_DIAG_MAX_TRIALS)
			g = &d->gap[d->ngaps++];
		else
			continue;
		memset(g, 0, sizeof(*g));
		g->trial = t[i];
		measure(cfg, d->threshold, g, s + first[i],
			first[i + 1] - first[i]);
	}
	if (!d->ngaps)
		return -EINVAL;
	e = &d->ev[d->nev++];
	judge_idle(cfg, d, e);
	if (d->have_capped) {
		e = &d->ev[d->nev++];
		judge_cool(cfg, d, e);
	}
	if (d->have_trim) {
		e = &d->ev[d->nev++];
		judge_trim(cfg, d, e);
	}
	for (i = 0; i < d->nev; i++) {
		d->bytes += d->ev[i].bytes;
		d->secs += d->ev[i].secs;
	}
	return 0;
}

size_t bf_trials_split(const struct bf_sample *s, size_t n,
		       const double *at_s, size_t nt, size_t *first)
{
	size_t i = 0, k;

	/* a sample starts at t - dt; a millisecond of rounding either way */
	for (k = 0; k < nt; k++) {
		while (i < n && s[i].t - s[i].dt < at_s[k] - 1e-3)
			i++;
		first[k] = i;
	}
	first[nt] = n;
	return nt ? first[0] : n;
}

int bf_diag_recorded(const struct bf_report *r, double iv_s,
		     const struct bf_trial *t, size_t nt,
		     const struct bf_sample *s, const size_t *first,
		     struct bf_diag *d)
{
	struct bf_diag_cfg cfg;

	if (!r->nsteps || !(iv_s > 0))
		return -EINVAL;
	bf_diag_cfg_from_report(&cfg, r);
	cfg.hold_s = 3 * iv_s;
	return bf_diag_from_trials(&cfg, t, nt, s, first, d);
}
