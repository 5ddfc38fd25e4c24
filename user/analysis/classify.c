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
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
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
	if (w->nseg == w->capseg) {
		size_t cap = w->capseg ? w->capseg * 2 : 16;
		struct bf_seg *g = realloc(w->seg, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->seg = g;
		w->capseg = cap;
	}
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
	struct range { size_t a, b; } *st;
	size_t sp = 0, cap = 64;
	double work = 0;
	int ret = 0;

	st = malloc(cap * sizeof(*st));
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
		if (sp + 2 > cap) {
			struct range *n2 = realloc(st, 2 * cap * sizeof(*st));

			if (!n2) {
				ret = -ENOMEM;
				break;
			}
			st = n2;
			cap *= 2;
		}
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
	double m = 0, v = 0;
	size_t i, len = seg_n(g);

	for (i = g->first; i <= g->last; i++)
		m += w->s[i].mbps;
	m /= len;
	for (i = g->first; i <= g->last; i++)
		v += (w->s[i].mbps - m) * (w->s[i].mbps - m);
	return len > 1 ? sqrt(v / (len - 1)) : 0;
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

static void fmt_rate(char *b, size_t len, double mbps)
{
	double v = fabs(mbps);

	if (v >= 1000) {
		long long x = llround(mbps);

		snprintf(b, len, "%lld,%03lld", x / 1000, x % 1000);
	} else if (v >= 100) {
		snprintf(b, len, "%.0f", mbps);
	} else if (v >= 10) {
		snprintf(b, len, "%.1f", mbps);
	} else {
		snprintf(b, len, "%.2f", mbps);
	}
}

void bf_fmt_mbps(char *b, size_t len, double mbps)
{
	fmt_rate(b, len, mbps);
}

void bf_fmt_si_bytes(char *b, size_t len, double bytes)
{
	static const char *const u[] = { "B", "kB", "MB", "GB", "TB" };
	double v = bytes;
	int i = 0;

	while (fabs(v) >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(b, len, fabs(v) >= 100 || i == 0 ? "%.0f %s" : "%.1f %s",
		 v, u[i]);
}

void bf_fmt_secs(char *b, size_t len, double s)
{
	if (!isfinite(s))
		snprintf(b, len, "never");
	else if (s >= 3600)
		snprintf(b, len, "%.0f h %02.0f min", floor(s / 3600),
			 floor(fmod(s, 3600) / 60));
	else if (s >= 600)
		snprintf(b, len, "%.0f min", s / 60);
	else if (s >= 10)
		snprintf(b, len, "%.0f s", s);
	else
		snprintf(b, len, "%.2f s", s);
}

static void explain(struct bf_report *r, const char *why)
{
	char pk[32], fl[32], mn[32], cb[32], tt[32], tb[32];
	size_t i;
	int len;

	fmt_rate(pk, sizeof(pk), r->peak_mbps);
	fmt_rate(fl, sizeof(fl), r->floor_mbps);
	fmt_rate(mn, sizeof(mn), r->mean_mbps);
	bf_fmt_si_bytes(tb, sizeof(tb), r->total_bytes);
	bf_fmt_secs(tt, sizeof(tt), r->total_s);

	switch (r->class) {
	case BF_CLASS_STEADY:
		snprintf(r->explain, sizeof(r->explain),
			 "One plateau at %s MB/s for %s over %s, no step%s: the drive sustains its rate (mean %s MB/s, %s).",
			 fl, tb, tt,
			 r->seg[0].nexcursions ? " (a few short dips or bursts ignored)" : "",
			 mn, why);
		break;
	case BF_CLASS_CACHE_EXHAUSTION:
		bf_fmt_si_bytes(cb, sizeof(cb), r->cache_bytes);
		snprintf(r->explain, sizeof(r->explain),
			 "One clean step at %.*f s after %s, from %s to %s MB/s, no recovery: the SLC cache ran out. The cache holds about %s; past it the drive writes at %s MB/s (mean %s MB/s over %s in %s%s).",
			 r->step_time_s < 100 ? 1 : 0, r->step_time_s, cb, pk, fl, cb, fl, mn, tb, tt,
			 r->seg[r->nseg - 1].nexcursions ?
			 ", short bursts above the floor ignored" : "");
		break;
	case BF_CLASS_THERMAL_THROTTLING:
		if (r->erratic && !(r->cycle_s > 0)) {
			snprintf(r->explain, sizeof(r->explain),
				 "%s with no stable plateau (mean %s MB/s over %s in %s): the rate keeps climbing back while still writing. A cache that ran out does not refill while writing, and an FTL short of free blocks still reaches its full speed between slow stretches; a controller that heated up and now throttles and recovers does neither: heat.",
				 why, mn, tb, tt);
			break;
		}
		if (r->cycle_s > 0) {
			snprintf(r->explain, sizeof(r->explain),
				 "A regular throttle-and-recover cycle every %.*f s between about %s and %s MB/s (mean %s MB/s over %s in %s): the rate keeps climbing back while still writing. A cache that ran out does not refill while writing, a cooled controller speeds up again: heat, not bytes.",
				 r->cycle_s < 10 ? 1 : 0, r->cycle_s, fl, pk,
				 mn, tb, tt);
			break;
		}
		len = snprintf(r->explain, sizeof(r->explain), "%zu plateaus: ",
			       r->nseg);
		for (i = 0; i < r->nseg && len < 700; i++) {
			char v[32];

			fmt_rate(v, sizeof(v), r->seg[i].level_mbps);
			len += snprintf(r->explain + len,
					sizeof(r->explain) - len, "%s%s",
					i ? " -> " : "", v);
		}
		snprintf(r->explain + len, sizeof(r->explain) - len,
			 " MB/s (at %.0f s .. %.0f s)%s: %s. Peak %s, floor %s, mean %s MB/s.",
			 r->seg[1].start_s, r->seg[r->nseg - 1].start_s,
			 r->recovered ? ", the rate climbed back while still writing" : "",
			 r->recovered ?
			 "a cache that ran out does not refill while writing, a cooled controller speeds up again: heat, not bytes" :
			 "the rate fell in several stages rather than one clean step: heat, not a cache running out",
			 pk, fl, mn);
		break;
	case BF_CLASS_FTL_STARVATION:
		snprintf(r->explain, sizeof(r->explain),
			 "%s, between about %s and %s MB/s (mean %s MB/s over %s in %s): an FTL with almost no free blocks, typically a drive that never gets TRIM; a full-device discard usually restores a steady rate.",
			 why, fl, pk, mn, tb, tt);
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

static int classify(struct bf_work *w, struct bf_report *r)
{
	const struct bf_sample *s = w->s;
	size_t n = w->n, i, g, kmax = 0, kmin = 0;
	double total, spread, lvl_lo, lvl_hi, exc = 0;
	struct bf_seg *raw = NULL;
	bool erratic, backwards = false;
	char why[256] = "";
	int ret;

	total = s[n - 1].t - (s[0].t - s[0].dt);
	r->total_s = total;
	r->total_bytes = s[n - 1].bytes - w->b0;
	r->mean_mbps = total > 0 ? r->total_bytes / total / 1e6 : 0;

	/* robust noise: MAD of first differences of y */
	for (i = 1; i < n; i++)
		w->tmp[i - 1] = w->y[i] - w->y[i - 1];
	{
		double md = bf_median(w->tmp, n - 1);

		for (i = 1; i < n; i++)
			w->tmp[i - 1] = fabs(w->y[i] - w->y[i - 1] - md);
		w->sigma = 1.4826 * bf_median(w->tmp, n - 1) / sqrt(2.0);
	}
	if (w->sigma < 0.005)
		w->sigma = 0.005;
	r->noise_rel = w->sigma;

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
	r->nraw_segments = w->nseg;
	raw = malloc(w->nseg * sizeof(*raw));
	if (!raw)
		return -ENOMEM;
	memcpy(raw, w->seg, w->nseg * sizeof(*raw));
	cleanup(w, total);

	spread = within_spread(w);
	for (g = 0; g < w->nseg; g++)
		exc += w->seg[g].exc_dur;
	erratic = spread > BF_ERRATIC_SD || exc > 0.3 * total ||
		  far_fraction(w) > BF_ERRATIC_FAR ||
		  jump_fraction(w) > BF_ERRATIC_JUMPS ||
		  (w->nseg >= 6 && median_dur_frac(w, total) < 0.10);

	for (g = 0; g < w->nseg; g++) {
		if (w->seg[g].lvl > w->seg[kmax].lvl)
			kmax = g;
		if (w->seg[g].lvl < w->seg[kmin].lvl)
			kmin = g;
	}
	lvl_hi = w->seg[kmax].lvl;
	lvl_lo = w->seg[kmin].lvl;

	/* recovered: some plateau rises clearly above an earlier drop */
	r->recovered = false;
	for (g = 1; g < w->nseg && !r->recovered; g++) {
		double lowest = w->seg[g].lvl;
		size_t h;

		if (w->seg[g].lvl >= w->seg[0].lvl - BF_REL_STEP)
			continue;
		for (h = g + 1; h < w->nseg; h++)
			if (w->seg[h].lvl > lowest + BF_REL_STEP &&
			    !seg_similar(w, &w->seg[g], &w->seg[h])) {
				r->recovered = true;
				break;
			}
	}
	if (!erratic && kmax > 0 && lvl_hi - w->seg[0].lvl >= BF_BACKWARDS &&
	    !seg_similar(w, &w->seg[0], &w->seg[kmax]))
		backwards = true;

	r->has_step = false;
	r->step_time_s = NAN;
	r->cache_bytes = NAN;
	if (erratic) {
		size_t nlo, nhi;

		size_t per = periodic(w);
		bool hot;

		r->erratic = true;
		two_means(w, &lvl_lo, &lvl_hi, &nlo, &nhi);
		/*
		 * Fast at first, then an oscillation well below that: heat
		 * built up and the controller now throttles and recovers. An
		 * FTL starved of blocks still reaches its full speed between
		 * the slow stretches.
		 */
		short_first_level(w);
		hot = seg_n(&w->seg[0]) >= 2 && w->seg[0].dur < 0.5 * total &&
		      w->seg[0].lvl >= lvl_hi + BF_HOT_START;
		if (per) {
			/* a regular cycle: throttle and recover, heat */
			r->class = BF_CLASS_THERMAL_THROTTLING;
			r->recovered = true;
			r->cycle_s = per * total / n;
			if (hot)
				lvl_hi = w->seg[0].lvl;
		} else if (hot) {
			char a[32], b[32], c[32];

			r->class = BF_CLASS_THERMAL_THROTTLING;
			r->recovered = true;
			fmt_rate(a, sizeof(a), exp(w->seg[0].lvl));
			fmt_rate(b, sizeof(b), exp(lvl_lo));
			fmt_rate(c, sizeof(c), exp(lvl_hi));
			snprintf(why, sizeof(why),
				 "Fast at first (%s MB/s for %.1f s), then an oscillation between about %s and %s MB/s",
				 a, w->seg[0].dur, b, c);
			lvl_hi = w->seg[0].lvl;
		} else {
			r->class = BF_CLASS_FTL_STARVATION;
			snprintf(why, sizeof(why),
				 "Erratic oscillation with no stable plateau (%zu short plateaus, spread %.0f %%)",
				 w->nseg, 100 * (exp(spread) - 1));
		}
	} else if (backwards) {
		r->class = BF_CLASS_FTL_STARVATION;
		snprintf(why, sizeof(why),
			 "The curve runs backwards: slow first (%.0f MB/s until %.0f s), fast later (%.0f MB/s)",
			 exp(w->seg[0].lvl), s[w->seg[0].last].t, exp(lvl_hi));
	} else if (w->nseg == 1) {
		r->class = BF_CLASS_STEADY;
		snprintf(why, sizeof(why), "spread %.0f %%",
			 100 * (exp(spread) - 1));
	} else if (r->recovered || w->nseg >= 3 || kmax > 0) {
		r->class = BF_CLASS_THERMAL_THROTTLING;
	} else {
		r->class = BF_CLASS_CACHE_EXHAUSTION;
		r->has_step = true;
		short_first_level(w);
		lvl_hi = w->seg[0].lvl;
		locate_step(w, w->seg[1].first, exp(w->seg[0].lvl),
			    exp(w->seg[1].lvl), &r->step_time_s,
			    &r->cache_bytes);
		r->cache_bytes -= w->b0;
	}
	r->peak_mbps = exp(lvl_hi);
	r->floor_mbps = exp(lvl_lo);

	if (r->erratic) {
		/*
		 * The clean-up absorbs an oscillation into "plateaus" with
		 * excursions; the change points themselves describe it better.
		 */
		memcpy(w->seg, raw, r->nraw_segments * sizeof(*raw));
		w->nseg = r->nraw_segments;
	}
	free(raw);
	ret = fill_report(w, r);
	if (ret)
		return ret;
	explain(r, why);
	return 0;
}

int bf_classify(const struct bf_sample *s, size_t n, struct bf_report *r)
{
	struct bf_work w = { .s = s, .n = n };
	double clamp;
	size_t i;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (n < 3)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(s[i].t) || !isfinite(s[i].mbps) ||
		    !isfinite(s[i].bytes) || !(s[i].dt > 0) || s[i].mbps < 0)
			return -EINVAL;

	w.y = malloc(n * sizeof(double));
	w.f = malloc(n * sizeof(double));
	w.tmp = malloc((n + 1) * sizeof(double));
	w.p1 = malloc((n + 1) * sizeof(double));
	w.p2 = malloc((n + 1) * sizeof(double));
	if (!w.y || !w.f || !w.tmp || !w.p1 || !w.p2)
		goto out;

	w.b0 = s[0].bytes - s[0].mbps * 1e6 * s[0].dt;
	if (w.b0 < 0 || w.b0 < 1e-6 * s[0].bytes)
		w.b0 = 0;

	/* log domain; a stalled interval is clamped to 1/1000 of the median */
	for (i = 0; i < n; i++)
		w.tmp[i] = s[i].mbps;
	clamp = bf_median(w.tmp, n) * 1e-3;
	if (!(clamp > 0))
		clamp = 1e-6;
	for (i = 0; i < n; i++)
		w.y[i] = log(s[i].mbps > clamp ? s[i].mbps : clamp);

	w.f[0] = med3(w.y[0], w.y[1], w.y[2]);
	for (i = 1; i + 1 < n; i++)
		w.f[i] = med3(w.y[i - 1], w.y[i], w.y[i + 1]);
	w.f[n - 1] = med3(w.y[n - 3], w.y[n - 2], w.y[n - 1]);

	ret = classify(&w, r);
	if (ret)
		bf_report_free(r);
out:
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

void bf_report_print(FILE *f, const struct bf_report *r)
{
	char a[32], b[32], c[32];
	size_t i;

	fprintf(f, "class: %s\n", bf_class_name(r->class));
	fmt_rate(a, sizeof(a), r->peak_mbps);
	fmt_rate(b, sizeof(b), r->floor_mbps);
	fmt_rate(c, sizeof(c), r->mean_mbps);
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
	if (r->erratic)
		fprintf(f, "erratic: yes (no stable plateau)\n");
	if (r->cycle_s > 0)
		fprintf(f, "cycle: %.2f s\n", r->cycle_s);
	fprintf(f, "plateaus: %zu\n", r->nseg);
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];

		fmt_rate(a, sizeof(a), g->level_mbps);
		bf_fmt_si_bytes(b, sizeof(b), g->bytes);
		fprintf(f, "  %10.1f s .. %10.1f s  %10s MB/s  %10s", g->start_s,
			g->end_s, a, b);
		if (g->nexcursions)
			fprintf(f, "  (%u short excursions ignored)",
				g->nexcursions);
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
	size_t i;

	bf_json_init(&j, f);
	bf_json_obj_open(&j, NULL);
	bf_json_str(&j, "class", bf_class_name(r->class));
	bf_json_double(&j, "peak_MBps", r3(r->peak_mbps));
	bf_json_double(&j, "floor_MBps", r3(r->floor_mbps));
	bf_json_double(&j, "mean_MBps", r3(r->mean_mbps));
	if (r->has_step) {
		bf_json_u64(&j, "cache_bytes", llround(r->cache_bytes));
		bf_json_double(&j, "step_time_s", r3(r->step_time_s));
	} else {
		bf_json_null(&j, "cache_bytes");
		bf_json_null(&j, "step_time_s");
	}
	bf_json_bool(&j, "recovered", r->recovered);
	bf_json_bool(&j, "erratic", r->erratic);
	if (r->cycle_s > 0)
		bf_json_double(&j, "cycle_s", r3(r->cycle_s));
	else
		bf_json_null(&j, "cycle_s");
	bf_json_u64(&j, "total_bytes", llround(r->total_bytes));
	bf_json_double(&j, "total_s", r3(r->total_s));
	bf_json_double(&j, "noise_rel", round(r->noise_rel * 1e4) / 1e4);
	bf_json_arr_open(&j, "segments");
	for (i = 0; i < r->nseg; i++) {
		const struct bf_segment *g = &r->seg[i];

		bf_json_obj_open(&j, NULL);
		bf_json_double(&j, "start_s", r3(g->start_s));
		bf_json_double(&j, "end_s", r3(g->end_s));
		bf_json_double(&j, "mean_MBps", r3(g->mean_mbps));
		bf_json_double(&j, "level_MBps", r3(g->level_mbps));
		bf_json_u64(&j, "bytes", llround(g->bytes));
		bf_json_u64(&j, "samples", g->nsamples);
		bf_json_u64(&j, "excursions", g->nexcursions);
		bf_json_obj_close(&j);
	}
	bf_json_arr_close(&j);
	bf_json_str(&j, "explanation", r->explain);
	bf_json_obj_close(&j);
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
