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
					 "inconclusive", "differs" };

	return v <= BF_CMP_DIFFERS ? n[v] : "?";
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

/* ---- the noise a level is weighed against -------------------------------- */

/* one side's runs in one boot */
struct cell { int boot; double sum, ss; size_t n; };

#define CELLS	BF_CMP_RUNS

struct cells { struct cell c[CELLS]; size_t k; };

static void cells_of(const struct bf_cmp_side *s, struct cells *cs)
{
	size_t i, j;

	cs->k = 0;
	for (i = 0; i < s->n && i < BF_CMP_RUNS; i++) {
		if (!isfinite(s->v[i]))
			continue;
		for (j = 0; j < cs->k && cs->c[j].boot != s->boot[i]; j++)
			;
		if (j == cs->k) {
			cs->c[j] = (struct cell){ .boot = s->boot[i] };
			cs->k++;
		}
		cs->c[j].sum += s->v[i];
		cs->c[j].n++;
	}
	for (j = 0; j < cs->k; j++) {
		double m = cs->c[j].sum / cs->c[j].n;

		for (i = 0; i < s->n && i < BF_CMP_RUNS; i++)
			if (isfinite(s->v[i]) && s->boot[i] == cs->c[j].boot)
				cs->c[j].ss += (s->v[i] - m) * (s->v[i] - m);
	}
}

static const struct cell *cell_at(const struct cells *cs, int boot)
{
	for (size_t j = 0; j < cs->k; j++)
		if (cs->c[j].boot == boot)
			return &cs->c[j];
	return NULL;
}

/* what a level's difference is weighed against */
struct noise {
	enum bf_cmp_noise by;
	double se;		/* of the difference B - A */
	double tcrit;
	size_t ua, ub;		/* units (runs or boots) on each side */
};

/* pooled two-sample standard error of means @ma..., n and sd per side */
static double pooled(size_t na, double sa, size_t nb, double sb,
		     unsigned int *df)
{
	double sp2 = ((na - 1) * sa * sa + (nb - 1) * sb * sb) /
		     (double)(na + nb - 2);

	*df = na + nb - 2;
	return sqrt(sp2 * (1.0 / na + 1.0 / nb));
}

/* the boots' means of a side: their number, mean and sd */
static void boot_means(const struct cells *cs, size_t *n, double *sd)
{
	double mean = 0, ss = 0;
	size_t j;

	for (j = 0; j < cs->k; j++)
		mean += cs->c[j].sum / cs->c[j].n;
	mean /= cs->k;
	for (j = 0; j < cs->k; j++) {
		double e = cs->c[j].sum / cs->c[j].n - mean;

		ss += e * e;
	}
	*n = cs->k;
	*sd = cs->k > 1 ? sqrt(ss / (cs->k - 1)) : 0;
}

/*
 * A and B in the same boots: the difference within each boot, weighed by
 * its runs, against the spread of the runs around their boot and side
 * (or, with one run per boot and side, the spread of the differences).
 * Returns the difference B - A.
 */
static double shared_boots(const struct cells *ca, const struct cells *cb,
			   struct noise *nz)
{
	double d = 0, wsum = 0, ss = 0, dd[CELLS], dm = 0, dss = 0;
	size_t j, N = 0;
	unsigned int df;

	for (j = 0; j < ca->k; j++) {
		const struct cell *a = &ca->c[j], *b = cell_at(cb, a->boot);
		double w = 1.0 / (1.0 / a->n + 1.0 / b->n);

		dd[j] = b->sum / b->n - a->sum / a->n;
		d += w * dd[j];
		wsum += w;
		ss += a->ss + b->ss;
		N += a->n + b->n;
	}
	d /= wsum;
	nz->by = BF_CMP_BY_SHARED;
	nz->ua = nz->ub = N / 2;
	if (N > 2 * ca->k) {
		df = N - 2 * ca->k;
		nz->se = sqrt(ss / df / wsum);
		nz->tcrit = bf_t99(df);
		return d;
	}
	/* one run per boot and side: the boots' differences, paired */
	for (j = 0; j < ca->k; j++)
		dm += dd[j];
	dm /= ca->k;
	for (j = 0; j < ca->k; j++)
		dss += (dd[j] - dm) * (dd[j] - dm);
	nz->se = sqrt(dss / (ca->k - 1) / ca->k);
	nz->tcrit = bf_t99(ca->k - 1);
	nz->ua = nz->ub = ca->k;
	return dm;
}

static bool same_boots(const struct cells *ca, const struct cells *cb)
{
	size_t j;

	if (ca->k != cb->k)
		return false;
	for (j = 0; j < ca->k; j++)
		if (!cell_at(cb, ca->c[j].boot))
			return false;
	return true;
}

/* Which noise to weigh @r's difference against, and its size. */
static void weigh(const struct bf_cmp_row *r, const struct agg *A,
		  const struct agg *B, struct noise *nz)
{
	struct cells ca, cb;
	unsigned int df;

	memset(nz, 0, sizeof(*nz));
	cells_of(&r->a, &ca);
	cells_of(&r->b, &cb);
	if (r->load && same_boots(&ca, &cb) && ca.k > 1) {
		shared_boots(&ca, &cb, nz);
		return;
	}
	if (r->load && !same_boots(&ca, &cb)) {
		double sa, sb;

		boot_means(&ca, &nz->ua, &sa);
		boot_means(&cb, &nz->ub, &sb);
		if (nz->ua + nz->ub > 2) {
			nz->by = BF_CMP_BY_BOOTS;
			nz->se = pooled(nz->ua, sa, nz->ub, sb, &df);
			nz->tcrit = bf_t99(df);
			return;
		}
		nz->by = BF_CMP_BY_ONE_BOOT;
	} else {
		nz->by = BF_CMP_BY_RUNS;
	}
	nz->ua = A->n;
	nz->ub = B->n;
	if (A->n > 1 || B->n > 1) {
		nz->se = pooled(A->n, A->sd, B->n, B->sd, &df);
		nz->tcrit = bf_t99(df);
	} else {
		if (nz->by == BF_CMP_BY_RUNS)
			nz->by = BF_CMP_BY_WITHIN;
		nz->se = sqrt(A->se2 + B->se2);
		nz->tcrit = BF_CMP_T_ONE;
	}
}

/* ---- the verdict ------------------------------------------------------------ */

/* "p99 latency 900 -> 9000 us (x 10, t = 14.2)": the row and its size */
static void say(struct bf_cmp_row *r, const char *more)
{
	char d[48], x[24], y[24];

	if (!isfinite(r->change))
		snprintf(d, sizeof(d), "from 0");
	else if (fabs(r->change) < 9.995)
		snprintf(d, sizeof(d), "%+.1f %%", 100 * r->change);
	else if (r->mb / r->ma < 999.5)
		snprintf(d, sizeof(d), "x %.3g", r->mb / r->ma);
	else
		snprintf(d, sizeof(d), "x %.0f", r->mb / r->ma);
	bf_fmt_num(x, sizeof(x), r->ma);
	bf_fmt_num(y, sizeof(y), r->mb);
	snprintf(r->why, sizeof(r->why), "%s %s -> %s%s%s (%s%s)", r->name, x,
		 y, r->unit[0] ? " " : "", r->unit, d, more);
}

/* ", t = 4.2", ", no spread between runs": t as a person reads it */
static void t_words(char *buf, size_t len, const struct bf_cmp_row *r,
		    const char *units)
{
	if (r->nospread)
		snprintf(buf, len, ", no spread between %s", units);
	else if (r->t > 999)
		snprintf(buf, len, ", t > 999");
	else
		snprintf(buf, len, ", t = %.1f", r->t);
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

		r->t = se > 0 ? w / se : NAN;
		r->verdict = BF_CMP_UNSURE;
		r->runs = runs_needed(se > 0 ? r->t : INFINITY, A->n, B->n);
		say(r, ", not in every run");
	}
}

/*
 * One boot a side: beyond any noise the runs show? The change is at least
 * BF_CMP_BOOT_FACTOR and every B run is worse than every A run by more
 * than the runs of either side differ among themselves.
 */
static bool beyond_boot_noise(const struct bf_cmp_row *r, const struct agg *A,
			      const struct agg *B)
{
	double x, gap, spread;

	if (!(A->min > 0 && B->min > 0))
		return false;
	x = r->bad == BF_CMP_LOWER ? A->mean / B->mean : B->mean / A->mean;
	gap = r->bad == BF_CMP_LOWER ? A->min / B->max : B->min / A->max;
	spread = fmax(A->max / A->min, B->max / B->min);
	return x >= BF_CMP_BOOT_FACTOR && gap > spread;
}

void bf_cmp_judge(struct bf_cmp_row *r)
{
	struct agg A = aggregate(&r->a), B = aggregate(&r->b);
	const char *units;
	struct noise nz;
	double d, w;
	char more[96], tw[48];

	r->na = A.n;
	r->nb = B.n;
	r->ma = A.mean;
	r->mb = B.mean;
	r->t = NAN;
	r->nospread = false;
	r->noise = BF_CMP_BY_RUNS;
	r->runs = 0;
	r->why[0] = '\0';
	r->change = 0;
	if (!A.n || !B.n) {
		r->verdict = BF_CMP_NA;
		return;
	}
	r->sa = A.sd;
	r->sb = B.sd;
	d = B.mean - A.mean;
	if (A.mean != 0)
		r->change = d / fabs(A.mean);
	else if (d != 0)
		r->change = INFINITY;
	w = r->bad == BF_CMP_LOWER ? -d : d;	/* > 0: B is worse */
	if (r->bad == BF_CMP_NEITHER) {
		/* neither better nor worse, but a change is no "same" */
		weigh(r, &A, &B, &nz);
		r->noise = nz.by;
		r->verdict = BF_CMP_SAME;
		if (fabs(r->change) >= fmax(r->rel_min, BF_CMP_DIFFERS_MIN) &&
		    (!(nz.se > 0) || fabs(d) / nz.se > nz.tcrit))
			r->verdict = BF_CMP_DIFFERS;
		return;
	}
	if (r->kind == BF_CMP_COUNT) {
		judge_count(r, &A, &B, w);
		return;
	}
	weigh(r, &A, &B, &nz);
	r->noise = nz.by;
	if (r->kind == BF_CMP_EXTREME && nz.by == BF_CMP_BY_WITHIN) {
		/* no noise to weigh one maximum against: tenfold or nothing */
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
	if (nz.se > 0) {
		r->t = w / nz.se;
	} else {
		r->nospread = true;
		r->t = NAN;
	}
	units = nz.by == BF_CMP_BY_BOOTS ? "boots" : "runs";
	t_words(tw, sizeof(tw), r, units);
	if (w < 0) {
		r->verdict = r->nospread || -r->t > nz.tcrit ? BF_CMP_BETTER :
			     BF_CMP_SAME;
		return;
	}
	if (r->nospread || r->t > nz.tcrit) {
		if (nz.by != BF_CMP_BY_ONE_BOOT) {
			r->verdict = BF_CMP_WORSE;
			snprintf(more, sizeof(more), "%s%s", tw,
				 nz.by == BF_CMP_BY_BOOTS ? ", over boots" : "");
			say(r, more);
			return;
		}
		if (beyond_boot_noise(r, &A, &B)) {
			r->verdict = BF_CMP_WORSE;
			snprintf(more, sizeof(more), "%s, beyond any boot noise",
				 tw);
			say(r, more);
			return;
		}
		r->verdict = BF_CMP_UNSURE;
		snprintf(more, sizeof(more), "%s, one boot a side: boot noise unknown",
			 tw);
		say(r, more);
		return;
	}
	r->verdict = BF_CMP_UNSURE;
	r->runs = nz.by == BF_CMP_BY_ONE_BOOT ? 0 :
		  runs_needed(r->t, nz.ua, nz.ub);
	snprintf(more, sizeof(more), "%s, within the spread%s", tw,
		 nz.by == BF_CMP_BY_BOOTS ? " between boots" :
		 nz.by == BF_CMP_BY_ONE_BOOT ? ", one boot a side" : "");
	say(r, more);
}

static bool settles_before(const struct bf_cmp_row *x,
			   const struct bf_cmp_row *best)
{
	if (x->verdict != BF_CMP_UNSURE || !x->runs)
		return false;
	return !best || x->runs < best->runs;
}

const struct bf_cmp_row *bf_cmp_first_to_settle(const struct bf_cmp_row *r,
						size_t n)
{
	const struct bf_cmp_row *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (settles_before(&r[i], best))
			best = &r[i];
	return best;
}

enum bf_cmp_verdict bf_cmp_overall(const struct bf_cmp_row *r, size_t n,
				   unsigned int *runs)
{
	const struct bf_cmp_row *first = bf_cmp_first_to_settle(r, n);
	enum bf_cmp_verdict v = BF_CMP_SAME;
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].verdict == BF_CMP_WORSE)
			v = BF_CMP_WORSE;
		else if (r[i].verdict == BF_CMP_UNSURE && v != BF_CMP_WORSE)
			v = BF_CMP_UNSURE;
	}
	*runs = first ? first->runs : 0;
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
