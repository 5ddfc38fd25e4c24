// SPDX-License-Identifier: GPL-2.0
/*
 * Ordinary least squares on (x, y) pairs.
 */
#include <errno.h>

#include "fit.h"

int bf_fit_linear(const double *x, const double *y, size_t n,
		  struct bf_fit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, ss_res = 0;
	size_t i;

	if (n < 2)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx == 0)
		return -EINVAL;
	f->slope = sxy / sxx;
	f->intercept = my - f->slope * mx;
	for (i = 0; i < n; i++) {
		double r = y[i] - (f->intercept + f->slope * x[i]);

		ss_res += r * r;
	}
	f->r2 = syy > 0 ? 1.0 - ss_res / syy : 1.0;
	return 0;
}

size_t bf_rate_per_chunk(const double *bytes, const double *seconds, size_t n,
			 double chunk, double *out, size_t max)
{
	double filled = 0, t = 0;
	size_t i, k = 0;

	if (chunk <= 0)
		return 0;
	for (i = 0; i < n && k < max; i++) {
		double b = bytes[i], s = seconds[i];

		if (b <= 0) {
			t += s;		/* a stall counts against the chunk */
			continue;
		}
		while (b > 0 && k < max) {
			double take = b < chunk - filled ? b : chunk - filled;
			double dt = s * take / bytes[i];

			filled += take;
			t += dt;
			b -= take;
			if (filled >= chunk * (1 - 1e-12)) {
				out[k++] = t > 0 ? filled / t / 1e6 : 0;
				filled = 0;
				t = 0;
			}
		}
	}
	if (filled > 0 && k < max)
		out[k++] = t > 0 ? filled / t / 1e6 : 0;
	return k;
}

double bf_tail_rate(const double *bytes, const double *seconds, size_t n,
		    double tail)
{
	double b = 0, t = 0;
	size_t i = n;

	while (i > 0 && b < tail) {
		double take, bi = bytes[i - 1], si = seconds[i - 1];

		i--;
		if (bi <= 0) {
			t += si;
			continue;
		}
		take = bi < tail - b ? bi : tail - b;
		b += take;
		t += si * take / bi;
	}
	return t > 0 ? b / t / 1e6 : 0;
}

/* Median of the @n values of the sorted @v. */
static double sorted_median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bf_knee(const double *iops, size_t n, double frac)
{
	double sorted[BF_KNEE_MAX];
	size_t i, j;

	if (n > BF_KNEE_MAX)
		n = BF_KNEE_MAX;
	for (i = 0; i < n; i++) {
		if (i > 0) {
			double limit = frac * sorted_median(sorted, i);

			for (j = i; j < n && iops[j] < limit; j++)
				;
			if (j == n)
				return (int)i;
		}
		/* insert iops[i] into the sorted prefix */
		for (j = i; j > 0 && sorted[j - 1] > iops[i]; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = iops[i];
	}
	return -1;
}
