// SPDX-License-Identifier: GPL-2.0
/*
 * Curve classification, stage 1: the plateaus. Noise, change points by
 * binary segmentation, and the clean-up that merges, absorbs and trims
 * them (classify.c has the method).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classify_int.h"
#include "grow.h"
#include "segment.h"
#include "stats.h"

/* ---- working state ---------------------------------------------------- */

double bf_bytes_before(const struct bf_work *w, size_t i)
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
	g->bytes = w->s[g->last].bytes - bf_bytes_before(w, g->first);
}

size_t bf_seg_n(const struct bf_seg *g)
{
	return g->last - g->first + 1;
}

/* Are two plateaus the same level, within 10 % or within the noise? */
bool bf_seg_similar(const struct bf_work *w, const struct bf_seg *a,
		    const struct bf_seg *b)
{
	double thr = BF_Z * w->sigma * sqrt(1.0 / bf_seg_n(a) + 1.0 / bf_seg_n(b));

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

	if (!bf_seg_similar(w, a, c))
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
	if (bf_seg_n(b) > 2 && b->dur >= 0.25 * fmin(a->dur, c->dur) &&
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
		if (o && bf_seg_similar(w, &g[o - 1], &g[i])) {
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
	if (a->lvl > b->lvl && bf_seg_n(a) <= 2 && a->lvl - b->lvl < BF_HOT_START) {
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

void bf_seg_cleanup(struct bf_work *w, double total)
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

/* Robust sample-to-sample noise of y: MAD of its first differences. */
double bf_noise(struct bf_work *w)
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
int bf_change_points(struct bf_work *w, struct bf_seg **raw)
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
