// SPDX-License-Identifier: GPL-2.0
/*
 * Curve classification, stage 2: what the plateaus say. Spread, levels,
 * cycles, cliffs and staircases, the step and the floor's behaviour.
 */
#include <math.h>
#include <string.h>

#include "classify_int.h"
#include "feature.h"
#include "segment.h"
#include "stats.h"

/* ---- labelling -------------------------------------------------------- */

/* Pooled robust spread of y around its plateau levels (log units). */
static double within_spread(struct bf_work *w)
{
	size_t g, i, m = 0;

	for (g = 0; g < w->nseg; g++)
		for (i = w->seg[g].first; i <= w->seg[g].last; i++)
			w->tmp[m++] = fabs(w->y[i] - w->seg[g].lvl);
	return 1.4826 * bf_median(w->tmp, m);
}

/*
 * Share of samples more than 50 % off their plateau's level. The spread
 * above is a median: it misses an oscillation that spends most of its time
 * at one level; dips and bursts stay well under a third of the samples.
 */
static double far_fraction(const struct bf_work *w)
{
	size_t g, i, far = 0;

	for (g = 0; g < w->nseg; g++)
		for (i = w->seg[g].first; i <= w->seg[g].last; i++)
			far += fabs(w->y[i] - w->seg[g].lvl) > BF_FAR;
	return (double)far / w->n;
}

/*
 * Share of sample-to-sample changes by a factor of 2 or more (and beyond 4
 * noise sd, the noise taken from the lower quartile of the changes, which
 * switching does not inflate). A drive switching between two rates every
 * few samples makes a third or more of them; a cache step, a few stages or
 * bursts every 10 samples make well under a fifth.
 */
static double jump_fraction(struct bf_work *w)
{
	size_t n = w->n, i, jumps = 0;
	double sd, thr;

	for (i = 1; i < n; i++)
		w->tmp[i - 1] = fabs(w->y[i] - w->y[i - 1]);
	sd = bf_select(w->tmp, n - 1, (n - 1) / 4) / 0.3186 / sqrt(2.0);
	thr = fmax(M_LN2, 4 * sd);
	for (i = 1; i < n; i++)
		jumps += fabs(w->y[i] - w->y[i - 1]) > thr;
	return (double)jumps / (n - 1);
}

/* Median plateau duration as a fraction of the run. */
static double median_dur_frac(struct bf_work *w, double total)
{
	size_t g;

	for (g = 0; g < w->nseg; g++)
		w->tmp[g] = w->seg[g].dur / total;
	return bf_median(w->tmp, w->nseg);
}

/*
 * Level of one side of @cut: its outer quartile. With fast switching many
 * samples straddle a switch and mix both levels, which pulls the middle of
 * each side towards the other; the outer quartile is what an unmixed
 * sample reads (biased outwards by 0.67 noise sd, which is small).
 */
static double cluster_level(struct bf_work *w, double cut, bool upper,
			    size_t *cnt)
{
	size_t n = w->n, i, m = 0;

	for (i = 0; i < n; i++)
		if (upper ? w->y[i] >= cut : w->y[i] < cut)
			w->tmp[m++] = w->y[i];
	*cnt = m;
	if (!m)
		return NAN;
	return bf_select(w->tmp, m, upper ? m - 1 - m / 4 : m / 4);
}

/*
 * Two-level split of an erratic curve: 1-D 2-means on y, started at the
 * 10th and 90th percentiles; returns the level of each cluster.
 */
void bf_two_means(struct bf_work *w, double *lo, double *hi,
		  size_t *nlo, size_t *nhi)
{
	size_t n = w->n, i, it, a = 0, b = 0;
	double c0, c1, cut = 0;

	memcpy(w->tmp, w->y, n * sizeof(double));
	c0 = bf_select(w->tmp, n, n / 10);
	c1 = bf_select(w->tmp, n, n - 1 - n / 10);
	for (it = 0; it < 20; it++) {
		double s0 = 0, s1 = 0;

		cut = (c0 + c1) / 2;
		a = b = 0;
		for (i = 0; i < n; i++) {
			if (w->y[i] < cut) {
				s0 += w->y[i];
				a++;
			} else {
				s1 += w->y[i];
				b++;
			}
		}
		if (!a || !b)
			break;
		c0 = s0 / a;
		c1 = s1 / b;
	}
	*lo = cluster_level(w, cut, false, nlo);
	*hi = cluster_level(w, cut, true, nhi);
}

static double acf(const double *y, size_t n, double m, double var, size_t k)
{
	double r = 0;
	size_t i;

	for (i = 0; i + k < n; i++)
		r += (y[i] - m) * (y[i + k] - m);
	return r / var;
}

/*
 * Is the oscillation regular? A throttle-and-recover cycle repeats with
 * the controller's thermal time constant; an FTL starved of free blocks
 * switches after random stretches. The autocorrelation of y (over the last
 * BF_ACF_N samples at most, lags up to a quarter of them) has a clear
 * second peak for the first (>= 0.5 on the QEMU rig's thermal model at
 * any interval from 0.1 to 1 s) and none for the second (<= 0.36 on its
 * FTL model). The estimate is noisy (standard error ~1/sqrt(n)), so it
 * takes BF_ACF_MIN samples and a second peak at twice the period. Returns
 * the period in samples or 0.
 */
static size_t periodic(const struct bf_work *w)
{
	size_t n = w->n < BF_ACF_N ? w->n : BF_ACF_N, L = n / 4, k, i;
	const double *y = w->y + (w->n - n);
	double m = 0, var = 0, best = 0;
	size_t bestk = 0;
	bool crossed = false;

	if (L > BF_ACF_LAGS)
		L = BF_ACF_LAGS;
	if (n < BF_ACF_MIN)
		return 0;
	for (i = 0; i < n; i++)
		m += y[i];
	m /= n;
	for (i = 0; i < n; i++)
		var += (y[i] - m) * (y[i] - m);
	if (!(var > 0))
		return 0;
	for (k = 1; k <= L; k++) {
		double r = acf(y, n, m, var, k);

		if (r <= 0)
			crossed = true;
		else if (crossed && r > best)
			best = r, bestk = k;
	}
	if (best < BF_ACF_PEAK)
		return 0;
	/* a cycle repeats: the second period correlates as well */
	if (2 * bestk < n / 2 && acf(y, n, m, var, 2 * bestk) < BF_ACF_PEAK2)
		return 0;
	return bestk;
}

/*
 * A first plateau (a cache phase, a hot start) of a few samples: the last
 * of them may straddle the step
 * and read a mix of both rates (at 1 s intervals a 1.5 s cache is one clean
 * sample and one mixed). Drop trailing samples more than 3 sigma below the
 * best one and average the rest.
 */
void bf_short_first_level(struct bf_work *w)
{
	struct bf_seg *g = &w->seg[0];
	size_t i, last = g->last;
	double top = -INFINITY, m = 0;

	if (bf_seg_n(g) > 4)
		return;
	for (i = g->first; i <= g->last; i++)
		top = fmax(top, w->y[i]);
	while (last > g->first && w->y[last] < top - 3 * w->sigma)
		last--;
	if (last - g->first + 1 == 4) {
		/* the noise estimate may be too coarse to spot the mixed
		 * sample: the median of four is not moved by it */
		for (i = 0; i < 4; i++)
			w->tmp[i] = w->y[g->first + i];
		g->lvl = bf_median(w->tmp, 4);
		return;
	}
	for (i = g->first; i <= last; i++)
		m += w->y[i];
	g->lvl = m / (last - g->first + 1);
}

double bf_seg_sd_mbps(const struct bf_work *w, const struct bf_seg *g)
{
	size_t i, len = bf_seg_n(g);

	for (i = 0; i < len; i++)
		w->tmp[i] = w->s[g->first + i].mbps;
	return bf_mean_sd(w->tmp, len, NULL);
}

/*
 * Where inside the samples around the boundary did the rate step from
 * @hi to @lo (MB/s)? The sample that straddles the step carries a mix of
 * both rates; its mix gives the sub-sample step time.
 */
void bf_locate_step(const struct bf_work *w, size_t b, double hi,
		    double lo, double *t, double *bytes)
{
	const struct bf_sample *s = w->s;
	size_t j = b;
	double f;

	if (b > 0) {
		f = (s[b - 1].mbps - lo) / (hi - lo);
		if (f < 0.5)
			j = b - 1;
	}
	f = (s[j].mbps - lo) / (hi - lo);
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	*t = s[j].t - s[j].dt + f * s[j].dt;
	*bytes = bf_bytes_before(w, j) + hi * 1e6 * f * s[j].dt;
}

/* ---- features ------------------------------------------------------------ */

/*
 * Least-squares line of @y[from..] over the samples' times: returns the
 * slope, the intercept in @a (0 slope where the times do not vary).
 */
static double fit_line(const struct bf_work *w, const double *y, size_t from,
		       double *a)
{
	double st = 0, sy = 0, stt = 0, sty = 0, den, b;
	size_t i, n = w->n - from;

	for (i = from; i < w->n; i++) {
		double t = w->s[i].t;

		st += t;
		sy += y[i];
		stt += t * t;
		sty += t * y[i];
	}
	den = n * stt - st * st;
	b = den > 0 ? (n * sty - st * sy) / den : 0;
	*a = (sy - b * st) / n;
	return b;
}

/* Least-squares line of y over time; residual sd and slope. */
static void line_fit(const struct bf_work *w, struct bf_feat *f)
{
	double rss = 0, a, b;
	size_t i, n = w->n, g;

	b = fit_line(w, w->y, 0, &a);
	for (i = 0; i < n; i++) {
		double e = w->y[i] - a - b * w->s[i].t;

		rss += e * e;
	}
	f->line_sd = sqrt(rss / n);
	f->slope = b;
	for (rss = 0, g = 0; g < w->nseg; g++)
		for (i = w->seg[g].first; i <= w->seg[g].last; i++)
			rss += (w->y[i] - w->seg[g].lvl) * (w->y[i] - w->seg[g].lvl);
	f->seg_sd = sqrt(rss / n);
}

/*
 * Median and robust spread (1.4826 MAD, the sd of a normal level) of the
 * log rates on one side of @cut: a single near-zero sample (a short stall,
 * clamped far below the median) must not widen a level it does not belong
 * to. Nor must a sample at a switch between the levels, with a neighbour
 * on the other side: an interval that straddles the switch averages the
 * two levels and belongs to neither. Those are left out while at least
 * two samples of the level remain.
 */
static bool cluster_interior(const struct bf_work *w, double cut, size_t i)
{
	bool k = w->y[i] >= cut;

	return (i == 0 || (w->y[i - 1] >= cut) == k) &&
	       (i + 1 == w->n || (w->y[i + 1] >= cut) == k);
}

/* Sample @i counts for level @k (with its switch samples when @all). */
static bool cluster_member(const struct bf_work *w, double cut, int k,
			   bool all, size_t i)
{
	return (w->y[i] >= cut) == k && (all || cluster_interior(w, cut, i));
}

static size_t cluster_robust(struct bf_work *w, double cut, int k,
			     double *med, double *sd)
{
	size_t i, c = 0, inner = 0;
	bool all;

	for (i = 0; i < w->n; i++)
		inner += cluster_member(w, cut, k, false, i);
	all = inner < 2;
	for (i = 0; i < w->n; i++)
		if (cluster_member(w, cut, k, all, i))
			w->tmp[c++] = w->y[i];
	if (c < 2)
		return c;
	*med = bf_median(w->tmp, c);
	c = 0;
	for (i = 0; i < w->n; i++)
		if (cluster_member(w, cut, k, all, i))
			w->tmp[c++] = fabs(w->y[i] - *med);
	*sd = 1.4826 * bf_median(w->tmp, c);
	return c;
}

/*
 * Two distinct levels, or one wide one? Split the log rates with two-means:
 * on a single normal level the split halves sit 1.6 sd apart with 0.6 sd
 * inside each (ratio 2.65); two levels a few noise sd apart score far more.
 * Levels 2x apart or more are also found by the halves' medians and
 * robust spreads, which a few outliers (short stalls, a burst at the start
 * as a write cache fills) do not move. (At 1.5x, a real noisy HDD trace,
 * floppy-randwrite-qd1 in the corpus, would read as two levels.)
 */
bool bf_bimodal(struct bf_work *w, double lo, double hi)
{
	double cut = (lo + hi) / 2, m[2] = { 0 }, v[2] = { 0 }, md[2], sd[2];
	size_t c[2] = { 0 }, i;
	bool plain, robust;

	for (i = 0; i < w->n; i++) {
		int k = w->y[i] >= cut;

		m[k] += w->y[i];
		c[k]++;
	}
	if (c[0] < 2 || c[1] < 2)
		return false;
	m[0] /= c[0];
	m[1] /= c[1];
	for (i = 0; i < w->n; i++) {
		int k = w->y[i] >= cut;

		v[k] += (w->y[i] - m[k]) * (w->y[i] - m[k]);
	}
	plain = (m[1] - m[0]) / sqrt((v[0] + v[1]) / w->n) > 3.5 &&
		m[1] - m[0] > log(1.5);
	if (plain)
		return true;
	cluster_robust(w, cut, 0, &md[0], &sd[0]);
	cluster_robust(w, cut, 1, &md[1], &sd[1]);
	/* only for levels far apart, where an outlier could hide them */
	robust = md[1] - md[0] > log(2) &&
		 (md[1] - md[0]) > 3.5 * 1.4 *
		 sqrt((c[0] * sd[0] * sd[0] + c[1] * sd[1] * sd[1]) / w->n);
	return robust;
}

void bf_features(struct bf_work *w, struct bf_feat *f)
{
	double exc = 0;
	size_t g, nlo, nhi;

	f->spread = within_spread(w);
	for (g = 0; g < w->nseg; g++)
		exc += w->seg[g].exc_dur;
	f->erratic = f->spread > BF_ERRATIC_SD || exc > 0.3 * f->total ||
		     far_fraction(w) > BF_ERRATIC_FAR ||
		     jump_fraction(w) > BF_ERRATIC_JUMPS ||
		     (w->nseg >= 6 && median_dur_frac(w, f->total) < 0.10);
	f->kmax = f->kmin = 0;
	for (g = 0; g < w->nseg; g++) {
		if (w->seg[g].lvl > w->seg[f->kmax].lvl)
			f->kmax = g;
		if (w->seg[g].lvl < w->seg[f->kmin].lvl)
			f->kmin = g;
	}
	bf_two_means(w, &f->lo2, &f->hi2, &nlo, &nhi);
	f->bimodal = bf_bimodal(w, f->lo2, f->hi2);
	f->low_share = nlo + nhi ? (double)nlo / (nlo + nhi) : 0;
	f->backwards = !f->erratic && f->kmax > 0 &&
		       w->seg[f->kmax].lvl - w->seg[0].lvl >= BF_BACKWARDS &&
		       !bf_seg_similar(w, &w->seg[0], &w->seg[f->kmax]);
	line_fit(w, f);
}

/* recovered: some plateau rises clearly above an earlier drop */
bool bf_recovered(const struct bf_work *w)
{
	size_t g, h;

	for (g = 1; g < w->nseg; g++) {
		if (w->seg[g].lvl >= w->seg[0].lvl - BF_REL_STEP)
			continue;
		for (h = g + 1; h < w->nseg; h++)
			if (w->seg[h].lvl > w->seg[g].lvl + BF_REL_STEP &&
			    !bf_seg_similar(w, &w->seg[g], &w->seg[h]))
				return true;
	}
	return false;
}

static bool long_seg(const struct bf_work *w, const struct bf_seg *g,
		     double total)
{
	return g->dur >= BF_LONG_SEG * total && bf_seg_n(g) >= 3;
}

/*
 * A cliff: the first plateau is the top, and the rest of the curve stays
 * below it without climbing back: no long plateau after the first step
 * recovers half of the (log) drop. The rest may drift, jitter, step again
 * or burst; it is the floor. Returns the (log) depth of the first step, or
 * 0 if the curve does not start with a cliff.
 */
double bf_cliff(const struct bf_work *w, double total)
{
	const struct bf_seg *g0 = &w->seg[0];
	double l1, drop, top = -INFINITY, trough, near;
	size_t g, i, up = 0;

	if (w->nseg < 2)
		return 0;
	l1 = w->seg[1].lvl;
	drop = g0->lvl - l1;
	if (drop < BF_REL_STEP)
		return 0;
	trough = l1;
	for (g = 1; g < w->nseg; g++) {
		const struct bf_seg *s = &w->seg[g];

		if (!long_seg(w, s, total))
			continue;
		if (s->lvl >= g0->lvl - BF_REL_STEP)
			return 0;
		/* back up by half the way from the trough to the peak */
		if (s->lvl > trough + fmax((g0->lvl - trough) / 2, log(1.15)))
			return 0;
		trough = fmin(trough, s->lvl);
		top = fmax(top, s->lvl);
	}
	if (top > l1 + fmax(drop / 2, log(1.15)))
		return 0;
	/* an oscillation that keeps reaching the peak, not short bursts */
	near = g0->lvl - fmin(fmax(log(1.25), 2 * w->sigma), drop / 2);
	for (i = w->seg[1].first; i < w->n; i++)
		up += w->y[i] >= near;
	if (up > BF_BURST_SHARE * (w->n - w->seg[1].first))
		return 0;
	return drop;
}

/*
 * A staircase of moderate, time-driven steps (heat) rather than one step
 * and a sinking floor (a cache): the first step is moderate and the later
 * long plateaus step down again by as much, at least once.
 */
bool bf_staircase(const struct bf_work *w, double drop, double total)
{
	double prev = w->seg[1].lvl, more = 0, big = 0;
	unsigned int steps = 0;
	size_t g;

	if (drop >= BF_CLIFF_BIG)
		return false;
	for (g = 2; g < w->nseg; g++) {
		const struct bf_seg *s = &w->seg[g];

		if (!long_seg(w, s, total))
			continue;
		if (prev - s->lvl >= log(1.15)) {
			more += prev - s->lvl;
			big = fmax(big, prev - s->lvl);
			steps++;
		}
		prev = s->lvl;
	}
	return steps >= 2 || (steps == 1 && big >= 0.8 * drop);
}

/*
 * A straight decline (a hard disk's zones): the plateaus only go down, a
 * straight line fits the samples about as well as the plateaus do (within
 * 20 % of the residual sd), and the line falls by 10 % or more.
 */
bool bf_linear(const struct bf_work *w, const struct bf_feat *f)
{
	size_t g;

	if (f->erratic || !(f->slope < 0) ||
	    -f->slope * f->total < log(1.1) || f->line_sd >= 1.2 * f->seg_sd)
		return false;
	for (g = 1; g < w->nseg; g++)
		if (w->seg[g].lvl > w->seg[g - 1].lvl)
			return false;
	return true;
}

/* Largest one-step drop between consecutive plateaus (log). */
double bf_deepest_step(const struct bf_work *w)
{
	double d = 0;
	size_t g;

	for (g = 1; g < w->nseg; g++)
		d = fmax(d, w->seg[g - 1].lvl - w->seg[g].lvl);
	return d;
}

void bf_fill_steps(const struct bf_work *w, struct bf_report *r)
{
	size_t g;

	r->nsteps = 0;
	if (r->erratic)
		return;
	for (g = 1; g < w->nseg && r->nsteps < BF_MAX_STEPS; g++) {
		struct bf_step *st = &r->steps[r->nsteps++];
		double hi = exp(w->seg[g - 1].lvl), lo = exp(w->seg[g].lvl);

		if (hi > lo) {
			bf_locate_step(w, w->seg[g].first, hi, lo, &st->time_s,
				       &st->bytes);
		} else {
			st->time_s = w->s[w->seg[g].first].t -
				     w->s[w->seg[g].first].dt;
			st->bytes = bf_bytes_before(w, w->seg[g].first);
		}
		st->bytes -= w->b0;
		st->ratio = hi / lo;
	}
}

/* How the rate behaves after the first step (or over the whole curve). */
void bf_floor_behaviour(struct bf_work *w, const struct bf_feat *f,
			struct bf_report *r)
{
	size_t per = periodic(w), i, up = 0;
	double cut = (f->lo2 + f->hi2) / 2;
	size_t from = w->nseg > 1 && !f->erratic ? w->seg[1].first : 0;

	r->floor_kind = BF_FLOOR_STEADY;
	r->floor_period_s = 0;
	r->floor_duty = NAN;
	if (per) {
		r->floor_kind = BF_FLOOR_PERIODIC;
		r->floor_period_s = per * f->total / w->n;
		for (i = from; i < w->n; i++)
			up += w->y[i] >= cut;
		r->floor_duty = (double)up / (w->n - from);
	} else if (f->erratic && f->bimodal) {
		r->floor_kind = BF_FLOOR_ERRATIC;
	} else if (f->spread > 0.15) {
		r->floor_kind = BF_FLOOR_ERRATIC;
	}
}

double bf_clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Confidence from the samples behind the evidence and its margin. */
double bf_confidence(size_t nmin, double margin)
{
	return round(100 * (0.5 + 0.5 * bf_clamp01(nmin / 20.0) *
				  bf_clamp01(margin))) / 100;
}

/* Bytes over time from sample @i on: an oscillating floor's long-run rate. */
double bf_after_mean(const struct bf_work *w, size_t i)
{
	double b = w->s[w->n - 1].bytes - bf_bytes_before(w, i), t = 0;

	for (; i < w->n; i++)
		t += w->s[i].dt;
	return t > 0 ? b / t / 1e6 : 0;
}

/*
 * Relative change of a straight line fitted to the median-filtered log
 * rate from sample @from on (the sample straddling the step, which mixes
 * both rates, left out).
 */
double bf_trend_from(const struct bf_work *w, size_t from)
{
	double a, b, t0, t1;

	from++;
	if (from + 3 > w->n)
		return 0;
	b = fit_line(w, w->f, from, &a);
	t0 = w->s[from].t - w->s[from].dt;
	t1 = w->s[w->n - 1].t;
	return expm1(b * (t1 - t0));
}

/*
 * The rate over a jittery plateau @g: its bytes over its time, leaving out
 * what is no jitter but an excursion of its own, 2x or more off the
 * plateau's level (a burst of a refreshed cache, a stall).
 */
double bf_jitter_mean(const struct bf_work *w, const struct bf_seg *g)
{
	double b = 0, t = 0;
	size_t i;

	for (i = g->first; i <= g->last; i++) {
		if (fabs(w->y[i] - g->lvl) >= M_LN2)
			continue;
		b += w->s[i].mbps * w->s[i].dt;
		t += w->s[i].dt;
	}
	return t > 0 ? b / t : exp(g->lvl);
}
