// SPDX-License-Identifier: GPL-2.0
/*
 * Curve classification: segment a throughput curve into plateaus and label
 * its shape. Pure computation; the only I/O is the two FILE * printers.
 *
 * Method (Documentation/classification.rst has the reasoning):
 *  1. work on y = log(rate): the noise of a drive is roughly proportional
 *     to its rate, so in the log domain it is homoscedastic and a step is
 *     a ratio, the same at 127 MB/s as at 2,555 MB/s;
 *  2. a 3-point running median removes one-sample dips and spikes;
 *  3. binary segmentation with an L2 cost on prefix sums, a minimum segment
 *     of 2 samples and a penalty of BF_PEN * sigma^2 * ln(n), sigma being
 *     a robust noise estimate (MAD of first differences of the raw y);
 *  4. plateau clean-up: merge neighbours closer than 10 % (or than the
 *     noise allows), absorb short excursions between two equal plateaus
 *     (bursts, dips), absorb short transitions and warm-up/tail stubs;
 *  5. label from the remaining plateaus.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "evidence.h"
#include "grow.h"
#include "origin.h"
#include "json.h"

#define BF_PEN		4.0	/* penalty factor on sigma^2 ln(n) */
#define BF_MINSEG	2	/* samples */
#define BF_REL_STEP	0.0953	/* ln(1.10): smaller steps are not plateaus */
#define BF_Z		3.0	/* z for "beyond the noise" between segments */
#define BF_BURST_BYTES	1e9	/* a burst above the floor is well under 1 GB */
#define BF_ERRATIC_SD	0.30	/* pooled in-plateau spread (log) of ftl */
#define BF_WORK		50	/* binseg scans at most 50 n samples */
#define BF_LVL_SAMPLES	4096	/* samples used for a long plateau's median */
#define BF_ACF_N	20000	/* samples looked at for periodicity */
#define BF_ACF_LAGS	200
#define BF_ACF_PEAK	0.45	/* autocorrelation of a regular cycle */
#define BF_ACF_PEAK2	0.25	/* ... at twice its period */
#define BF_ACF_MIN	100	/* samples needed to call a cycle regular */
#define BF_FAR		0.4055	/* ln(1.5): a sample far from its plateau */
#define BF_ERRATIC_FAR	0.35	/* share of far samples in an erratic curve */
#define BF_HOT_START	0.4055	/* ln(1.5): a start above an oscillation */
#define BF_RUNS_Z	1.645	/* levels that persist: 5 %, one-sided */
#define BF_ERRATIC_JUMPS 0.25	/* share of 2x jumps in an erratic curve */
#define BF_BACKWARDS	0.2231	/* ln(1.25): "runs backwards" is a real climb */

const char *bf_class_name(enum bf_class c)
{
	switch (c) {
	case BF_CLASS_STEADY:
		return "steady";
	case BF_CLASS_CACHE_EXHAUSTION:
		return "cache-exhaustion";
	case BF_CLASS_THERMAL_THROTTLING:
		return "thermal-throttling";
	case BF_CLASS_FTL_STARVATION:
		return "ftl-starvation";
	case BF_CLASS_UNCLEAR:
		return "unclear";
	case BF_CLASS_COUNT:
		break;
	}
	return "unknown";
}

/* ---- small statistics helpers ---------------------------------------- */

static void swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* k-th smallest of v[0..n), reorders v; O(n) expected. */
double bf_select(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swapd(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Sample standard deviation (n - 1) of v[0..n); the mean in *@mean. */
double bf_mean_sd(const double *v, size_t n, double *mean)
{
	double m = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += v[i];
	m = n ? m / n : 0;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	if (mean)
		*mean = m;
	return n > 1 ? sqrt(ss / (n - 1)) : 0;
}

/* Median of v[0..n), reorders v. */
double bf_median(double *v, size_t n)
{
	double a, b;

	if (!n)
		return NAN;
	a = bf_select(v, n, n / 2);
	if (n & 1)
		return a;
	b = bf_select(v, n / 2, n / 2 - 1);
	return (a + b) / 2;
}

static double med3(double a, double b, double c)
{
	if (a > b)
		swapd(&a, &b);
	if (b > c)
		swapd(&b, &c);
	return a > b ? a : b;
}

/* ---- working state ---------------------------------------------------- */

struct bf_seg {
	size_t first, last;	/* inclusive */
	double lvl;		/* median of raw y (log MB/s) */
	double dur;		/* seconds */
	double bytes;
	unsigned int nexc;	/* absorbed bursts/dips */
	double exc_dur;		/* seconds spent in them */
};

struct bf_work {
	const struct bf_sample *s;
	size_t n;
	double *y;		/* log rate */
	double *f;		/* median-filtered y */
	double *p1, *p2;	/* prefix sums of f and f^2, n + 1 */
	double *tmp;		/* scratch, n */
	double sigma;		/* noise of y (log units) */
	struct bf_seg *seg;
	size_t nseg, capseg;
	double b0;		/* bytes before sample 0 */
};

static double bytes_before(const struct bf_work *w, size_t i)
{
	return i ? w->s[i - 1].bytes : w->b0;
}

/*
 * Level of a segment: the median of its log rates; in a short segment,
 * whose median is noisy, the mean after dropping an edge sample that
 * straddles a step (more than 3 sigma off the others).
 */
static void seg_stats(struct bf_work *w, struct bf_seg *g)
{
	size_t len = g->last - g->first + 1, a = g->first, b = g->last, i;
	double m;

	if (len <= BF_LVL_SAMPLES) {
		memcpy(w->tmp, w->y + g->first, len * sizeof(double));
		g->lvl = bf_median(w->tmp, len);
	} else {
		/* a long plateau: the median of an even spread of samples
		 * keeps repeated merges O(1) each */
		for (i = 0; i < BF_LVL_SAMPLES; i++)
			w->tmp[i] = w->y[g->first + i * len / BF_LVL_SAMPLES];
		g->lvl = bf_median(w->tmp, BF_LVL_SAMPLES);
	}
	if (len >= 3 && len < 8) {
		if (fabs(w->y[a] - g->lvl) > 3 * w->sigma)
			a++;
		if (fabs(w->y[b] - g->lvl) > 3 * w->sigma)
			b--;
		for (m = 0, i = a; i <= b; i++)
			m += w->y[i];
		g->lvl = m / (b - a + 1);
	}
	g->dur = w->s[g->last].t - (w->s[g->first].t - w->s[g->first].dt);
	g->bytes = w->s[g->last].bytes - bytes_before(w, g->first);
}

static size_t seg_n(const struct bf_seg *g)
{
	return g->last - g->first + 1;
}

/* Are two plateaus the same level, within 10 % or within the noise? */
static bool seg_similar(const struct bf_work *w, const struct bf_seg *a,
			const struct bf_seg *b)
{
	double thr = BF_Z * w->sigma * sqrt(1.0 / seg_n(a) + 1.0 / seg_n(b));

	if (thr < BF_REL_STEP)
		thr = BF_REL_STEP;
	return fabs(a->lvl - b->lvl) < thr;
}

/* ---- change points ---------------------------------------------------- */

static double cost(const struct bf_work *w, size_t a, size_t b)
{
	double s1 = w->p1[b] - w->p1[a], s2 = w->p2[b] - w->p2[a];

	return s2 - s1 * s1 / (double)(b - a);
}

static int push_seg(struct bf_work *w, size_t first, size_t last)
{
	struct bf_seg *g = bf_grow(w->seg, &w->capseg, w->nseg + 1,
				   sizeof(*g), 16);

	if (!g)
		return -ENOMEM;
	w->seg = g;
	memset(&w->seg[w->nseg], 0, sizeof(w->seg[0]));
	w->seg[w->nseg].first = first;
	w->seg[w->nseg].last = last;
	w->nseg++;
	return 0;
}

/*
 * Binary segmentation of f[0..n) into segments of at least BF_MINSEG
 * samples; a split is kept when it lowers the L2 cost by more than @pen.
 * Intervals are processed left to right with an explicit stack, so the
 * segments come out in order. O(n log n) for balanced splits, and never
 * more than BF_WORK * n.
 */
static int binseg(struct bf_work *w, double pen)
{
	struct range { size_t a, b; } *st, *n2;
	size_t sp = 0, cap = 0;
	double work = 0;
	int ret = 0;

	st = bf_grow(NULL, &cap, 1, sizeof(*st), 64);
	if (!st)
		return -ENOMEM;
	st[sp++] = (struct range){ 0, w->n };
	while (sp) {
		struct range r = st[--sp];
		double whole, best = 0;
		size_t k, bestk = 0;

		/*
		 * Balanced splits cost n per level of recursion; a curve that
		 * switches every few samples peels off one short segment per
		 * scan of a long interval. Past BF_WORK * n samples scanned it
		 * is erratic beyond doubt and the rest is left unsplit.
		 */
		if (r.b - r.a >= 2 * BF_MINSEG && work < BF_WORK * w->n) {
			work += r.b - r.a;
			whole = cost(w, r.a, r.b);
			for (k = r.a + BF_MINSEG; k + BF_MINSEG <= r.b; k++) {
				double g = whole - cost(w, r.a, k) -
					   cost(w, k, r.b);

				if (g > best) {
					best = g;
					bestk = k;
				}
			}
		}
		if (best <= pen) {
			ret = push_seg(w, r.a, r.b - 1);
			if (ret)
				break;
			continue;
		}
		n2 = bf_grow(st, &cap, sp + 2, sizeof(*st), 64);
		if (!n2) {
			ret = -ENOMEM;
			break;
		}
		st = n2;
		/* right half below left half: left is popped first */
		st[sp++] = (struct range){ bestk, r.b };
		st[sp++] = (struct range){ r.a, bestk };
	}
	free(st);
	return ret;
}

/* ---- plateau clean-up ------------------------------------------------- */

/* Merge segments [i, j] (inclusive) into segment i. */
static void merge(struct bf_work *w, size_t i, size_t j, unsigned int exc)
{
	unsigned int nexc = exc;
	size_t k;

	for (k = i; k <= j; k++) {
		nexc += w->seg[k].nexc;
		if (k != i)
			w->seg[i].exc_dur += w->seg[k].exc_dur;
	}
	if (exc && j == i + 2)
		w->seg[i].exc_dur += w->seg[i + 1].dur;
	w->seg[i].last = w->seg[j].last;
	w->seg[i].nexc = nexc;
	seg_stats(w, &w->seg[i]);
	memmove(&w->seg[i + 1], &w->seg[j + 1],
		(w->nseg - j - 1) * sizeof(w->seg[0]));
	w->nseg -= j - i;
}

/* Append @src (the segment right after @dst) to @dst; stats not updated. */
static void join(struct bf_seg *dst, const struct bf_seg *src, bool exc)
{
	dst->last = src->last;
	dst->nexc += src->nexc + exc;
	dst->exc_dur += src->exc_dur + (exc ? src->dur : 0);
}

/* Bytes a burst wrote beyond what the plateau at @lvl would have. */
static double excess_bytes(const struct bf_seg *b, double lvl)
{
	return b->bytes - exp(lvl) * 1e6 * b->dur;
}

/* Is @b a short burst or dip between two plateaus @a, @c of one level? */
static bool is_excursion(const struct bf_work *w, const struct bf_seg *a,
			 const struct bf_seg *b, const struct bf_seg *c,
			 double total)
{
	bool up;

	if (!seg_similar(w, a, c))
		return false;
	up = b->lvl > a->lvl && b->lvl > c->lvl;
	if (!up && !(b->lvl < a->lvl && b->lvl < c->lvl))
		return false;
	if (b->dur > 0.5 * fmax(a->dur, c->dur) || b->dur > 0.1 * total)
		return false;
	return !up || excess_bytes(b, (a->lvl + c->lvl) / 2) < BF_BURST_BYTES;
}

/*
 * Is @b a short transition between @a and @c, at a level between theirs?
 * Returns -1 if it belongs with @a (nearer in level), 1 with @c, 0 if not.
 */
static int transition_side(const struct bf_seg *a, const struct bf_seg *b,
			   const struct bf_seg *c, double total)
{
	double lo = fmin(a->lvl, c->lvl), hi = fmax(a->lvl, c->lvl);

	if (b->lvl <= lo || b->lvl >= hi)
		return 0;
	if (seg_n(b) > 2 && b->dur >= 0.25 * fmin(a->dur, c->dur) &&
	    b->dur >= 0.03 * total)
		return 0;
	return fabs(b->lvl - a->lvl) <= fabs(b->lvl - c->lvl) ? -1 : 1;
}

/*
 * The passes below rebuild the segment list in place as a stack, so each
 * is O(k) in the number of segments whatever the number of merges.
 */
static bool pass_similar(struct bf_work *w)
{
	struct bf_seg *g = w->seg;
	size_t i, o = 0;
	bool changed = false;

	for (i = 0; i < w->nseg; i++) {
		if (o && seg_similar(w, &g[o - 1], &g[i])) {
			join(&g[o - 1], &g[i], false);
			seg_stats(w, &g[o - 1]);
			changed = true;
		} else {
			g[o++] = g[i];
		}
	}
	w->nseg = o;
	return changed;
}

static bool pass_excursions(struct bf_work *w, double total)
{
	struct bf_seg *g = w->seg;
	size_t i, o = 0;
	bool changed = false;

	for (i = 0; i < w->nseg; i++) {
		g[o++] = g[i];
		while (o >= 3 &&
		       is_excursion(w, &g[o - 3], &g[o - 2], &g[o - 1], total)) {
			join(&g[o - 3], &g[o - 2], true);
			join(&g[o - 3], &g[o - 1], false);
			seg_stats(w, &g[o - 3]);
			o -= 2;
			changed = true;
		}
	}
	w->nseg = o;
	return changed;
}

static bool pass_transitions(struct bf_work *w, double total)
{
	struct bf_seg *g = w->seg;
	size_t i, o = 0;
	bool changed = false;
	int side;

	for (i = 0; i < w->nseg; i++) {
		g[o++] = g[i];
		if (o < 3)
			continue;
		side = transition_side(&g[o - 3], &g[o - 2], &g[o - 1], total);
		if (side < 0) {
			join(&g[o - 3], &g[o - 2], false);
			seg_stats(w, &g[o - 3]);
			g[o - 2] = g[o - 1];
			o--;
			changed = true;
		} else if (side > 0) {
			join(&g[o - 2], &g[o - 1], false);
			seg_stats(w, &g[o - 2]);
			o--;
			changed = true;
		}
	}
	w->nseg = o;
	return changed;
}

/*
 * A warm-up below the first plateau: short, or only a little slower and
 * not long; a 2-sample start less than 50 % above the rest; a tail of short segments at the end (a burst or a stall the
 * run ended in) that wrote less than a burst's worth of extra bytes.
 */
static bool try_ends(struct bf_work *w, double total)
{
	struct bf_seg *a, *b;
	double tail = 0, extra = 0;
	size_t j;

	if (w->nseg < 2)
		return false;
	a = &w->seg[0];
	b = &w->seg[1];
	if (a->lvl < b->lvl &&
	    ((a->dur <= 0.05 * total && a->dur <= 0.5 * b->dur) ||
	     (b->lvl - a->lvl < BF_BACKWARDS && a->dur <= 0.2 * total))) {
		merge(w, 0, 1, 0);
		return true;
	}
	/*
	 * Two fast samples at the start, less than 50 % above the rest: on
	 * a 10-sample record the noise estimate is too rough to call that a
	 * cache (a real one is a factor of several, or several samples long).
	 */
	if (a->lvl > b->lvl && seg_n(a) <= 2 && a->lvl - b->lvl < BF_HOT_START) {
		merge(w, 0, 1, 0);
		return true;
	}
	/* the tail is seg[j..]; seg[j - 1] is the plateau it would join */
	for (j = w->nseg - 1; j > 0; j--) {
		a = &w->seg[j - 1];
		tail += w->seg[j].dur;
		extra += w->seg[j].bytes;
		if (tail > 0.1 * total)
			return false;
		if (tail <= 0.5 * a->dur &&
		    extra - exp(a->lvl) * 1e6 * tail < BF_BURST_BYTES) {
			merge(w, j - 1, w->nseg - 1, 1);
			return true;
		}
	}
	return false;
}

static void cleanup(struct bf_work *w, double total)
{
	bool changed = true;

	while (changed) {
		changed = pass_similar(w);
		changed |= pass_excursions(w, total);
		if (changed)
			continue;
		changed = pass_transitions(w, total) || try_ends(w, total);
	}
}

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
static void two_means(struct bf_work *w, double *lo, double *hi,
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
static void short_first_level(struct bf_work *w)
{
	struct bf_seg *g = &w->seg[0];
	size_t i, last = g->last;
	double top = -INFINITY, m = 0;

	if (seg_n(g) > 4)
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

static double seg_sd_mbps(const struct bf_work *w, const struct bf_seg *g)
{
	size_t i, len = seg_n(g);

	for (i = 0; i < len; i++)
		w->tmp[i] = w->s[g->first + i].mbps;
	return bf_mean_sd(w->tmp, len, NULL);
}

/*
 * Where inside the samples around the boundary did the rate step from
 * @hi to @lo (MB/s)? The sample that straddles the step carries a mix of
 * both rates; its mix gives the sub-sample step time.
 */
static void locate_step(const struct bf_work *w, size_t b, double hi,
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
	*bytes = bytes_before(w, j) + hi * 1e6 * f * s[j].dt;
}

/*
 * The number formatters of the whole CLI (units.c's bf_fmt_rate,
 * bf_fmt_bytes and bf_fmt_duration call these): three significant digits,
 * thousands separated by commas from 1,000 MB/s.
 */
void bf_fmt_mbps(char *b, size_t len, double mbps)
{
	double v = fabs(mbps);

	if (v >= 999.5) {
		long long x = llround(mbps);

		snprintf(b, len, "%lld,%03lld", x / 1000, llabs(x % 1000));
	} else if (v >= 99.95) {
		snprintf(b, len, "%.0f", mbps);
	} else if (v >= 9.995) {
		snprintf(b, len, "%.1f", mbps);
	} else {
		snprintf(b, len, "%.2f", mbps);
	}
}

void bf_fmt_si_bytes(char *b, size_t len, double bytes)
{
	static const char *const u[] = { "kB", "MB", "GB", "TB", "PB", "EB" };
	double v = bytes;
	int i = -1;

	if (fabs(v) < 999.5) {
		snprintf(b, len, "%.0f B", v);
		return;
	}
	while (fabs(v) >= 999.5 && i < 5) {
		v /= 1000;
		i++;
	}
	snprintf(b, len, fabs(v) < 9.995 ? "%.2f %s" : fabs(v) < 99.95 ?
		 "%.1f %s" : "%.0f %s", v, u[i]);
}

void bf_fmt_secs(char *b, size_t len, double s)
{
	unsigned long long t;

	if (!isfinite(s) && s > 0)
		snprintf(b, len, "never");
	else if (!(s > 0))
		snprintf(b, len, "0 s");
	else if (s < 1e-3)
		snprintf(b, len, "%.0f us", s * 1e6);
	else if (s < 1)
		snprintf(b, len, "%.0f ms", s * 1e3);
	else if (s < 59.5)
		snprintf(b, len, s < 9.95 ? "%.1f s" : "%.0f s", s);
	else if (s < 3599.5) {
		t = (unsigned long long)llround(s);
		snprintf(b, len, "%llu min %02llu s", t / 60, t % 60);
	} else {
		t = (unsigned long long)llround(s / 60);
		snprintf(b, len, "%llu h %02llu min", t / 60, t % 60);
	}
}

static void explain(struct bf_report *r, const char *why)
{
	char pk[32], fl[32], mn[32], cb[32], tt[32], tb[32];
	char *e = r->explain;
	size_t len = sizeof(r->explain);

	bf_fmt_mbps(pk, sizeof(pk), r->peak_mbps);
	bf_fmt_mbps(fl, sizeof(fl), r->floor_mbps);
	bf_fmt_mbps(mn, sizeof(mn), r->mean_mbps);
	bf_fmt_si_bytes(tb, sizeof(tb), r->total_bytes);
	bf_fmt_secs(tt, sizeof(tt), r->total_s);

	switch (r->class) {
	case BF_CLASS_STEADY:
		snprintf(e, len,
			 "%s: the drive sustains about %s MB/s (mean %s MB/s over %s in %s).",
			 why, fl, mn, tb, tt);
		break;
	case BF_CLASS_CACHE_EXHAUSTION:
		bf_fmt_si_bytes(cb, sizeof(cb), r->cache_bytes);
		snprintf(e, len,
			 "%s, at %.*f s after %s, from %s to %s MB/s: consistent with an SLC cache of about %s running out. Past it the drive writes at %s MB/s (mean %s MB/s over %s in %s).",
			 why, r->step_time_s < 100 ? 1 : 0, r->step_time_s, cb,
			 pk, fl, cb, fl, mn, tb, tt);
		break;
	case BF_CLASS_THERMAL_THROTTLING:
		snprintf(e, len,
			 "%s: consistent with a controller throttling for heat (a cache that ran out does not refill while writing; a temperature record would decide). Peak %s, floor %s, mean %s MB/s over %s in %s.",
			 why, pk, fl, mn, tb, tt);
		break;
	case BF_CLASS_FTL_STARVATION:
		snprintf(e, len,
			 "%s: consistent with garbage collection in an FTL with almost no free blocks, typically a drive that never gets TRIM; a full-device discard usually restores a steady rate. Between about %s and %s MB/s, mean %s MB/s over %s in %s.",
			 why, fl, pk, mn, tb, tt);
		break;
	case BF_CLASS_UNCLEAR:
	case BF_CLASS_COUNT:
		snprintf(e, len,
			 "%s. Peak %s, mean %s MB/s over %s in %s: not enough to name a cause.",
			 why, pk, mn, tb, tt);
		break;
	}
}

static int fill_report(struct bf_work *w, struct bf_report *r)
{
	size_t g;

	r->nseg = w->nseg;
	r->seg = calloc(w->nseg, sizeof(*r->seg));
	if (!r->seg)
		return -ENOMEM;
	for (g = 0; g < w->nseg; g++) {
		struct bf_segment *o = &r->seg[g];
		const struct bf_seg *i = &w->seg[g];

		o->first = i->first;
		o->last = i->last;
		o->start_s = w->s[i->first].t - w->s[i->first].dt;
		o->end_s = w->s[i->last].t;
		o->bytes = i->bytes;
		o->mean_mbps = i->dur > 0 ? i->bytes / i->dur / 1e6 : 0;
		o->level_mbps = exp(i->lvl);
		o->sd_mbps = seg_sd_mbps(w, i);
		o->nsamples = seg_n(i);
		o->nexcursions = i->nexc;
	}
	return 0;
}

/* ---- features ------------------------------------------------------------ */

#define BF_CLIFF_BIG	0.9163	/* ln(2.5): a first step this deep is a cache */
#define BF_GC_DEPTH	1.3863	/* ln(4): switching this deep is GC, not heat */
#define BF_NEVER_HEAT	1.6094	/* ln(5): one step this deep is never heat */
#define BF_MIN_ACTIVE	10	/* fewer samples cannot tell a step from noise */
#define BF_MIN_SIDE	2	/* samples needed on each side of a step */
#define BF_STALL_REL	0.02	/* a stall: under 2 % of the upper quartile */
#define BF_STALL_MIN_S	1.0	/* ... for at least a second */
#define BF_LONG_SEG	0.05	/* a plateau that counts: 5 % of the run */
#define BF_BURST_SHARE	0.25	/* bursts near the peak: under 25 % of the floor */

struct bf_feat {
	double total;		/* active seconds (stalls removed) */
	double spread;		/* pooled in-plateau spread, log */
	bool erratic;		/* no stable plateau */
	bool bimodal;		/* two distinct levels, not one wide one */
	double lo2, hi2;	/* two-means levels (log) */
	double low_share;	/* share of samples in the lower level */
	size_t kmax, kmin;
	bool backwards;
	double line_sd, seg_sd;	/* residual sd: straight line vs plateaus */
	double slope;		/* log rate per second of the line */
};

/* Least-squares line of y over time; residual sd and slope. */
static void line_fit(const struct bf_work *w, struct bf_feat *f)
{
	double st = 0, sy = 0, stt = 0, sty = 0, rss = 0, a, b, den;
	size_t i, n = w->n, g;

	for (i = 0; i < n; i++) {
		double t = w->s[i].t;

		st += t;
		sy += w->y[i];
		stt += t * t;
		sty += t * w->y[i];
	}
	den = n * stt - st * st;
	b = den > 0 ? (n * sty - st * sy) / den : 0;
	a = (sy - b * st) / n;
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
static bool bimodal(struct bf_work *w, double lo, double hi)
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

static void features(struct bf_work *w, struct bf_feat *f)
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
	two_means(w, &f->lo2, &f->hi2, &nlo, &nhi);
	f->bimodal = bimodal(w, f->lo2, f->hi2);
	f->low_share = nlo + nhi ? (double)nlo / (nlo + nhi) : 0;
	f->backwards = !f->erratic && f->kmax > 0 &&
		       w->seg[f->kmax].lvl - w->seg[0].lvl >= BF_BACKWARDS &&
		       !seg_similar(w, &w->seg[0], &w->seg[f->kmax]);
	line_fit(w, f);
}

/* recovered: some plateau rises clearly above an earlier drop */
static bool recovered(const struct bf_work *w)
{
	size_t g, h;

	for (g = 1; g < w->nseg; g++) {
		if (w->seg[g].lvl >= w->seg[0].lvl - BF_REL_STEP)
			continue;
		for (h = g + 1; h < w->nseg; h++)
			if (w->seg[h].lvl > w->seg[g].lvl + BF_REL_STEP &&
			    !seg_similar(w, &w->seg[g], &w->seg[h]))
				return true;
	}
	return false;
}

static bool long_seg(const struct bf_work *w, const struct bf_seg *g,
		     double total)
{
	return g->dur >= BF_LONG_SEG * total && seg_n(g) >= 3;
}

/*
 * A cliff: the first plateau is the top, and the rest of the curve stays
 * below it without climbing back: no long plateau after the first step
 * recovers half of the (log) drop. The rest may drift, jitter, step again
 * or burst; it is the floor. Returns the (log) depth of the first step, or
 * 0 if the curve does not start with a cliff.
 */
static double cliff(const struct bf_work *w, double total)
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
static bool staircase(const struct bf_work *w, double drop, double total)
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
static bool linear(const struct bf_work *w, const struct bf_feat *f)
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
static double deepest_step(const struct bf_work *w)
{
	double d = 0;
	size_t g;

	for (g = 1; g < w->nseg; g++)
		d = fmax(d, w->seg[g - 1].lvl - w->seg[g].lvl);
	return d;
}

static void fill_steps(const struct bf_work *w, struct bf_report *r)
{
	size_t g;

	r->nsteps = 0;
	if (r->erratic)
		return;
	for (g = 1; g < w->nseg && r->nsteps < BF_MAX_STEPS; g++) {
		struct bf_step *st = &r->steps[r->nsteps++];
		double hi = exp(w->seg[g - 1].lvl), lo = exp(w->seg[g].lvl);

		if (hi > lo) {
			locate_step(w, w->seg[g].first, hi, lo, &st->time_s,
				    &st->bytes);
		} else {
			st->time_s = w->s[w->seg[g].first].t -
				     w->s[w->seg[g].first].dt;
			st->bytes = bytes_before(w, w->seg[g].first);
		}
		st->bytes -= w->b0;
		st->ratio = hi / lo;
	}
}

/* How the rate behaves after the first step (or over the whole curve). */
static void floor_behaviour(struct bf_work *w, const struct bf_feat *f,
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

static double clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* Confidence from the samples behind the evidence and its margin. */
static double confidence(size_t nmin, double margin)
{
	return round(100 * (0.5 + 0.5 * clamp01(nmin / 20.0) *
				  clamp01(margin))) / 100;
}

/* ---- the verdict ----------------------------------------------------------- */

struct bf_verdict {
	enum bf_class class;
	double conf;
	bool step;		/* report the first step as the cache */
	bool osc;		/* peak/floor are the oscillation's levels */
};

static void __attribute__((format(printf, 2, 3)))
set_reason(struct bf_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/*
 * Cycles between two levels: crossings of the band around the middle of
 * @lo and @hi (a quarter of the distance either side) by the 3-point
 * median of the log rate (one noisy sample is not a crossing), the number of low
 * phases and the coefficient of variation of their lengths (s). A throttle
 * cycle repeats with its thermal time constant (CV ~0.1); GC dips after
 * random stretches (CV ~1).
 */
static void cycles(const struct bf_work *w, double lo, double hi,
		   unsigned int *nlow, double *cv)
{
	double c = (lo + hi) / 2, d = (hi - lo) / 4, t0 = 0, m = 0, v = 0;
	double len[64];
	int state = 0;
	size_t i, k = 0;

	*nlow = 0;
	for (i = 0; i < w->n; i++) {
		double t = w->s[i].t, y = w->f[i];

		if (state >= 0 && y < c - d) {
			state = -1;
			t0 = t;
		} else if (state < 0 && y > c + d) {
			state = 1;
			if (k < 64)
				len[k++] = t - t0;
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
	double depth = f->hi2 - f->lo2, cv;
	unsigned int nlow;

	v->osc = true;
	if (!f->bimodal) {
		v->class = BF_CLASS_STEADY;
		v->osc = false;
		v->conf = confidence(w->n, (BF_ERRATIC_SD * 2 - f->spread) /
					   BF_ERRATIC_SD);
		set_reason(r, "wide noise around one level (spread %.0f %%), no two distinct levels",
			   100 * (exp(f->spread) - 1));
		return;
	}
	if (depth >= BF_GC_DEPTH) {
		v->class = BF_CLASS_FTL_STARVATION;
		v->conf = confidence(w->n, (depth - BF_GC_DEPTH) / 0.4);
		set_reason(r, "switches between two levels %.1fx apart (%.0f %% of the time in the upper one): deeper than heat",
			   exp(depth), 100 * (isnan(r->floor_duty) ? 0.5 : r->floor_duty));
		return;
	}
	cycles(w, f->lo2, f->hi2, &nlow, &cv);
	if (r->floor_kind != BF_FLOOR_PERIODIC && nlow >= 3 && cv > 0.5) {
		v->class = BF_CLASS_FTL_STARVATION;
		v->conf = confidence(nlow, (cv - 0.5) / 0.3);
		set_reason(r, "switches irregularly between two levels %.1fx apart (%u slow stretches, lengths varying by %.0f %%): not a thermal cycle",
			   exp(depth), nlow, 100 * cv);
		return;
	}
	v->class = BF_CLASS_THERMAL_THROTTLING;
	r->recovered = true;
	v->conf = confidence(w->n, (BF_GC_DEPTH - depth) / 0.4) *
		  (r->floor_kind == BF_FLOOR_PERIODIC ? 1 : 0.8);
	set_reason(r, "moderate swings (%.1fx) that climb back to the peak",
		   exp(depth));
	if (r->floor_kind == BF_FLOOR_PERIODIC)
		snprintf(r->reason + strlen(r->reason),
			 sizeof(r->reason) - strlen(r->reason),
			 ", regular every %.1f s", r->floor_period_s);
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
	two_means(w, &lo, &hi, &nlo, &nhi);
	two = bimodal(w, lo, hi);
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
	short_first_level(w);
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

	nmin = seg_n(&w->seg[0]) < w->n - seg_n(&w->seg[0]) ?
	       seg_n(&w->seg[0]) : w->n - seg_n(&w->seg[0]);
	r->recovered = false;
	if (seg_n(&w->seg[0]) < BF_MIN_SIDE || w->n - w->seg[1].first < 3) {
		v->class = BF_CLASS_UNCLEAR;
		set_reason(r, "a step after %.0f samples: too few on one side to tell it from noise",
			   (double)seg_n(&w->seg[0]));
		return;
	}
	if (staircase(w, drop, f->total) &&
	    !linear(w, f)) {
		v->class = BF_CLASS_THERMAL_THROTTLING;
		v->conf = confidence(nmin, (BF_CLIFF_BIG - drop) / 0.3);
		set_reason(r, "a staircase of moderate steps (first %.2fx) over time, no single cliff",
			   exp(drop));
		return;
	}
	if (linear(w, f) && drop < BF_CLIFF_BIG &&
	    w->nseg > 2) {
		v->class = BF_CLASS_STEADY;
		v->conf = confidence(w->n, 0.5);
		set_reason(r, "a straight decline (%.0f %% over the run), no step: a trend, like a hard disk's zones",
			   100 * (1 - exp(f->slope * f->total)));
		return;
	}
	if (hot_start(w, f, r)) {
		v->class = BF_CLASS_THERMAL_THROTTLING;
		v->osc = true;
		v->conf = confidence(nmin, 0.7);
		return;
	}
	v->step = true;
	v->conf = confidence(nmin, (drop - BF_REL_STEP) /
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

static void decide(struct bf_work *w, struct bf_feat *f,
		   struct bf_report *r, struct bf_verdict *v)
{
	double drop = cliff(w, f->total), deep = deepest_step(w);

	v->class = BF_CLASS_CACHE_EXHAUSTION;
	v->step = v->osc = false;
	r->recovered = recovered(w);
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
		v->conf = confidence(seg_n(&w->seg[0]), 1);
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
	if (w->nseg == 1 || linear(w, f)) {
		v->class = BF_CLASS_STEADY;
		v->conf = confidence(w->n, 1);
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
		v->conf = confidence(w->n / w->nseg, 1);
		set_reason(r, "moderate steps down (deepest %.2fx), then the rate climbs back while writing",
			   exp(deep));
		return;
	}
	v->class = BF_CLASS_THERMAL_THROTTLING;
	v->conf = confidence(w->n / w->nseg, 0.5);
	set_reason(r, "%.0f plateaus stepping down moderately (deepest %.2fx)",
		   (double)w->nseg, exp(deep));
}

/* Bytes over time from sample @i on: an oscillating floor's long-run rate. */
static double after_mean(const struct bf_work *w, size_t i)
{
	double b = w->s[w->n - 1].bytes - bytes_before(w, i), t = 0;

	for (; i < w->n; i++)
		t += w->s[i].dt;
	return t > 0 ? b / t / 1e6 : 0;
}

/*
 * Relative change of a straight line fitted to the median-filtered log
 * rate from sample @from on (the sample straddling the step, which mixes
 * both rates, left out).
 */
static double trend_from(const struct bf_work *w, size_t from)
{
	double st = 0, sy = 0, stt = 0, sty = 0, den, b, t0, t1;
	size_t i, n;

	from++;
	if (from + 3 > w->n)
		return 0;
	n = w->n - from;
	for (i = from; i < w->n; i++) {
		double t = w->s[i].t;

		st += t;
		sy += w->f[i];
		stt += t * t;
		sty += t * w->f[i];
	}
	den = n * stt - st * st;
	b = den > 0 ? (n * sty - st * sy) / den : 0;
	t0 = w->s[from].t - w->s[from].dt;
	t1 = w->s[w->n - 1].t;
	return expm1(b * (t1 - t0));
}

static void stall_words(const struct bf_report *r, char *b, size_t len)
{
	if (!r->stalls.count) {
		*b = 0;
		return;
	}
	snprintf(b, len, " The rate stalled at ~0 %u time%s (longest %.1f s, %.1f s in all), left out of the plateaus.",
		 r->stalls.count, r->stalls.count > 1 ? "s" : "",
		 r->stalls.longest_s, r->stalls.total_s);
}

/* Robust sample-to-sample noise of y: MAD of its first differences. */
static double noise(struct bf_work *w)
{
	size_t i, n = w->n;
	double md, sigma;

	for (i = 1; i < n; i++)
		w->tmp[i - 1] = w->y[i] - w->y[i - 1];
	md = bf_median(w->tmp, n - 1);
	for (i = 1; i < n; i++)
		w->tmp[i - 1] = fabs(w->y[i] - w->y[i - 1] - md);
	sigma = 1.4826 * bf_median(w->tmp, n - 1) / sqrt(2.0);
	return sigma < 0.005 ? 0.005 : sigma;
}

/* Change points on the filtered series; a copy of the raw segments. */
static int segment(struct bf_work *w, struct bf_seg **raw)
{
	size_t i, g, n = w->n;
	int ret;

	w->p1[0] = w->p2[0] = 0;
	for (i = 0; i < n; i++) {
		w->p1[i + 1] = w->p1[i] + w->f[i];
		w->p2[i + 1] = w->p2[i] + w->f[i] * w->f[i];
	}
	ret = binseg(w, BF_PEN * w->sigma * w->sigma * log((double)n));
	if (ret)
		return ret;
	for (g = 0; g < w->nseg; g++)
		seg_stats(w, &w->seg[g]);
	*raw = malloc(w->nseg * sizeof(**raw));
	if (!*raw)
		return -ENOMEM;
	memcpy(*raw, w->seg, w->nseg * sizeof(**raw));
	return 0;
}

/*
 * The rate over a jittery plateau @g: its bytes over its time, leaving out
 * what is no jitter but an excursion of its own, 2x or more off the
 * plateau's level (a burst of a refreshed cache, a stall).
 */
static double jitter_mean(const struct bf_work *w, const struct bf_seg *g)
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

/* Peak, floor, cache step and cycle, as the verdict reads the curve. */
static void levels(struct bf_work *w, const struct bf_feat *f,
		   const struct bf_verdict *v, struct bf_report *r)
{
	double lo = w->seg[f->kmin].lvl, hi = w->seg[f->kmax].lvl;

	r->has_step = false;
	r->step_time_s = NAN;
	r->cache_bytes = NAN;
	if (v->osc) {
		lo = f->lo2;
		hi = f->hi2;
		if (r->floor_kind == BF_FLOOR_PERIODIC)
			r->cycle_s = r->floor_period_s;
	}
	if (v->step) {
		r->has_step = true;
		short_first_level(w);
		hi = w->seg[0].lvl;
		locate_step(w, w->seg[1].first, exp(w->seg[0].lvl),
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
		r->floor_mbps = fmin(after_mean(w, w->seg[1].first),
				     r->mean_mbps);
	/*
	 * A floor that jitters and is where the drive settles: a long job
	 * gets its bytes over its time. Its level (a median) says less
	 * where the samples are skewed, as a rate limiter's bursts beating
	 * with the interval make them (21 against 25 MB/s in make demo).
	 */
	else if (v->step && r->floor_kind == BF_FLOOR_ERRATIC &&
		 f->kmin + 1 == w->nseg)
		r->floor_mbps = fmin(jitter_mean(w, &w->seg[f->kmin]),
				     r->mean_mbps);
}

/* The paragraph: the reason, capitalised, the cause, the stalls. */
static void words(struct bf_report *r)
{
	char why[256], st[200];

	stall_words(r, st, sizeof(st));
	snprintf(why, sizeof(why), "%s", r->reason);
	if (why[0])
		why[0] = toupper((unsigned char)why[0]);
	explain(r, why);
	if (strlen(r->explain) + strlen(st) < sizeof(r->explain))
		strcat(r->explain, st);
}

/* ---- temperature as evidence ------------------------------------------------ */

#define BF_TEMP_MIN_N	5	/* readings needed to say anything */
#define BF_TEMP_RISE	5.0	/* °C: a rise that can throttle a controller */
#define BF_TEMP_FLAT	3.0	/* °C: a range this small is flat */
#define BF_TEMP_CORR	0.5	/* |r| of log rate and °C that links them */
#define BF_TEMP_FELL	0.18	/* ln: the rate moved by 20 % or more */

static void add_reason(struct bf_report *r, const char *s)
{
	strncat(r->reason, s, sizeof(r->reason) - strlen(r->reason) - 1);
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
	char buf[96];
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
				  clamp01((c - BF_TEMP_CORR) / 0.4))) / 100;
		}
		snprintf(buf, sizeof(buf), "; the rate fell as the drive heated (r = %.2f)",
			 c);
		add_reason(r, buf);
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
		snprintf(buf, sizeof(buf), "; the temperature stayed within %.1f °C: not heat",
			 range);
		add_reason(r, buf);
		return;
	}
	snprintf(T->said, sizeof(T->said),
		 "the temperature went %.1f -> %.1f (max) -> %.1f °C, not in step with the rate (r = %.2f): no evidence",
		 T->start_c, T->max_c, T->end_c, isnan(T->corr) ? 0 : T->corr);
}

static int classify(struct bf_work *w, struct bf_report *r)
{
	struct bf_verdict v = { 0 };
	struct bf_feat f = { 0 };
	struct bf_seg *raw = NULL;
	size_t i;
	int ret;

	for (i = 0; i < w->n; i++)
		f.total += w->s[i].dt;
	w->sigma = r->noise_rel = noise(w);
	ret = segment(w, &raw);
	if (ret)
		return ret;
	r->nraw_segments = w->nseg;
	cleanup(w, f.total);
	features(w, &f);
	r->trend_rel = expm1(f.slope * f.total);
	floor_behaviour(w, &f, r);
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
		r->trend_rel = trend_from(w, w->seg[1].first);
	fill_steps(w, r);
	ret = fill_report(w, r);
	if (!ret)
		words(r);
	return ret;
}

/*
 * Stalls: runs of samples under BF_STALL_REL of the upper quartile lasting
 * BF_STALL_MIN_S or more. They are counted and left out of the analysis
 * (shorter dips stay: the median filter and the clean-up handle them).
 * Writes the kept samples to @out (which may alias nothing in @s) and
 * returns how many.
 */
static size_t drop_stalls(const struct bf_sample *s, size_t n, double *tmp,
			  struct bf_sample *out, struct bf_stalls *st)
{
	double thr, dur;
	size_t i, j, m = 0;

	for (i = 0; i < n; i++)
		tmp[i] = s[i].mbps;
	thr = BF_STALL_REL * bf_select(tmp, n, n - 1 - n / 4);
	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i = j) {
		for (j = i, dur = 0; j < n && s[j].mbps <= thr; j++)
			dur += s[j].dt;
		if (j > i && dur >= BF_STALL_MIN_S) {
			st->count++;
			st->total_s += dur;
			st->longest_s = fmax(st->longest_s, dur);
			continue;
		}
		if (j == i)
			j++;
		for (; i < j; i++)
			if (out)
				out[m++] = s[i];
			else
				m++;
	}
	return m;
}

/* Too little to analyse: one segment over everything, class unclear. */
static int unclear_report(const struct bf_sample *s, size_t n,
			  struct bf_report *r)
{
	struct bf_segment *g;
	double hi = 0;
	size_t i;

	r->seg = calloc(1, sizeof(*r->seg));
	if (!r->seg)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		hi = fmax(hi, s[i].mbps);
	r->class = BF_CLASS_UNCLEAR;
	r->nseg = 1;
	r->has_step = false;
	r->step_time_s = r->cache_bytes = NAN;
	r->peak_mbps = hi;
	r->floor_mbps = r->mean_mbps;
	r->floor_duty = NAN;
	g = r->seg;
	g->first = 0;
	g->last = n - 1;
	g->start_s = s[0].t - s[0].dt;
	g->end_s = s[n - 1].t;
	g->bytes = r->total_bytes;
	g->mean_mbps = g->level_mbps = r->mean_mbps;
	g->nsamples = n;
	r->reason[0] = toupper((unsigned char)r->reason[0]);
	explain(r, r->reason);
	r->reason[0] = tolower((unsigned char)r->reason[0]);
	return 0;
}

int bf_classify(const struct bf_sample *s, size_t n, struct bf_report *r)
{
	struct bf_work w = { .s = s, .n = n };
	struct bf_sample *act = NULL;
	double clamp, total = 0;
	size_t i, m, nall = n;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (n < 3)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(s[i].t) || !isfinite(s[i].mbps) ||
		    !isfinite(s[i].bytes) || !(s[i].dt > 0) || s[i].mbps < 0)
			return -EINVAL;
	for (i = 0; i < n; i++)
		total += s[i].dt;

	w.tmp = malloc((n + 1) * sizeof(double));
	if (!w.tmp)
		return -ENOMEM;
	w.b0 = s[0].bytes - s[0].mbps * 1e6 * s[0].dt;
	if (w.b0 < 0 || w.b0 < 1e-6 * s[0].bytes)
		w.b0 = 0;
	r->total_s = total;
	r->total_bytes = s[n - 1].bytes - w.b0;
	r->mean_mbps = total > 0 ? r->total_bytes / total / 1e6 : 0;

	m = drop_stalls(s, n, w.tmp, NULL, &r->stalls);
	if (m < 3 || r->stalls.total_s > 0.5 * total) {
		snprintf(r->reason, sizeof(r->reason),
			 "the device stalled for %.0f of %.0f s: too little transfer to judge",
			 r->stalls.total_s, total);
		ret = unclear_report(s, n, r);
		goto out;
	}
	if (m < n) {
		act = malloc(m * sizeof(*act));
		if (!act)
			goto out;
		drop_stalls(s, n, w.tmp, act, &r->stalls);
		w.s = act;
		w.n = n = m;
	}

	w.y = malloc(n * sizeof(double));
	w.f = malloc(n * sizeof(double));
	w.p1 = malloc((n + 1) * sizeof(double));
	w.p2 = malloc((n + 1) * sizeof(double));
	if (!w.y || !w.f || !w.p1 || !w.p2)
		goto out;

	/* log domain; a slow interval is clamped to 1/1000 of the median */
	for (i = 0; i < n; i++)
		w.tmp[i] = w.s[i].mbps;
	clamp = bf_median(w.tmp, n) * 1e-3;
	if (!(clamp > 0))
		clamp = 1e-6;
	for (i = 0; i < n; i++)
		w.y[i] = log(w.s[i].mbps > clamp ? w.s[i].mbps : clamp);

	w.f[0] = med3(w.y[0], w.y[1], w.y[2]);
	for (i = 1; i + 1 < n; i++)
		w.f[i] = med3(w.y[i - 1], w.y[i], w.y[i + 1]);
	w.f[n - 1] = med3(w.y[n - 3], w.y[n - 2], w.y[n - 1]);

	ret = classify(&w, r);
	if (ret)
		bf_report_free(r);
	else
		bf_report_stall_steps(s, nall, r);
out:
	free(act);
	free(w.y);
	free(w.f);
	free(w.tmp);
	free(w.p1);
	free(w.p2);
	free(w.seg);
	return ret;
}

void bf_report_free(struct bf_report *r)
{
	free(r->seg);
	r->seg = NULL;
	r->nseg = 0;
}

/* ---- printers ----------------------------------------------------------- */

static const char *floor_kind_name(enum bf_floor_kind k)
{
	return k == BF_FLOOR_PERIODIC ? "periodic" :
	       k == BF_FLOOR_ERRATIC ? "erratic" : "steady";
}

void bf_report_print(FILE *f, const struct bf_report *r)
{
	char a[32], b[32], c[32];
	size_t i;

	fprintf(f, "class: %s (confidence %.2f%s)\n", bf_class_name(r->class),
		r->confidence, r->confirmed || r->class == BF_CLASS_UNCLEAR ?
		"" : ", shape only; run `diagnose` to confirm");
	fprintf(f, "reason: %s\n", r->reason);
	bf_evidence_print(f, r);
	bf_fmt_mbps(a, sizeof(a), r->peak_mbps);
	bf_fmt_mbps(b, sizeof(b), r->floor_mbps);
	bf_fmt_mbps(c, sizeof(c), r->mean_mbps);
	fprintf(f, "peak: %s MB/s\nfloor: %s MB/s\nmean: %s MB/s\n", a, b, c);
	bf_fmt_si_bytes(a, sizeof(a), r->total_bytes);
	bf_fmt_secs(b, sizeof(b), r->total_s);
	fprintf(f, "written: %s in %s\n", a, b);
	if (r->has_step) {
		bf_fmt_si_bytes(a, sizeof(a), r->cache_bytes);
		fprintf(f, "step: at %.1f s\ncache: %s (%.0f bytes)\n",
			r->step_time_s, a, r->cache_bytes);
	}
	fprintf(f, "recovered: %s\n", r->recovered ? "yes" : "no");
	if (r->stalls.count)
		fprintf(f, "stalls: %u (longest %.1f s, %.1f s in all)\n",
			r->stalls.count, r->stalls.longest_s,
			r->stalls.total_s);
	else
		fprintf(f, "stalls: none\n");
	if (r->link.n) {
		char ev[256];

		bf_link_events_words(&r->link, ev, sizeof(ev));
		fprintf(f, "link events: %s\n", ev);
	}
	fprintf(f, "floor behaviour: %s", floor_kind_name(r->floor_kind));
	if (r->floor_kind == BF_FLOOR_PERIODIC)
		fprintf(f, ", every %.1f s, %.0f %% of the time up",
			r->floor_period_s, 100 * r->floor_duty);
	fprintf(f, "\ntrend: %+.0f %% (straight-line fit %s)\n",
		100 * r->trend_rel, r->has_step ? "after the step" : "over the run");
	for (i = 0; i < r->nsteps; i++) {
		bf_fmt_si_bytes(a, sizeof(a), r->steps[i].bytes);
		fprintf(f, "step %zu: at %.1f s after %s, %.2fx %s\n", i + 1,
			r->steps[i].time_s, a,
			r->steps[i].ratio >= 1 ? r->steps[i].ratio :
						 1 / r->steps[i].ratio,
			r->steps[i].ratio >= 1 ? "down" : "up");
	}
	if (r->erratic)
		fprintf(f, "erratic: yes (no stable plateau)\n");
	if (r->cycle_s > 0)
		fprintf(f, "cycle: %.2f s\n", r->cycle_s);
	if (r->temp.n)
		fprintf(f, "temperature: %.1f °C at the start, %.1f max, %.1f at the end (%zu readings); %s\n",
			r->temp.start_c, r->temp.max_c, r->temp.end_c,
			r->temp.n, r->temp.said);
	else
		fprintf(f, "temperature: not measured\n");
	fprintf(f, "plateaus: %zu\n", r->nseg);
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];

		bf_fmt_mbps(a, sizeof(a), g->level_mbps);
		bf_fmt_si_bytes(b, sizeof(b), g->bytes);
		fprintf(f, "  %10.1f s .. %10.1f s  %10s MB/s  %10s", g->start_s,
			g->end_s, a, b);
		if (g->nexcursions)
			fprintf(f, "  (%u short excursions ignored)",
				g->nexcursions);
		/* skewed samples: the level is a median, a job gets the mean */
		if (g->mean_mbps > 0 &&
		    fabs(g->level_mbps / g->mean_mbps - 1) > 0.1) {
			bf_fmt_mbps(a, sizeof(a), g->mean_mbps);
			fprintf(f, "  (median; mean %s MB/s)", a);
		}
		fputc('\n', f);
	}
	fprintf(f, "\n%s\n", r->explain);
}

static double r3(double v)
{
	return round(v * 1000) / 1000;
}

void bf_report_json(FILE *f, const struct bf_report *r)
{
	struct bf_json j;

	bf_json_init(&j, f);
	bf_report_json_obj(&j, NULL, r, NULL);
}

void bf_report_json_obj(struct bf_json *j, const char *key,
			const struct bf_report *r, const char *file)
{
	size_t i;

	bf_json_obj_open(j, key);
	bf_json_u64(j, "schema", BF_SCHEMA_VERSION);
	if (file)
		bf_json_str(j, "file", file);
	bf_json_str(j, "class", bf_class_name(r->class));
	bf_json_double(j, "confidence", r->confidence);
	bf_json_str(j, "reason", r->reason);
	bf_evidence_json(j, r);
	bf_json_double(j, "peak_MBps", r3(r->peak_mbps));
	bf_json_double(j, "floor_MBps", r3(r->floor_mbps));
	bf_json_double(j, "mean_MBps", r3(r->mean_mbps));
	if (r->has_step) {
		bf_json_u64(j, "cache_bytes", llround(r->cache_bytes));
		bf_json_double(j, "step_time_s", r3(r->step_time_s));
	} else {
		bf_json_null(j, "cache_bytes");
		bf_json_null(j, "step_time_s");
	}
	bf_json_bool(j, "recovered", r->recovered);
	bf_json_bool(j, "erratic", r->erratic);
	if (r->cycle_s > 0)
		bf_json_double(j, "cycle_s", r3(r->cycle_s));
	else
		bf_json_null(j, "cycle_s");
	bf_json_obj_open(j, "stalls");
	bf_json_u64(j, "count", r->stalls.count);
	bf_json_double(j, "longest_s", r3(r->stalls.longest_s));
	bf_json_double(j, "total_s", r3(r->stalls.total_s));
	bf_json_obj_close(j);
	bf_json_obj_open(j, "link_events");
	bf_json_u64(j, "abort", r->link.abort);
	bf_json_u64(j, "reset", r->link.reset);
	bf_json_u64(j, "timeout", r->link.timeout);
	bf_json_u64(j, "disconnect", r->link.disconnect);
	bf_json_u64(j, "offline", r->link.offline);
	bf_json_arr_open(j, "reset_s");
	for (i = 0; i < r->link.nreset_s; i++)
		bf_json_double(j, NULL, r3(r->link.reset_s[i]));
	bf_json_arr_close(j);
	bf_json_obj_close(j);
	bf_json_arr_open(j, "steps");
	for (i = 0; i < r->nsteps; i++) {
		bf_json_obj_open(j, NULL);
		bf_json_double(j, "time_s", r3(r->steps[i].time_s));
		bf_json_u64(j, "bytes", llround(fmax(r->steps[i].bytes, 0)));
		bf_json_double(j, "ratio", r3(r->steps[i].ratio));
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
	bf_json_obj_open(j, "floor");
	bf_json_str(j, "behaviour", floor_kind_name(r->floor_kind));
	if (r->floor_kind == BF_FLOOR_PERIODIC) {
		bf_json_double(j, "period_s", r3(r->floor_period_s));
		bf_json_double(j, "duty", r3(r->floor_duty));
	} else {
		bf_json_null(j, "period_s");
		bf_json_null(j, "duty");
	}
	bf_json_obj_close(j);
	bf_json_double(j, "trend_rel", r3(r->trend_rel));
	if (r->temp.n) {
		bf_json_obj_open(j, "temperature");
		bf_json_u64(j, "readings", r->temp.n);
		bf_json_double(j, "start_c", r3(r->temp.start_c));
		bf_json_double(j, "max_c", r3(r->temp.max_c));
		bf_json_double(j, "end_c", r3(r->temp.end_c));
		if (isnan(r->temp.corr))
			bf_json_null(j, "corr");
		else
			bf_json_double(j, "corr", r3(r->temp.corr));
		if (isnan(r->temp.dcorr))
			bf_json_null(j, "heating_corr");
		else
			bf_json_double(j, "heating_corr", r3(r->temp.dcorr));
		bf_json_str(j, "evidence", r->temp.evidence > 0 ? "for heat" :
			    r->temp.evidence < 0 ? "against heat" : "none");
		bf_json_str(j, "said", r->temp.said);
		bf_json_obj_close(j);
	} else {
		bf_json_null(j, "temperature");
	}
	bf_json_u64(j, "total_bytes", llround(r->total_bytes));
	bf_json_double(j, "total_s", r3(r->total_s));
	bf_json_double(j, "noise_rel", round(r->noise_rel * 1e4) / 1e4);
	bf_json_arr_open(j, "segments");
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];

		bf_json_obj_open(j, NULL);
		bf_json_double(j, "start_s", r3(g->start_s));
		bf_json_double(j, "end_s", r3(g->end_s));
		bf_json_double(j, "mean_MBps", r3(g->mean_mbps));
		bf_json_double(j, "level_MBps", r3(g->level_mbps));
		bf_json_u64(j, "bytes", llround(g->bytes));
		bf_json_u64(j, "samples", g->nsamples);
		bf_json_u64(j, "excursions", g->nexcursions);
		bf_json_obj_close(j);
	}
	bf_json_arr_close(j);
	bf_json_str(j, "explanation", r->explain);
	bf_json_obj_close(j);
}

/* ---- prediction ------------------------------------------------------- */

double bf_predict_seconds(const struct bf_report *r, double job_bytes,
			  double *end_mbps)
{
	double t = 0, left = job_bytes, tail;
	size_t i;

	if (!r->nseg || !(job_bytes > 0)) {
		if (end_mbps)
			*end_mbps = r->nseg ? r->seg[0].mean_mbps : 0;
		return 0;
	}
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];
		double rate = g->mean_mbps * 1e6;

		if (!(rate > 0))
			continue;
		if (g->bytes >= left) {
			if (end_mbps)
				*end_mbps = g->mean_mbps;
			return t + left / rate;
		}
		t += g->end_s - g->start_s;
		left -= g->bytes;
	}
	/* past the measured profile: an erratic or cycling drive (or an FTL
	 * running backwards) at its long-run mean, any other at the rate it
	 * had when the measurement ended */
	tail = r->class == BF_CLASS_FTL_STARVATION || r->erratic ?
	       r->mean_mbps : r->seg[r->nseg - 1].mean_mbps;
	if (end_mbps)
		*end_mbps = tail;
	return tail > 0 ? t + left / (tail * 1e6) : INFINITY;
}
