/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of compare: one row per figure (a rate, a latency, a
 * count), one value per run on each side, and a verdict that weighs the
 * difference of the sides against the noise it has to beat. Pure
 * computation.
 *
 * Levels (rates, latencies): the relative difference of the means, in the
 * row's bad direction, must reach the row's smallest effect (@rel_min)
 * and be beyond the noise: Student's t against the one-sided 99 %
 * quantile for its degrees of freedom. Which noise depends on the boots
 * the runs come from, for figures that move with the host's load (@load:
 * rates and latency; a TCG guest booted again can run at half the rate):
 *  - A and B in the same boots (a module swapped in between): the spread
 *    between runs within each boot and side, the boots' own levels taken
 *    out (one boot: the pooled run-to-run spread);
 *  - A and B in boots of their own, several boots on a side: the boots
 *    are the units, each a mean of its runs, weighed by the spread
 *    between the boots;
 *  - one boot a side: the boot-to-boot noise is unknown, and a
 *    difference that passes on the runs is inconclusive unless it is
 *    beyond any noise the runs show (BF_CMP_BOOT_FACTOR, and every B run
 *    worse than every A run by more than the runs of a side differ).
 * With one run per side and no boots to weigh, the within-run standard
 * errors decide, |t| > 3. A relevant difference that is not beyond the
 * noise is inconclusive, with the runs (or boots) per side that would
 * make the same difference conclusive (t grows with the square root of
 * their number). A maximum has no within-run noise: with one run per side
 * only a tenfold one counts. Figures that do not move with the load (the
 * path's requests per bio) are judged on the runs, whatever their boots.
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
/*
 * One boot a side: the factor a load-bound figure must change by to be a
 * regression all the same. The largest change between two boots of one
 * build seen on the TCG rig was 3.2x (a p99); ten leaves room.
 */
#define BF_CMP_BOOT_FACTOR	10.0

enum bf_cmp_kind { BF_CMP_LEVEL, BF_CMP_EXTREME, BF_CMP_COUNT };
/* which way B is worse */
enum bf_cmp_bad { BF_CMP_LOWER, BF_CMP_HIGHER, BF_CMP_NEITHER };
/*
 * BF_CMP_DIFFERS: a row that is neither better nor worse (the cache's
 * size) changed beyond its noise: said, never a regression.
 */
#define BF_CMP_DIFFERS_MIN	0.10	/* the least change it says */
enum bf_cmp_verdict { BF_CMP_NA, BF_CMP_SAME, BF_CMP_BETTER, BF_CMP_WORSE,
		      BF_CMP_UNSURE, BF_CMP_DIFFERS };

struct bf_cmp_side {
	double v[BF_CMP_RUNS];	/* one value per run (NAN: not measured) */
	double se[BF_CMP_RUNS];	/* its standard error within the run, or 0 */
	int boot[BF_CMP_RUNS];	/* the run's boot, numbered over both sides */
	size_t n;
};

/* which noise a level row was weighed against */
enum bf_cmp_noise {
	BF_CMP_BY_RUNS,		/* the runs (one shared boot, or no @load) */
	BF_CMP_BY_SHARED,	/* runs within boots that hold A and B */
	BF_CMP_BY_BOOTS,	/* the boots' means */
	BF_CMP_BY_ONE_BOOT,	/* one boot a side: boot noise unknown */
	BF_CMP_BY_WITHIN,	/* one run a side: the noise within them */
};

struct bf_cmp_row {
	/* in */
	const char *name, *unit;
	enum bf_cmp_kind kind;
	enum bf_cmp_bad bad;
	double rel_min;		/* smallest relative change that matters */
	bool any;		/* counts: one B run above A's worst is worse */
	bool load;		/* moves with the host's load: boots matter */
	struct bf_cmp_side a, b;
	/* out */
	size_t na, nb;		/* runs that measured it */
	double ma, mb;		/* means over those runs */
	double sa, sb;		/* run-to-run standard deviations (0: one run) */
	double change;		/* (mb - ma) / ma; INFINITY from zero */
	double t;		/* in the bad direction; NAN for counts and
				 * where there is no spread (@nospread) */
	bool nospread;		/* every value of a side the same */
	enum bf_cmp_noise noise;
	/*
	 * BF_CMP_UNSURE: runs per side to settle it (boots per side with
	 * BF_CMP_BY_BOOTS; 0 with BF_CMP_BY_ONE_BOOT: more boots, not runs)
	 */
	unsigned int runs;
	enum bf_cmp_verdict verdict;
	char why[128];		/* WORSE, UNSURE: the difference, with its size */
};

/* Fill the outputs of @r from its inputs. */
void bf_cmp_judge(struct bf_cmp_row *r);

/*
 * The verdict over @n judged rows: WORSE if any is, else UNSURE if any is
 * (@runs: the fewest runs any of them asks for, the row that would settle
 * first; 0 when every one asks for boots, not runs), else SAME.
 */
enum bf_cmp_verdict bf_cmp_overall(const struct bf_cmp_row *r, size_t n,
				   unsigned int *runs);
/* The row bf_cmp_overall() took @runs from, or NULL. */
const struct bf_cmp_row *bf_cmp_first_to_settle(const struct bf_cmp_row *r,
						size_t n);

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
