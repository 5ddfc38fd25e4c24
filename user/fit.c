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
