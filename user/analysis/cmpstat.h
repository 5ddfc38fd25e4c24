/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of compare: one row per figure (a rate, a latency, a
 * count), one value per run on each side, and a verdict that weighs the
 * difference of the sides against the spread between runs (or, with one
 * run per side, the noise within the run). Pure computation.
 *
 * Levels (rates, latencies): the difference of the means over the runs,
 * in the row's bad direction, must reach the row's smallest relevant
 * change (@rel_min) and be beyond the spread: Student's t with the pooled
 * run-to-run standard deviation against the one-sided 99 % quantile for
 * its degrees of freedom, or, with one run on each side, the within-run
 * standard errors and |t| > 3. A relevant difference that is not beyond
 * the spread is inconclusive, with the runs per side that would make the
 * same difference conclusive (t grows with the square root of the runs).
 * A maximum has no within-run noise: with one run per side only a tenfold
 * one counts.
 * Counts (errors, events, failed runs): any B run above every A run is a
 * regression (@any), or, for counts that come and go (stalls), every B
 * run above every A run; between the two, inconclusive.
 */
#ifndef BLKFLOOR_CMPSTAT_H
#define BLKFLOOR_CMPSTAT_H

#include <stdbool.h>
#include <stddef.h>

#define BF_CMP_RUNS	16	/* runs per side */
#define BF_CMP_T_ONE	3.0	/* |t| for one run per side */
#define BF_CMP_MAX_RUNS	100	/* runs-needed estimates stop here */

enum bf_cmp_kind { BF_CMP_LEVEL, BF_CMP_EXTREME, BF_CMP_COUNT };
/* which way B is worse */
enum bf_cmp_bad { BF_CMP_LOWER, BF_CMP_HIGHER, BF_CMP_NEITHER };
enum bf_cmp_verdict { BF_CMP_NA, BF_CMP_SAME, BF_CMP_BETTER, BF_CMP_WORSE,
		      BF_CMP_UNSURE };

struct bf_cmp_side {
	double v[BF_CMP_RUNS];	/* one value per run (NAN: not measured) */
	double se[BF_CMP_RUNS];	/* its standard error within the run, or 0 */
	size_t n;
};

struct bf_cmp_row {
	/* in */
	const char *name, *unit;
	enum bf_cmp_kind kind;
	enum bf_cmp_bad bad;
	double rel_min;		/* smallest relative change that matters */
	bool any;		/* counts: one B run above A's worst is worse */
	struct bf_cmp_side a, b;
	/* out */
	size_t na, nb;		/* runs that measured it */
	double ma, mb;		/* means over those runs */
	double sa, sb;		/* run-to-run standard deviations (0: one run) */
	double change;		/* (mb - ma) / ma; INFINITY from zero */
	double t;		/* in the bad direction; NAN for counts */
	unsigned int runs;	/* BF_CMP_UNSURE: runs per side to settle it */
	enum bf_cmp_verdict verdict;
	char why[128];		/* WORSE, UNSURE: the difference, with its size */
};

/* Fill the outputs of @r from its inputs. */
void bf_cmp_judge(struct bf_cmp_row *r);

/*
 * The verdict over @n judged rows: WORSE if any is, else UNSURE if any is
 * (@runs: the most runs any of them asks for), else SAME.
 */
enum bf_cmp_verdict bf_cmp_overall(const struct bf_cmp_row *r, size_t n,
				   unsigned int *runs);

const char *bf_cmp_verdict_name(enum bf_cmp_verdict v);

/* One-sided 99 % quantile of Student's t with @df degrees of freedom. */
double bf_t99(unsigned int df);

/*
 * The standard errors of a run's figures, for one run per side.
 * Samples of a curve are autocorrelated: with lag-1 autocorrelation r of
 * the deviations, a mean has the variance of n (1 - r) / (1 + r)
 * independent samples (an AR(1) model).
 */
struct bf_sample;
struct bf_report;

/*
 * Mean of the sample rates in [first, last] and its standard error, the
 * noise being the deviations from the plateau each sample belongs to (a
 * step is the curve's shape, not noise).
 */
double bf_cmp_span(const struct bf_sample *s, const struct bf_report *r,
		   size_t first, size_t last, double *se);
/* The standard error of the highest (peak) or lowest (floor) plateau. */
double bf_cmp_plateau_se(const struct bf_sample *s, const struct bf_report *r,
			 bool highest);
/*
 * The median of @n values (NANs left out) and its standard error
 * (1.2533 sd / sqrt(effective n)); NAN when there are none. @v is not
 * changed.
 */
double bf_cmp_median(const double *v, size_t n, double *se);

#endif /* BLKFLOOR_CMPSTAT_H */
