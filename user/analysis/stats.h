/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Order statistics and moments of a vector (stats.c), shared by the
 * classifier and the classify/plot/compare/predict commands.
 */
#ifndef BLKFLOOR_STATS_H
#define BLKFLOOR_STATS_H

#include <stddef.h>

/* k-th smallest / median of v[0..n); both reorder v. */
double bf_select(double *v, size_t n, size_t k);
double bf_median(double *v, size_t n);
/* The one standard deviation (sample, n - 1) of v[0..n); mean if not NULL. */
double bf_mean_sd(const double *v, size_t n, double *mean);
/* The median of three. */
double bf_med3(double a, double b, double c);

#endif /* BLKFLOOR_STATS_H */
