// SPDX-License-Identifier: GPL-2.0
/*
 * Order statistics and moments of a vector: see stats.h.
 */
#include <math.h>

#include "stats.h"

static void swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* k-th smallest of v[0..n), reorders v; O(n) expected. */
double bf_select(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swapd(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Sample standard deviation (n - 1) of v[0..n); the mean in *@mean. */
double bf_mean_sd(const double *v, size_t n, double *mean)
{
	double m = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += v[i];
	m = n ? m / n : 0;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	if (mean)
		*mean = m;
	return n > 1 ? sqrt(ss / (n - 1)) : 0;
}

/* Median of v[0..n), reorders v. */
double bf_median(double *v, size_t n)
{
	double a, b;

	if (!n)
		return NAN;
	a = bf_select(v, n, n / 2);
	if (n & 1)
		return a;
	b = bf_select(v, n / 2, n / 2 - 1);
	return (a + b) / 2;
}

/* The median of three. */
double bf_med3(double a, double b, double c)
{
	if (a > b)
		swapd(&a, &b);
	if (b > c)
		swapd(&b, &c);
	return a > b ? a : b;
}
