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
 *
 * This file is the entry: stalls out, the log domain, the filter. The
 * stages: segment.c (steps 3 and 4), features.c and verdict.c (step 5),
 * explain.c (the words and the printers), their shared state in
 * classify_int.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "classify_int.h"
#include "origin.h"
#include "segment.h"
#include "verdict.h"

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
	bf_explain(r, r->reason);
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

	w.f[0] = bf_med3(w.y[0], w.y[1], w.y[2]);
	for (i = 1; i + 1 < n; i++)
		w.f[i] = bf_med3(w.y[i - 1], w.y[i], w.y[i + 1]);
	w.f[n - 1] = bf_med3(w.y[n - 3], w.y[n - 2], w.y[n - 1]);

	ret = bf_classify_work(&w, r);
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

/* The first plateau is the host's page cache: how long it lasted. */
static bool page_cache_burst(const struct bf_report *r)
{
	const struct bf_segment *a, *b;

	if (r->nseg < 2)
		return false;
	a = &r->seg[0];
	b = &r->seg[1];
	return a->level_mbps >= BF_MEM_SPEED_MBPS &&
	       a->end_s - a->start_s <= BF_PAGE_CACHE_MAX_S &&
	       a->bytes <= BF_PAGE_CACHE_MAX_BYTES &&
	       b->level_mbps > 0 && a->level_mbps >= 5 * b->level_mbps;
}

int bf_classify_imported(const struct bf_sample *s, size_t n,
			 struct bf_report *r)
{
	double level, secs, bytes, end;
	char a[32], b[32], why[sizeof(r->reason)], ex[sizeof(r->explain)];
	size_t k;
	int ret;

	ret = bf_classify(s, n, r);
	if (ret || !page_cache_burst(r))
		return ret;
	level = r->seg[0].level_mbps;
	end = r->seg[0].end_s;
	secs = end - r->seg[0].start_s;
	bytes = r->seg[0].bytes;
	for (k = 0; k < n && s[k].t <= end + 1e-9; k++)
		;
	if (n - k < 3)
		return 0;
	bf_report_free(r);
	ret = bf_classify(s + k, n - k, r);
	if (ret)
		return ret;
	bf_fmt_mbps(a, sizeof(a), level);
	bf_fmt_si_bytes(b, sizeof(b), bytes);
	snprintf(why, sizeof(why), "%s", r->reason);
	snprintf(r->reason, sizeof(r->reason),
		 "page cache burst left out (%s MB/s, %s); then ", a, b);
	k = strlen(r->reason);
	snprintf(r->reason + k, sizeof(r->reason) - k, "%s", why);
	snprintf(ex, sizeof(ex), "%s", r->explain);
	snprintf(r->explain, sizeof(r->explain),
		 "The first %.1f s (%s) went at %s MB/s, memory speed: the writes filled the host's page cache (a tool writing without O_DIRECT), not an SLC cache; they are left out. ",
		 secs, b, a);
	k = strlen(r->explain);
	snprintf(r->explain + k, sizeof(r->explain) - k, "%s", ex);
	return 0;
}
