/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least-squares fit of time per request against request size:
 * t = overhead + size / bandwidth. Pure code.
 */
#ifndef BLKFLOOR_FIT_H
#define BLKFLOOR_FIT_H

#include <stddef.h>

struct bf_fit {
	double intercept;	/* seconds: per-command overhead */
	double slope;		/* seconds per byte */
	double r2;		/* coefficient of determination */
};

/* Returns 0, or -EINVAL for fewer than two points or all x equal. */
int bf_fit_linear(const double *x, const double *y, size_t n,
		  struct bf_fit *f);

/*
 * Curves: one sample per interval, @bytes completed and @seconds taken.
 *
 * bf_rate_per_chunk: rate (MB/s) over each consecutive @chunk bytes written,
 * bytes of an interval spread evenly over its time; a final partial chunk is
 * included. Returns the number of rates written to @out (at most @max).
 */
size_t bf_rate_per_chunk(const double *bytes, const double *seconds, size_t n,
			 double chunk, double *out, size_t max);
/* Rate (MB/s) over the last @tail bytes of the curve (0 if no time). */
double bf_tail_rate(const double *bytes, const double *seconds, size_t n,
		    double tail);
/*
 * Knee of a working-set sweep: the first point whose IOPS, and those of
 * every point after it, fall below @frac times the median of the points
 * before it; -1 if none. The median, not the best, so that one set that
 * ran fast (a burst credit, a cache warmed by the set before) does not
 * make the rest a knee; every later point, so that one slow set the next
 * climb back from does not either.
 */
int bf_knee(const double *iops, size_t n, double frac);

#endif /* BLKFLOOR_FIT_H */
