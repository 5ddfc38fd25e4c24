/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier's working state and tuning, shared between its stages
 * (not an interface: classify.h is). segment.c finds the plateaus
 * (segment.h), features.c measures them (feature.h: <features.h> is glibc's), verdict.c names the
 * cause and fills the report (verdict.h), explain.c words it (explain.h).
 */
#ifndef BLKFLOOR_CLASSIFY_INT_H
#define BLKFLOOR_CLASSIFY_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "curve.h"
#include "classify_report.h"

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

#define BF_CLIFF_BIG	0.9163	/* ln(2.5): a first step this deep is a cache */
#define BF_GC_DEPTH	1.3863	/* ln(4): switching this deep is GC, not heat */
#define BF_NEVER_HEAT	1.6094	/* ln(5): one step this deep is never heat */
#define BF_MIN_ACTIVE	10	/* fewer samples cannot tell a step from noise */
#define BF_MIN_SIDE	2	/* samples needed on each side of a step */
#define BF_STALL_REL	0.02	/* a stall: under 2 % of the upper quartile */
#define BF_STALL_MIN_S	1.0	/* ... for at least a second */
#define BF_LONG_SEG	0.05	/* a plateau that counts: 5 % of the run */
#define BF_BURST_SHARE	0.25	/* bursts near the peak: under 25 % of the floor */

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

#endif
