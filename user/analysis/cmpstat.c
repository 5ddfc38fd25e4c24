// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of compare (see cmpstat.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "cmpstat.h"
#include "fmt.h"

double bf_t99(unsigned int df)
{
	static const struct { unsigned int df; double t; } q[] = {
		{ 1, 31.821 }, { 2, 6.965 }, { 3, 4.541 }, { 4, 3.747 },
		{ 5, 3.365 }, { 6, 3.143 }, { 7, 2.998 }, { 8, 2.896 },
		{ 9, 2.821 }, { 10, 2.764 }, { 12, 2.681 }, { 15, 2.602 },
		{ 20, 2.528 }, { 30, 2.457 }, { 60, 2.390 }, { 120, 2.358 },
	};
	size_t i;

	if (!df)
		return INFINITY;
	/* the table's entry at or below @df: a little strict in between */
	for (i = sizeof(q) / sizeof(q[0]); i--;)
		if (q[i].df <= df)
			return q[i].t;
	return q[0].t;
}

const char *bf_cmp_verdict_name(enum bf_cmp_verdict v)
{
	static const char *const n[] = { "n/a", "same", "better", "worse",
					 "inconclusive" };

	return v <= BF_CMP_UNSURE ? n[v] : "?";
}

/* mean, sd, min, max and within-run mean square error of the finite values */
struct agg { double mean, sd, min, max, se2; size_t n; };

static struct agg aggregate(const struct bf_cmp_side *s)
{
	struct agg g = { 0, 0, INFINITY, -INFINITY, 0, 0 };
	double ss = 0;
	size_t i;

	for (i = 0; i < s->n && i < BF_CMP_RUNS; i++) {
		double v = s->v[i];

		if (!isfinite(v))
			continue;
		g.mean += v;
		g.se2 += s->se[i] * s->se[i];
		g.min = fmin(g.min, v);
		g.max = fmax(g.max, v);
		g.n++;
	}
	if (!g.n)
		return g;
	g.mean /= g.n;
	g.se2 /= g.n;
	for (i = 0; i < s->n && i < BF_CMP_RUNS; i++)
		if (isfinite(s->v[i]))
			ss += (s->v[i] - g.mean) * (s->v[i] - g.mean);
	g.sd = g.n > 1 ? sqrt(ss / (g.n - 1)) : 0;
	return g;
}

/*
 * Runs per side at which a difference with t = @t now (with @na and @nb
 * runs, or one each judged by the within-run noise) would be beyond the
 * spread, if the spread stayed what it is.
 */
static unsigned int runs_needed(double t, size_t na, size_t nb)
{
	double now = sqrt(1.0 / na + 1.0 / nb);
	unsigned int n;

	if (!(t > 0))
		return BF_CMP_MAX_RUNS;
	for (n = 2; n < BF_CMP_MAX_RUNS; n++)
		if (t * now / sqrt(2.0 / n) > bf_t99(2 * n - 2))
			return n;
	return BF_CMP_MAX_RUNS;
}

/* "p99 latency 900 -> 9000 us (x 10, t = 14.2)": the row and its size */
static void say(struct bf_cmp_row *r, const char *more)
{
	char d[48], x[24], y[24];

	if (!isfinite(r->change))
		snprintf(d, sizeof(d), "from 0");
	else if (fabs(r->change) < 9.995)
		snprintf(d, sizeof(d), "%+.1f %%", 100 * r->change);
	else
		snprintf(d, sizeof(d), "x %.3g", r->mb / r->ma);
	bf_fmt_num(x, sizeof(x), r->ma);
	bf_fmt_num(y, sizeof(y), r->mb);
	snprintf(r->why, sizeof(r->why), "%s %s -> %s%s%s (%s%s)", r->name, x,
		 y, r->unit[0] ? " " : "", r->unit, d, more);
}

static void judge_count(struct bf_cmp_row *r, const struct agg *A,
			const struct agg *B, double w)
{
	if (w <= 0) {
		r->verdict = w < 0 && B->max < A->min ? BF_CMP_BETTER :
			     BF_CMP_SAME;
		return;
	}
	if (B->min > A->max || (r->any && B->max > A->max)) {
		r->verdict = BF_CMP_WORSE;
		say(r, "");
		return;
	}
	/* B has more on the whole, but some of its runs have no more */
	{
		double sp2 = ((A->n - 1) * A->sd * A->sd +
			      (B->n - 1) * B->sd * B->sd) /
			     fmax(1, (double)(A->n + B->n - 2));
		double se = sqrt(sp2 * (1.0 / A->n + 1.0 / B->n));

		r->t = se > 0 ? w / se : INFINITY;
		r->verdict = BF_CMP_UNSURE;
		r->runs = runs_needed(r->t, A->n, B->n);
		say(r, ", not in every run");
	}
}

void bf_cmp_judge(struct bf_cmp_row *r)
{
	struct agg A = aggregate(&r->a), B = aggregate(&r->b);
	double d, w, se, tcrit;
	char more[48];
	bool pooled;

	r->na = A.n;
	r->nb = B.n;
	r->ma = A.mean;
	r->mb = B.mean;
	r->t = NAN;
	r->runs = 0;
	r->why[0] = '\0';
	r->change = 0;
	if (!A.n || !B.n) {
		r->verdict = BF_CMP_NA;
		return;
	}
	r->ma = A.mean;
	r->mb = B.mean;
	r->sa = A.sd;
	r->sb = B.sd;
	d = B.mean - A.mean;
	if (A.mean != 0)
		r->change = d / fabs(A.mean);
	else if (d != 0)
		r->change = INFINITY;
	w = r->bad == BF_CMP_LOWER ? -d : d;	/* > 0: B is worse */
	if (r->bad == BF_CMP_NEITHER) {
		r->verdict = BF_CMP_SAME;
		return;
	}
	if (r->kind == BF_CMP_COUNT) {
		judge_count(r, &A, &B, w);
		return;
	}
	pooled = A.n > 1 || B.n > 1;
	if (pooled) {
		double sp2 = ((A.n - 1) * A.sd * A.sd +
			      (B.n - 1) * B.sd * B.sd) / (A.n + B.n - 2);

		se = sqrt(sp2 * (1.0 / A.n + 1.0 / B.n));
		tcrit = bf_t99(A.n + B.n - 2);
	} else {
		se = sqrt(A.se2 + B.se2);
		tcrit = BF_CMP_T_ONE;
	}
	r->t = se > 0 ? w / se : w > 0 ? INFINITY : w < 0 ? -INFINITY : 0;
	if (r->kind == BF_CMP_EXTREME && !pooled) {
		/* no noise to weigh one maximum against: tenfold or nothing */
		r->t = NAN;
		if (w > 0 && fabs(r->change) >= 9) {
			r->verdict = BF_CMP_WORSE;
			say(r, "");
		} else {
			r->verdict = BF_CMP_SAME;
		}
		return;
	}
	if (fabs(r->change) < r->rel_min) {
		r->verdict = BF_CMP_SAME;
		return;
	}
	if (w < 0) {
		r->verdict = -r->t > tcrit ? BF_CMP_BETTER : BF_CMP_SAME;
		return;
	}
	if (r->t > tcrit) {
		r->verdict = BF_CMP_WORSE;
		snprintf(more, sizeof(more), ", t = %.1f", r->t);
		say(r, more);
		return;
	}
	r->verdict = BF_CMP_UNSURE;
	r->runs = runs_needed(r->t, A.n, B.n);
	snprintf(more, sizeof(more), ", t = %.1f, within the spread", r->t);
	say(r, more);
}

enum bf_cmp_verdict bf_cmp_overall(const struct bf_cmp_row *r, size_t n,
				   unsigned int *runs)
{
	enum bf_cmp_verdict v = BF_CMP_SAME;
	size_t i;

	*runs = 0;
	for (i = 0; i < n; i++) {
		if (r[i].verdict == BF_CMP_WORSE)
			v = BF_CMP_WORSE;
		else if (r[i].verdict == BF_CMP_UNSURE && v != BF_CMP_WORSE)
			v = BF_CMP_UNSURE;
		if (r[i].verdict == BF_CMP_UNSURE && r[i].runs > *runs)
			*runs = r[i].runs;
	}
	return v;
}

/* ---- within-run standard errors ------------------------------------------ */

static double level_of(const struct bf_report *r, size_t i, size_t *g)
{
	while (*g + 1 < r->nseg && r->seg[*g].last < i)
		(*g)++;
	return r->nseg ? r->seg[*g].mean_mbps : 0;
}

/* sd and effective count of deviations @e[0..n) (lag-1 AR model) */
static double se_of(double ss, double c1, size_t n)
{
	double r = ss > 0 ? c1 / ss : 0, neff;

	r = r < 0 ? 0 : r > 0.99 ? 0.99 : r;
	neff = fmax(1, n * (1 - r) / (1 + r));
	return n > 1 ? sqrt(ss / (n - 1)) / sqrt(neff) : 0;
}

double bf_cmp_span(const struct bf_sample *s, const struct bf_report *r,
		   size_t first, size_t last, double *se)
{
	double mean = 0, ss = 0, c1 = 0, prev = 0;
	size_t i, g = 0, n = last - first + 1;

	for (i = first; i <= last; i++) {
		double e = s[i].mbps - level_of(r, i, &g);

		mean += s[i].mbps;
		ss += e * e;
		if (i > first)
			c1 += prev * e;
		prev = e;
	}
	*se = se_of(ss, c1, n);
	return mean / n;
}

double bf_cmp_plateau_se(const struct bf_sample *s, const struct bf_report *r,
			 bool highest)
{
	size_t i, k = 0;
	double se;

	if (!r->nseg)
		return 0;
	for (i = 1; i < r->nseg; i++)
		if (highest ? r->seg[i].level_mbps > r->seg[k].level_mbps :
			      r->seg[i].level_mbps < r->seg[k].level_mbps)
			k = i;
	bf_cmp_span(s, r, r->seg[k].first, r->seg[k].last, &se);
	return se;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bf_cmp_median(const double *v, size_t n, double *se)
{
	double *w, med, mean = 0, ss = 0, c1 = 0, prev = 0;
	size_t i, m = 0;

	*se = 0;
	w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return NAN;
	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			w[m++] = v[i];
	if (!m) {
		free(w);
		return NAN;
	}
	for (i = 0; i < m; i++)
		mean += w[i];
	mean /= m;
	for (i = 0; i < m; i++) {
		double e = w[i] - mean;

		ss += e * e;
		if (i)
			c1 += prev * e;
		prev = e;
	}
	*se = 1.2533 * se_of(ss, c1, m);
	qsort(w, m, sizeof(*w), cmp_dbl);
	med = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	free(w);
	return med;
}
