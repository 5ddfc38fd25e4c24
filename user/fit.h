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

#endif /* BLKFLOOR_FIT_H */
