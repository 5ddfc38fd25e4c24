// SPDX-License-Identifier: GPL-2.0
/*
 * Curve classification, stage 3: the verdict. The cause from the
 * features, the temperature as evidence, peak and floor.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "evidence.h"
#include "explain.h"
#include "feature.h"
#include "fmt.h"
#include "segment.h"
#include "stats.h"
#include "verdict.h"

/* ---- the verdict ----------------------------------------------------------- */

struct bf_verdict {
	enum bf_class class;
	double conf;
	bool step;		/* report the first step as the cache */
	bool osc;		/* peak/floor are the oscillation's levels */
	bool dips;		/* one level; its brief dips are not a floor */
};

/*
 * Seconds: a controller that throttles for heat stays slow until it has
 * cooled by its hysteresis, which takes seconds (real drives: tens of
 * seconds to minutes; the rig's fastest heat model about 1 s). A dip
 * that climbs back sooner is a hiccup of the device or the host.
 */
#define BF_HEAT_MIN_S	0.5

static void __attribute__((format(printf, 2, 3)))
set_reason(struct bf_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/* Append to the reason, as much as fits. */
static void __attribute__((format(printf, 2, 3)))
add_reason(struct bf_report *r, const char *fmt, ...)
{
	size_t n = strlen(r->reason);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason + n, sizeof(r->reason) - n, fmt, ap);
	va_end(ap);
}

/*
 * Cycles between two levels: crossings of the band around the middle of
 * @lo and @hi (a quarter of the distance either side) by the 3-point
 * median of the log rate (one noisy sample is not a crossing), the number of low
 * phases, the coefficient of variation of their lengths and the longest
 * (s). A throttle cycle repeats with its thermal time constant (CV ~0.1);
 * GC dips after random stretches (CV ~1).
 */
static void cycles(const struct bf_work *w, double lo, double hi,
		   unsigned int *nlow, double *cv, double *longest)
{
	double c = (lo + hi) / 2, d = (hi - lo) / 4, t0 = 0, m = 0, v = 0;
	double len[64];
	int state = 0;
	size_t i, k = 0;

	*nlow = 0;
	*longest = 0;
	for (i = 0; i < w->n; i++) {
		double t = w->s[i].t, y = w->f[i];

		if (state >= 0 && y < c - d) {
			state = -1;
			t0 = t;
		} else if (state < 0 && y > c + d) {
			state = 1;
			if (k < 64)
				len[k++] = t - t0;
			*longest = fmax(*longest, t - t0);
			(*nlow)++;
		}
	}
	if (k < 3) {
		*cv = NAN;
		return;
	}
	for (i = 0; i < k; i++)
		m += len[i];
	m /= k;
	for (i = 0; i < k; i++)
		v += (len[i] - m) * (len[i] - m);
	v = sqrt(v / (k - 1));
	/* lengths are whole samples: a spread of a sample or so is the
	 * sampling, not the drive */
	v = fmax(0, v - 1.5 * w->s[w->n / 2].dt);
	*cv = m > 0 ? v / m : NAN;
}

/* Returns from below @mid to above it in the plateau sequence. */
static unsigned int seg_cycles(const struct bf_work *w, double mid)
{
	unsigned int n = 0;
	bool low = false;
	size_t g;

	for (g = 0; g < w->nseg; g++) {
		if (w->seg[g].lvl < mid) {
			low = true;
		} else if (low) {
			n++;
			low = false;
		}
	}
	return n;
}

static void verdict_oscillation(struct bf_work *w, const struct bf_feat *f,
				struct bf_report *r, struct bf_verdict *v)
{
	double depth = f->hi2 - f->lo2, cv, slow;
	unsigned int nlow;

	v->osc = true;
	if (!f->bimodal) {
		v->class = BF_CLASS_STEADY;
		v->osc = false;
		v->conf = bf_confidence(w->n, (BF_ERRATIC_SD * 2 - f->spread) /
					   BF_ERRATIC_SD);
		set_reason(r, "wide noise around one level (spread %.0f %%), no two distinct levels",
			   100 * (exp(f->spread) - 1));
		return;
	}
	if (depth >= BF_GC_DEPTH) {
		v->class = BF_CLASS_FTL_STARVATION;
		v->conf = bf_confidence(w->n, (depth - BF_GC_DEPTH) / 0.4);
		set_reason(r, "switches between two levels %.1fx apart (%.0f %% of the time in the upper one): deeper than heat",
			   exp(depth), 100 * (isnan(r->floor_duty) ? 0.5 : r->floor_duty));
		return;
	}
	cycles(w, f->lo2, f->hi2, &nlow, &cv, &slow);
	if (r->floor_kind != BF_FLOOR_PERIODIC && nlow >= 3 && cv > 0.5) {
		v->class = BF_CLASS_FTL_STARVATION;
		v->conf = bf_confidence(nlow, (cv - 0.5) / 0.3);
		set_reason(r, "switches irregularly between two levels %.1fx apart (%u slow stretches, lengths varying by %.0f %%): not a thermal cycle",
			   exp(depth), nlow, 100 * cv);
		return;
	}
	/* no controller throttles, cools and speeds up again in half a
	 * second: regular swings that fast are one sustained rate */
	if (nlow >= 3 && slow < BF_HEAT_MIN_S) {
		v->class = BF_CLASS_STEADY;
		v->osc = false;
		v->dips = true;
		v->conf = bf_confidence(w->n, 0.5);
		set_reason(r, "swings (%.1fx) that climb back, each slow stretch at most %.2f s: too brief for heat",
			   exp(depth), slow);
		if (r->floor_kind == BF_FLOOR_PERIODIC)
			add_reason(r, "; regular every %.2f s", r->floor_period_s);
		return;
	}
	v->class = BF_CLASS_THERMAL_THROTTLING;
	r->recovered = true;
	v->conf = bf_confidence(w->n, (BF_GC_DEPTH - depth) / 0.4) *
		  (r->floor_kind == BF_FLOOR_PERIODIC ? 1 : 0.8);
	set_reason(r, "moderate swings (%.1fx) that climb back to the peak",
		   exp(depth));
	if (r->floor_kind == BF_FLOOR_PERIODIC)
		add_reason(r, ", regular every %.1f s", r->floor_period_s);
}

/*
 * Do the samples stay on one side of @c for a while? The Wald-Wolfowitz
 * runs test: z of the number of runs (stretches on one side) against the
 * number a random order of the same samples would have. A cycle that holds
 * each level for a few samples has far fewer (z well below 0); noise has
 * about as many (z near 0); a rate that flips every sample, as a rate
 * limiter's bursts beating with the sampling interval do, has more.
 */
static double runs_z(const double *y, size_t n, double c)
{
	size_t n1 = 0, runs = 0, i;
	double mu, var;

	for (i = 0; i < n; i++) {
		n1 += y[i] >= c;
		runs += !i || (y[i] >= c) != (y[i - 1] >= c);
	}
	if (!n1 || n1 == n)
		return 0;
	mu = 1 + 2.0 * n1 * (n - n1) / n;
	var = (mu - 1) * (mu - 2) / (n - 1);
	return var > 0 ? (runs - mu) / sqrt(var) : 0;
}

/*
 * Fast at first, then a moderate oscillation (under 4x, each level for a
 * quarter of the time or more, and held for a few samples at a time: far
 * fewer runs than chance) well below: a controller that heated up and now
 * throttles and recovers, not a cache (whose floor may burst briefly or
 * jitter, but does not keep climbing back and holding there). Sets the
 * oscillation's levels in @f (the peak stays the first plateau).
 */
static bool hot_start(struct bf_work *w, struct bf_feat *f,
		      struct bf_report *r)
{
	size_t from = w->seg[1].first, n = w->n, i, up = 0, nlo, nhi;
	double *y = w->y, lo, hi, z;
	unsigned int cross = 0;
	int state = 0;
	bool two;

	if (n - from < 8)
		return false;
	w->y += from;
	w->n -= from;
	bf_two_means(w, &lo, &hi, &nlo, &nhi);
	two = bf_bimodal(w, lo, hi);
	for (i = 0; i < w->n; i++) {
		double d = (hi - lo) / 4, c = (lo + hi) / 2;

		up += w->y[i] >= c;
		/* crossings of the middle band: a few stages cross it
		 * once or twice, a cycle keeps crossing it */
		if ((state <= 0 && w->y[i] > c + d) ||
		    (state >= 0 && w->y[i] < c - d)) {
			cross += state != 0;
			state = w->y[i] > c ? 1 : -1;
		}
	}
	z = runs_z(w->y, w->n, (lo + hi) / 2);
	w->y = y;
	w->n = n;
	if (!two || cross < 4 || hi - lo >= BF_GC_DEPTH || z > -BF_RUNS_Z ||
	    up < 0.25 * (n - from) ||
	    up > 0.75 * (n - from))
		return false;
	bf_short_first_level(w);
	f->lo2 = lo;
	f->hi2 = w->seg[0].lvl;
	r->recovered = true;
	set_reason(r, "fast at first (%.0f MB/s for %.1f s), then a moderate oscillation between about %.0f and %.0f MB/s that keeps climbing back",
		   exp(w->seg[0].lvl), w->seg[0].dur, exp(lo), exp(hi));
	return true;
}

/* The curve starts with a cliff of @drop (log): which kind of curve? */
static void decide_cliff(struct bf_work *w, struct bf_feat *f,
			 struct bf_report *r, struct bf_verdict *v, double drop)
{
	size_t nmin;

	nmin = bf_seg_n(&w->seg[0]) < w->n - bf_seg_n(&w->seg[0]) ?
	       bf_seg_n(&w->seg[0]) : w->n - bf_seg_n(&w->seg[0]);
	r->recovered = false;
	if (bf_seg_n(&w->seg[0]) < BF_MIN_SIDE || w->n - w->seg[1].first < 3) {
		v->class = BF_CLASS_UNCLEAR;
		set_reason(r, "a step after %.0f samples: too few on one side to tell it from noise",
			   (double)bf_seg_n(&w->seg[0]));
		return;
	}
	if (bf_staircase(w, drop, f->total) &&
	    !bf_linear(w, f)) {
		v->class = BF_CLASS_THERMAL_THROTTLING;
		v->conf = bf_confidence(nmin, (BF_CLIFF_BIG - drop) / 0.3);
		set_reason(r, "a staircase of moderate steps (first %.2fx) over time, no single cliff",
			   exp(drop));
		return;
	}
	if (bf_linear(w, f) && drop < BF_CLIFF_BIG &&
	    w->nseg > 2) {
		v->class = BF_CLASS_STEADY;
		v->conf = bf_confidence(w->n, 0.5);
		set_reason(r, "a straight decline (%.0f %% over the run), no step: a trend, like a hard disk's zones",
			   100 * (1 - exp(f->slope * f->total)));
		return;
	}
	if (hot_start(w, f, r)) {
		v->class = BF_CLASS_THERMAL_THROTTLING;
		v->osc = true;
		v->conf = bf_confidence(nmin, 0.7);
		return;
	}
	v->step = true;
	v->conf = bf_confidence(nmin, (drop - BF_REL_STEP) /
			     (4 * w->sigma + 0.05));
	if (r->floor_kind == BF_FLOOR_ERRATIC)
		set_reason(r, "one step down (%.2fx) that does not climb back, to a floor that jitters",
			   exp(drop));
	else
		set_reason(r, "one clean step down (%.2fx) that does not climb back",
			   exp(drop));
	if (w->nseg > 2)
		strncat(r->reason, ", with later stages",
			sizeof(r->reason) - strlen(r->reason) - 1);
	return;
}

/*
 * The slow stretches of a curve that climbs back: runs of plateaus below
 * the top one by a step or more. Returns the longest (s); their number in
 * @n.
 */
static double slow_stretches(const struct bf_work *w, const struct bf_feat *f,
			     unsigned int *n)
{
	double top = w->seg[f->kmax].lvl, len = 0, longest = 0;
	size_t g;

	*n = 0;
	for (g = 0; g < w->nseg; g++) {
		if (w->seg[g].lvl >= top - BF_REL_STEP) {
			len = 0;
			continue;
		}
		*n += len == 0;
		len += w->seg[g].dur;
		longest = fmax(longest, len);
	}
	return longest;
}

static void decide(struct bf_work *w, struct bf_feat *f,
		   struct bf_report *r, struct bf_verdict *v)
{
	double drop = bf_cliff(w, f->total), deep = bf_deepest_step(w), slow;
	unsigned int nslow;

	v->class = BF_CLASS_CACHE_EXHAUSTION;
	v->step = v->osc = v->dips = false;
	r->recovered = bf_recovered(w);
	if (drop > 0) {
		decide_cliff(w, f, r, v, drop);
		return;
	}
	if (f->erratic) {
		verdict_oscillation(w, f, r, v);
		return;
	}
	if (f->backwards) {
		v->class = BF_CLASS_FTL_STARVATION;
		v->conf = bf_confidence(bf_seg_n(&w->seg[0]), 1);
		set_reason(r, "runs backwards: slow first, %.2fx faster later",
			   exp(w->seg[f->kmax].lvl - w->seg[0].lvl));
		return;
	}
	/* dips deep and frequent enough to be a level of their own: GC */
	if (w->nseg == 1 && f->bimodal && f->hi2 - f->lo2 >= BF_GC_DEPTH &&
	    f->low_share >= 0.10) {
		verdict_oscillation(w, f, r, v);
		return;
	}
	if (w->nseg == 1 || bf_linear(w, f)) {
		v->class = BF_CLASS_STEADY;
		v->conf = bf_confidence(w->n, 1);
		if (w->nseg == 1)
			set_reason(r, "one plateau (spread %.0f %%)",
				   100 * (exp(f->spread) - 1));
		else
			set_reason(r, "a straight decline (%.0f %% over the run), no step: a trend, like a hard disk's zones",
				   100 * (1 - exp(f->slope * f->total)));
		return;
	}
	/* three or more returns between two distinct levels: an oscillation */
	if (r->recovered && f->bimodal) {
		if (seg_cycles(w, (f->lo2 + f->hi2) / 2) >= 3) {
			verdict_oscillation(w, f, r, v);
			v->osc = f->erratic;
			return;
		}
	}
	slow = slow_stretches(w, f, &nslow);
	if (r->recovered && nslow && slow < BF_HEAT_MIN_S) {
		v->class = BF_CLASS_STEADY;
		v->dips = true;
		v->conf = bf_confidence(w->n, 0.5);
		set_reason(r, "one level with %u brief dip%s (longest %.2f s, deepest %.2fx) that climb%s back: too brief for heat",
			   nslow, nslow > 1 ? "s" : "", slow, exp(deep),
			   nslow > 1 ? "" : "s");
		return;
	}
	if (r->recovered && deep >= BF_NEVER_HEAT) {
		if (f->bimodal && f->hi2 - f->lo2 >= BF_GC_DEPTH) {
			verdict_oscillation(w, f, r, v);
			return;
		}
		v->class = BF_CLASS_UNCLEAR;
		set_reason(r, "a %.1fx drop (too deep for heat) that then climbs back (not a cache)",
			   exp(deep));
		return;
	}
	if (r->recovered) {
		v->class = BF_CLASS_THERMAL_THROTTLING;
		v->conf = bf_confidence(w->n / w->nseg, 1);
		set_reason(r, "moderate steps down (deepest %.2fx), then the rate climbs back while writing",
			   exp(deep));
		return;
	}
	v->class = BF_CLASS_THERMAL_THROTTLING;
	v->conf = bf_confidence(w->n / w->nseg, 0.5);
	set_reason(r, "%.0f plateaus stepping down moderately (deepest %.2fx)",
		   (double)w->nseg, exp(deep));
}

/* Peak, floor, cache step and cycle, as the verdict reads the curve. */
static void levels(struct bf_work *w, const struct bf_feat *f,
		   const struct bf_verdict *v, struct bf_report *r)
{
	double lo = w->seg[f->kmin].lvl, hi = w->seg[f->kmax].lvl;

	r->has_step = false;
	r->step_time_s = NAN;
	r->cache_bytes = NAN;
	if (v->dips)
		lo = hi;
	if (v->osc) {
		lo = f->lo2;
		hi = f->hi2;
		if (r->floor_kind == BF_FLOOR_PERIODIC)
			r->cycle_s = r->floor_period_s;
	}
	if (v->step) {
		r->has_step = true;
		bf_short_first_level(w);
		hi = w->seg[0].lvl;
		bf_locate_step(w, w->seg[1].first, exp(w->seg[0].lvl),
			       exp(w->seg[1].lvl), &r->step_time_s,
			    &r->cache_bytes);
		r->cache_bytes -= w->b0;
	}
	r->peak_mbps = exp(hi);
	/* the floor is the rate a long job gets: never above the mean */
	r->floor_mbps = fmin(exp(lo), r->mean_mbps);
	/*
	 * After a cliff, a long job ends on the lowest stage if the drive
	 * settles there (the last stage, or most of the time after the
	 * step); on an oscillating floor it gets the floor's mean.
	 */
	if (v->step && f->kmin + 1 != w->nseg &&
	    w->seg[f->kmin].dur < 0.5 * (f->total - w->seg[0].dur))
		r->floor_mbps = fmin(bf_after_mean(w, w->seg[1].first),
				     r->mean_mbps);
	/*
	 * A floor that jitters and is where the drive settles: a long job
	 * gets its bytes over its time. Its level (a median) says less
	 * where the samples are skewed, as a rate limiter's bursts beating
	 * with the interval make them (21 against 25 MB/s in make demo).
	 */
	else if (v->step && r->floor_kind == BF_FLOOR_ERRATIC &&
		 f->kmin + 1 == w->nseg)
		r->floor_mbps = fmin(bf_jitter_mean(w, &w->seg[f->kmin]),
				     r->mean_mbps);
}

/* ---- temperature as evidence ------------------------------------------------ */

#define BF_TEMP_MIN_N	5	/* readings needed to say anything */
#define BF_TEMP_RISE	5.0	/* °C: a rise that can throttle a controller */
#define BF_TEMP_FLAT	3.0	/* °C: a range this small is flat */
#define BF_TEMP_CORR	0.5	/* |r| of log rate and °C that links them */
#define BF_TEMP_FELL	0.18	/* ln: the rate moved by 20 % or more */
/*
 * °C: heat is evidence only when the drive got this hot. Drives throttle
 * near their warning temperature (NVMe WCTEMP is typically 70 to 85 °C;
 * USB enclosures' controllers from about 65 °C), so a drive that never
 * passed 60 °C was not throttled by heat; its temperature followed the
 * rate (a drive that writes less cools), not the other way round.
 */
#define BF_TEMP_HOT_C	60.0
/*
 * A sensor that is no reading: one that repeats a value exactly while the
 * rate changes this many times over (stuck), one that gives a new value
 * only every BF_TEMP_SPARSE_S seconds or more, and every three intervals
 * or more (read rarely, blank or held between), or one blank in more than
 * BF_TEMP_BLANK of the intervals
 * between its first and last reading. A sensor can say "not heat" only
 * if it could have shown heat.
 */
#define BF_TEMP_STUCK_RATIO	2.0
#define BF_TEMP_SPARSE_S	10.0
#define BF_TEMP_BLANK		0.1

/*
 * Whether the readings can be evidence at all (see above); if not, why in
 * T->said. @yhi, @ylo: the highest and lowest log rate beside a reading.
 */
static bool temp_readable(const struct bf_work *w, struct bf_temp *T,
			  double ylo, double yhi)
{
	size_t i, first = w->n, last = 0, blank = 0, fresh = 0, ng = 0;
	double prev = NAN, prev_t = NAN, span, every, *gap, *dts;
	bool after_blank = false;

	for (i = 0; i < w->n; i++) {
		if (!w->s[i].has_temp)
			continue;
		first = i < first ? i : first;
		last = i;
	}
	gap = malloc(T->n * sizeof(*gap));
	dts = malloc((last - first + 1) * sizeof(*dts));
	if (!gap || !dts) {
		free(gap);
		free(dts);
		return false;
	}
	/* a new value: one that differs from the reading before, or comes
	 * after blank cells; the time between new values is how often the
	 * sensor was really read */
	for (i = first; i <= last; i++) {
		const struct bf_sample *x = &w->s[i];

		dts[i - first] = x->dt;
		if (!x->has_temp) {
			blank++;
			after_blank = true;
			continue;
		}
		if (after_blank || !(fabs(x->temp_c - prev) < 1e-9)) {
			if (isfinite(prev_t))
				gap[ng++] = x->t - prev_t;
			prev_t = x->t;
			fresh++;
		}
		after_blank = false;
		prev = x->temp_c;
	}
	span = w->s[last].t - (w->s[first].t - w->s[first].dt);
	every = ng ? bf_median(gap, ng) : span;
	/* ... compared with the curve's own interval: a coarse curve whose
	 * every interval carries a new reading follows the drive as well as
	 * its rate does */
	if (every < 3 * bf_median(dts, last - first + 1))
		every = 0;
	free(gap);
	free(dts);
	if (T->max_c - T->min_c < 1e-9 &&
	    yhi - ylo >= log(BF_TEMP_STUCK_RATIO)) {
		snprintf(T->said, sizeof(T->said),
			 "%.1f °C throughout while the rate changed %.1f-fold: a stuck sensor, no reading",
			 T->max_c, exp(yhi - ylo));
		return false;
	}
	if (every >= BF_TEMP_SPARSE_S) {
		snprintf(T->said, sizeof(T->said),
			 "a new temperature only every %.0f s (%zu values in %.0f s): too few to follow the drive, no reading",
			 every, fresh, span);
		return false;
	}
	if (blank > BF_TEMP_BLANK * (last - first + 1)) {
		snprintf(T->said, sizeof(T->said),
			 "blank cells in %zu of %zu intervals between the first and last reading: no reading",
			 blank, last - first + 1);
		return false;
	}
	return true;
}

/*
 * What the drive's temperature did, and what it says about the verdict: a
 * rate that falls as the temperature rises (and climbs back as it cools)
 * is heat; a rate that falls at a flat temperature is not (a cache or GC).
 * Works on the filtered log rate of the samples that carry a temperature.
 */
static double pearson(const double *x, const double *y, size_t n)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, den;
	size_t i;

	for (i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		syy += y[i] * y[i];
		sxy += x[i] * y[i];
	}
	den = (n * sxx - sx * sx) * (n * syy - sy * sy);
	return den > 0 ? (n * sxy - sx * sy) / sqrt(den) : NAN;
}

/*
 * Pearson r of the log rate and the heating (°C/s over +-2 readings): a
 * drive heats while it writes fast and cools while it is throttled, so a
 * throttle-and-recover cycle, whose rate and temperature are out of phase
 * (r ~ 0 between them), shows here. Temperatures spread over the run are
 * taken where all of i-2..i+2 carry one.
 */
static double heat_rate_corr(const struct bf_work *w)
{
	double *x = malloc(w->n * sizeof(double)), *y, r = NAN;
	size_t i, m = 0;

	y = malloc(w->n * sizeof(double));
	if (x && y && w->n >= 5) {
		for (i = 2; i + 2 < w->n; i++) {
			size_t k;
			bool all = true;

			for (k = i - 2; k <= i + 2; k++)
				all = all && w->s[k].has_temp;
			if (!all)
				continue;
			x[m] = w->f[i];
			y[m++] = (w->s[i + 2].temp_c - w->s[i - 2].temp_c) /
				 (w->s[i + 2].t - w->s[i - 2].t);
		}
		if (m >= BF_TEMP_MIN_N)
			r = pearson(x, y, m);
	}
	free(x);
	free(y);
	return r;
}

static void temp_evidence(const struct bf_work *w, struct bf_report *r,
			  struct bf_verdict *v)
{
	struct bf_temp *T = &r->temp;
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, ylo = INFINITY;
	double yhi = -INFINITY, den, range;
	bool fell;
	size_t i;

	memset(T, 0, sizeof(*T));
	T->corr = T->dcorr = NAN;
	for (i = 0; i < w->n; i++) {
		double x = w->s[i].temp_c, y = w->f[i];

		if (!w->s[i].has_temp)
			continue;
		if (!T->n)
			T->start_c = T->max_c = T->min_c = x;
		T->max_c = fmax(T->max_c, x);
		T->min_c = fmin(T->min_c, x);
		T->end_c = x;
		T->n++;
		sx += x;
		sy += y;
		sxx += x * x;
		syy += y * y;
		sxy += x * y;
		ylo = fmin(ylo, y);
		yhi = fmax(yhi, y);
	}
	if (!T->n)
		return;
	if (T->n < BF_TEMP_MIN_N) {
		snprintf(T->said, sizeof(T->said),
			 "only %zu temperature readings: no evidence", T->n);
		return;
	}
	if (!temp_readable(w, T, ylo, yhi))
		return;
	den = (T->n * sxx - sx * sx) * (T->n * syy - sy * sy);
	if (den > 0)
		T->corr = (T->n * sxy - sx * sy) / sqrt(den);
	T->dcorr = heat_rate_corr(w);
	range = T->max_c - T->min_c;
	fell = yhi - ylo >= BF_TEMP_FELL;
	if (!fell) {
		snprintf(T->said, sizeof(T->said),
			 "the rate held while the temperature went %.1f -> %.1f °C: no evidence either way",
			 T->start_c, T->end_c);
		return;
	}
	if (range >= BF_TEMP_RISE && (T->corr <= -BF_TEMP_CORR ||
				       T->dcorr >= BF_TEMP_CORR) &&
	    T->max_c < BF_TEMP_HOT_C) {
		snprintf(T->said, sizeof(T->said),
			 "%.0f to %.0f °C, in step with the rate (r = %.2f), but under %.0f °C, below where drives throttle: it cooled as it wrote less; no evidence for heat",
			 T->start_c, T->max_c, fmax(-T->corr, T->dcorr),
			 BF_TEMP_HOT_C);
		return;
	}
	if (range >= BF_TEMP_RISE && (T->corr <= -BF_TEMP_CORR ||
				       T->dcorr >= BF_TEMP_CORR)) {
		double c = fmax(-T->corr, T->dcorr);

		T->evidence = 1;
		snprintf(T->said, sizeof(T->said),
			 "the rate fell as the temperature rose (%.1f to %.1f °C; r = %.2f with the rate, %.2f with its heating): evidence for heat",
			 T->start_c, T->max_c, T->corr, T->dcorr);
		if (v->class == BF_CLASS_THERMAL_THROTTLING) {
			v->conf = fmin(0.99, v->conf + (1 - v->conf) * 0.6);
		} else {
			v->class = BF_CLASS_THERMAL_THROTTLING;
			v->step = false;
			v->conf = round(100 * (0.6 + 0.35 *
				  bf_clamp01((c - BF_TEMP_CORR) / 0.4))) / 100;
		}
		add_reason(r, "; the rate fell as the drive heated (r = %.2f)", c);
		return;
	}
	if (range < BF_TEMP_FLAT) {
		T->evidence = -1;
		snprintf(T->said, sizeof(T->said),
			 "the rate fell at a flat temperature (%.1f to %.1f °C): evidence against heat",
			 T->min_c, T->max_c);
		if (v->class == BF_CLASS_THERMAL_THROTTLING) {
			v->class = r->recovered ? BF_CLASS_FTL_STARVATION :
						  BF_CLASS_CACHE_EXHAUSTION;
			v->step = !r->recovered && w->nseg > 1;
			v->conf = 0.6;
		} else if (v->class != BF_CLASS_UNCLEAR) {
			v->conf = fmin(0.99, v->conf + (1 - v->conf) * 0.3);
		}
		add_reason(r, "; the temperature stayed within %.1f °C: not heat",
			   range);
		return;
	}
	snprintf(T->said, sizeof(T->said),
		 "the temperature went %.1f -> %.1f (max) -> %.1f °C, not in step with the rate (r = %.2f): no evidence",
		 T->start_c, T->max_c, T->end_c, isnan(T->corr) ? 0 : T->corr);
}

int bf_classify_work(struct bf_work *w, struct bf_report *r)
{
	struct bf_verdict v = { 0 };
	struct bf_feat f = { 0 };
	struct bf_seg *raw = NULL;
	size_t i;
	int ret;

	for (i = 0; i < w->n; i++)
		f.total += w->s[i].dt;
	w->sigma = r->noise_rel = bf_noise(w);
	ret = bf_change_points(w, &raw);
	if (ret)
		return ret;
	r->nraw_segments = w->nseg;
	bf_seg_cleanup(w, f.total);
	bf_features(w, &f);
	r->trend_rel = expm1(f.slope * f.total);
	bf_floor_behaviour(w, &f, r);
	if (w->n < BF_MIN_ACTIVE) {
		v.class = BF_CLASS_UNCLEAR;
		set_reason(r, "only %zu samples: too few to tell a step from noise",
			   w->n);
	} else {
		decide(w, &f, r, &v);
		temp_evidence(w, r, &v);
	}
	r->class = v.class;
	r->confidence = v.class == BF_CLASS_UNCLEAR ? 0 : v.conf;
	bf_report_shape_only(r);
	r->erratic = f.erratic && v.osc;
	levels(w, &f, &v, r);
	if (r->erratic) {
		/* the change points describe an oscillation better */
		memcpy(w->seg, raw, r->nraw_segments * sizeof(*raw));
		w->nseg = r->nraw_segments;
	}
	free(raw);
	if (v.step)
		r->trend_rel = bf_trend_from(w, w->seg[1].first);
	bf_fill_steps(w, r);
	ret = bf_fill_report(w, r);
	if (!ret)
		bf_words(r);
	return ret;
}
