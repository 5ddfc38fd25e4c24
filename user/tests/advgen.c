// SPDX-License-Identifier: GPL-2.0
/*
 * Adversarial curves with known truth (see advgen.h). As in synth.c, a
 * curve is a piecewise-constant instantaneous rate; each sample is its
 * exact average over the interval, times log-normal noise, so steps fall
 * inside samples and the noise never makes a rate negative. A pattern is
 * defined in seconds, not samples: the same seed sampled at 0.1 s and at
 * 1 s is the same drive.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advgen.h"
#include "rng.h"

static double between(struct rng *r, double a, double b)
{
	return a + (b - a) * rng_unif(r);
}

/* log-uniform in [a, b] */
static double logbetween(struct rng *r, double a, double b)
{
	return exp(between(r, log(a), log(b)));
}

static const char *const names[BF_ADV_NKINDS] = {
	[BF_ADV_CACHE_DRIFT] = "cache-drift",
	[BF_ADV_CACHE_STEP2] = "cache-second-step",
	[BF_ADV_CACHE_MULTI] = "cache-multi-stage",
	[BF_ADV_CACHE_NOISY] = "cache-noisy-floor",
	[BF_ADV_CACHE_BURSTS] = "cache-periodic-bursts",
	[BF_ADV_CACHE_SMALL] = "cache-small-step",
	[BF_ADV_CACHE_HANG] = "cache-then-hang",
	[BF_ADV_STEADY_WHITE] = "steady-white-noise",
	[BF_ADV_STEADY_DIPS] = "steady-one-sample-dips",
	[BF_ADV_STEADY_LINEAR] = "steady-linear-decline",
	[BF_ADV_STEADY_HANG_END] = "steady-hang-at-end",
	[BF_ADV_STEADY_HANG_MID] = "steady-hang-mid-run",
	[BF_ADV_FTL_REGULAR] = "ftl-regular-gc",
	[BF_ADV_FTL_DIPS] = "ftl-random-dips",
	[BF_ADV_FTL_RANDOM] = "ftl-random-switching",
	[BF_ADV_THERMAL_STAIR] = "thermal-staircase",
	[BF_ADV_THERMAL_RECOVER] = "thermal-recovery",
	[BF_ADV_THERMAL_CYCLE] = "thermal-slow-cycle",
	[BF_ADV_UNCLEAR_TINY] = "unclear-four-samples",
};

const char *bf_adv_kind_name(enum bf_adv_kind k)
{
	return k < BF_ADV_NKINDS ? names[k] : "?";
}

/* A linear ramp from @a to @b over [t0, t1), in 200 small steps. */
static int ramp(struct phases *p, double t0, double t1, double a, double b)
{
	int i, ret = 0;

	for (i = 0; i < 200 && !ret; i++)
		ret = ph_add(p, t0 + (t1 - t0) * i / 200, a + (b - a) * i / 200.0);
	return ret;
}

/* Two levels alternating, dwell times drawn by @dwell(hi?) */
static int alternate(struct phases *p, double t0, double T, double hi, double lo,
		     double dhi, double dlo, double jitter, bool expo,
		     struct rng *r)
{
	bool up = true;
	double t = t0, d;
	int ret = 0;

	while (t < T && !ret) {
		ret = ph_add(p, t, up ? hi : lo);
		d = up ? dhi : dlo;
		if (expo)
			d *= -log(1 - rng_unif(r));
		else
			d *= between(r, 1 - jitter, 1 + jitter);
		t += fmax(d, 1e-3);
		up = !up;
	}
	return ret;
}

struct gen {
	struct phases ph;
	double jitter_from;	/* extra per-sample jitter from this time */
	double jitter;
	bool dips;		/* isolated one-sample dips */
};

static int build(const struct bf_adv_params *p, struct gen *g,
		 struct bf_adv_truth *tr, struct rng *r)
{
	double T = p->T, hi = logbetween(r, 80, 3000), lo, ts, t, a;
	struct phases *ph = &g->ph;
	int ret = 0, i, k;

	tr->stalls = 0;
	switch (p->kind) {
	case BF_ADV_CACHE_DRIFT:
		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		lo = hi / logbetween(r, 1.3, 20);
		ts = between(r, 0.15, 0.5) * T;
		return ph_add(ph, 0, hi) ?:
		       ramp(ph, ts, T, lo, lo * between(r, 0.75, 0.95));
	case BF_ADV_CACHE_STEP2:
		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		lo = hi / logbetween(r, 2.5, 20);
		ts = between(r, 0.1, 0.4) * T;
		t = ts + between(r, 0.2, 0.5) * (T - ts);
		return ph_add(ph, 0, hi) ?: ph_add(ph, ts, lo) ?:
		       ph_add(ph, t, lo / between(r, 1.15, 1.5));
	case BF_ADV_CACHE_MULTI:
		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		ts = between(r, 0.1, 0.25) * T;
		t = ts + between(r, 0.15, 0.25) * T;
		a = t + between(r, 0.15, 0.25) * T;
		return ph_add(ph, 0, hi) ?: ph_add(ph, ts, hi / between(r, 2.5, 3.5)) ?:
		       ph_add(ph, t, hi / between(r, 8, 14)) ?:
		       ph_add(ph, a, hi / between(r, 3.5, 5));
	case BF_ADV_CACHE_NOISY:
		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		lo = hi / logbetween(r, 3, 20);
		ts = between(r, 0.15, 0.5) * T;
		g->jitter_from = ts;
		g->jitter = between(r, 0.2, 0.4);
		return ph_add(ph, 0, hi) ?: ph_add(ph, ts, lo);
	case BF_ADV_CACHE_BURSTS: {
		double per = between(r, 0.06, 0.12) * T, w = between(r, 0.08, 0.2) * per;

		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		lo = hi / logbetween(r, 3, 15);
		ts = between(r, 0.1, 0.3) * T;
		ret = ph_add(ph, 0, hi) ?: ph_add(ph, ts, lo);
		for (t = ts + per; t + w < T && !ret; t += per)
			ret = ph_add(ph, t, hi * between(r, 0.5, 0.9)) ?:
			      ph_add(ph, t + w, lo);
		return ret;
	}
	case BF_ADV_CACHE_SMALL:
		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		ts = between(r, 0.2, 0.6) * T;
		return ph_add(ph, 0, hi) ?: ph_add(ph, ts, hi / between(r, 1.2, 1.45));
	case BF_ADV_CACHE_HANG:
		tr->class = BF_CLASS_CACHE_EXHAUSTION;
		tr->stalls = 1;
		lo = hi / logbetween(r, 3, 20);
		ts = between(r, 0.15, 0.35) * T;
		t = between(r, 0.5, 0.7) * T;
		return ph_add(ph, 0, hi) ?: ph_add(ph, ts, lo) ?: ph_add(ph, t, 0) ?:
		       ph_add(ph, t + between(r, 0.08, 0.15) * T, lo);
	case BF_ADV_STEADY_WHITE:
		tr->class = BF_CLASS_STEADY;
		g->jitter_from = 0;
		g->jitter = between(r, 0.1, 0.3);
		return ph_add(ph, 0, hi);
	case BF_ADV_STEADY_DIPS:
		tr->class = BF_CLASS_STEADY;
		g->dips = true;
		return ph_add(ph, 0, hi);
	case BF_ADV_STEADY_LINEAR:
		tr->class = BF_CLASS_STEADY;
		return ramp(ph, 0, T, hi, hi / between(r, 1.5, 2.2));
	case BF_ADV_STEADY_HANG_END:
		tr->class = BF_CLASS_STEADY;
		tr->stalls = 1;
		t = T - between(r, 0.1, 0.3) * T;
		return ph_add(ph, 0, hi) ?: ph_add(ph, t, 0);
	case BF_ADV_STEADY_HANG_MID:
		tr->class = BF_CLASS_STEADY;
		tr->stalls = 1;
		t = between(r, 0.3, 0.6) * T;
		return ph_add(ph, 0, hi) ?: ph_add(ph, t, 0) ?:
		       ph_add(ph, t + between(r, 0.05, 0.15) * T, hi);
	case BF_ADV_FTL_REGULAR: {
		double per = between(r, 0.03, 0.08) * T, duty = between(r, 0.3, 0.7);

		tr->class = BF_CLASS_FTL_STARVATION;
		return alternate(ph, 0, T, hi, hi / between(r, 5, 12),
				 duty * per, (1 - duty) * per, 0.05, false, r);
	}
	case BF_ADV_FTL_DIPS:
		tr->class = BF_CLASS_FTL_STARVATION;
		return alternate(ph, 0, T, hi, hi * between(r, 0.05, 0.3),
				 between(r, 0.03, 0.06) * T,
				 between(r, 0.01, 0.02) * T, 0, true, r);
	case BF_ADV_FTL_RANDOM:
		tr->class = BF_CLASS_FTL_STARVATION;
		a = between(r, 0.01, 0.03) * T;
		return alternate(ph, 0, T, hi, hi / between(r, 4, 10), a, a,
				 0, true, r);
	case BF_ADV_THERMAL_STAIR:
		tr->class = BF_CLASS_THERMAL_THROTTLING;
		k = 3 + (rng_unif(r) < 0.5);
		for (i = 0, lo = hi; i <= k && !ret; i++) {
			ret = ph_add(ph, i * T / (k + 1) * between(r, 0.97, 1.03), lo);
			lo /= between(r, 1.2, 1.6);
		}
		return ret;
	case BF_ADV_THERMAL_RECOVER:
		tr->class = BF_CLASS_THERMAL_THROTTLING;
		lo = hi / between(r, 1.3, 1.8);
		return ph_add(ph, 0, hi) ?: ph_add(ph, between(r, 0.15, 0.25) * T, lo) ?:
		       ph_add(ph, between(r, 0.35, 0.45) * T, lo / between(r, 1.3, 1.8)) ?:
		       ph_add(ph, between(r, 0.6, 0.75) * T, hi / between(r, 1.0, 1.2));
	case BF_ADV_THERMAL_CYCLE: {
		double per = between(r, 0.12, 0.25) * T;

		tr->class = BF_CLASS_THERMAL_THROTTLING;
		return alternate(ph, 0, T, hi, hi / between(r, 1.5, 3),
				 per / 2, per / 2, 0.1, false, r);
	}
	case BF_ADV_UNCLEAR_TINY:
		tr->class = BF_CLASS_UNCLEAR;
		return ph_add(ph, 0, hi) ?:
		       ph_add(ph, T * between(r, 0.3, 0.7), hi / logbetween(r, 1.2, 20));
	case BF_ADV_NKINDS:
		break;
	}
	return -EINVAL;
}

int bf_adv_gen(const struct bf_adv_params *p, struct bf_series *ser,
	       struct bf_adv_truth *truth)
{
	struct rng r = { p->seed * 0x2545f4914f6cdd1dULL + 77 * p->kind + 1 };
	struct gen g = { .jitter_from = INFINITY };
	size_t n = p->kind == BF_ADV_UNCLEAR_TINY ? 4 : (size_t)llround(p->T / p->dt);
	double bytes = 0, dt = p->kind == BF_ADV_UNCLEAR_TINY ? p->T / 4 : p->dt;
	struct bf_adv_params q = *p;
	bool lastdip = true;
	size_t i, k = 0;
	int ret;

	q.T = n * dt;
	ret = build(&q, &g, truth, &r);
	for (i = 0; i < n && !ret; i++) {
		double a = i * dt, b = a + dt, acc = 0, x, s = p->noise;

		while (k + 1 < g.ph.n && g.ph.t0[k + 1] <= a)
			k++;
		for (size_t j = k; j < g.ph.n && g.ph.t0[j] < b; j++) {
			double lo = fmax(a, g.ph.t0[j]);
			double hi = j + 1 < g.ph.n ? fmin(b, g.ph.t0[j + 1]) : b;

			if (hi > lo)
				acc += g.ph.rate[j] * (hi - lo);
		}
		if (a >= g.jitter_from)
			s = hypot(s, g.jitter);
		x = acc / dt * exp(s * rng_norm(&r) - s * s / 2);
		if (g.dips && !lastdip && i + 2 < n && rng_unif(&r) < 0.02) {
			x *= between(&r, 0.05, 0.5);
			lastdip = true;
		} else {
			lastdip = false;
		}
		bytes += x * 1e6 * dt;
		ret = bf_series_push(ser, b, dt, x, bytes);
	}
	free(g.ph.t0);
	free(g.ph.rate);
	return ret;
}

/*
 * Tuning set: noise 3/10 %, intervals 0.1/1/5 s, runs of 300 and 3000 s,
 * 3 seeds each. Held aside: noise 6/15 %, intervals 0.25/2 s, runs of 200
 * and 1200 s, 2 other seeds each. Runs are capped at 20,000 samples.
 */
size_t bf_adv_set(struct bf_adv_params *p, size_t max, bool held)
{
	static const double tn[] = { 0.03, 0.10 }, tdt[] = { 0.1, 1, 5 },
			    tT[] = { 300, 3000 };
	static const double hn[] = { 0.06, 0.15 }, hdt[] = { 0.25, 2 },
			    hT[] = { 200, 1200 };
	const double *nz = held ? hn : tn, *dts = held ? hdt : tdt;
	const double *Ts = held ? hT : tT;
	size_t ndt = held ? 2 : 3, nseed = held ? 2 : 3, cnt = 0;
	size_t k, a, b, c, s;

	for (k = 0; k < BF_ADV_NKINDS; k++)
		for (a = 0; a < 2; a++)
			for (b = 0; b < ndt; b++)
				for (c = 0; c < 2; c++)
					for (s = 0; s < nseed; s++) {
						double T = Ts[c];

						if (T / dts[b] > 20000 || T / dts[b] < 20)
							continue;
						if (p && cnt < max)
							p[cnt] = (struct bf_adv_params){
								.kind = k,
								.noise = nz[a],
								.dt = dts[b],
								.T = T,
								.seed = (held ? 900000 : 1000) +
									7919 * s + 31 * c + b,
							};
						cnt++;
					}
	return cnt;
}
