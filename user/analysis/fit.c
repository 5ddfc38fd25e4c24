// SPDX-License-Identifier: GPL-2.0
/*
 * Ordinary least squares on (x, y) pairs.
 */
#include <errno.h>

#include "cmpstat.h"
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

int bf_knee(const double *iops, size_t n, double frac)
{
	size_t i, j;
	double se;

	for (i = 1; i < n; i++) {
		/* (NAN if it cannot be had: no point is below it, no knee) */
		double limit = frac * bf_cmp_median(iops, i, &se);

		for (j = i; j < n && iops[j] < limit; j++)
			;
		if (j == n)
			return (int)i;
	}
	return -1;
}
