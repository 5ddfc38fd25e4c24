// SPDX-License-Identifier: GPL-2.0
/*
 * Time left from the recent rate (see eta.h).
 */
#include <math.h>
#include <string.h>

#include "eta.h"

void bf_eta_init(struct bf_eta *e)
{
	memset(e, 0, sizeof(*e));
}

/* Move @avg toward @v by the weight @dt seconds carry against @tau. */
static double ewma(double avg, double v, double dt, double tau)
{
	return avg + (v - avg) * (1 - exp(-dt / tau));
}

void bf_eta_add(struct bf_eta *e, double dt_s, double bytes)
{
	double r;

	if (!(dt_s > 0) || bytes < 0)
		return;
	r = bytes / dt_s;
	if (!e->n) {
		e->fast = e->slow = r;
	} else {
		e->fast = ewma(e->fast, r, dt_s, BF_ETA_FAST_S);
		e->slow = ewma(e->slow, r, dt_s, BF_ETA_SLOW_S);
	}
	e->seen_s += dt_s;
	e->n++;
}

double bf_eta_rate(const struct bf_eta *e)
{
	if (e->n < BF_ETA_MIN_N || e->seen_s < BF_ETA_MIN_S)
		return -1;
	if (!(e->slow > 0) || !(e->fast > 0))
		return -1;
	if (fabs(e->fast - e->slow) > BF_ETA_AGREE * e->slow)
		return -1;
	return e->slow;
}

double bf_eta_seconds(const struct bf_eta *e, double left_bytes)
{
	double r;

	if (left_bytes <= 0)
		return 0;
	r = bf_eta_rate(e);
	return r > 0 ? left_bytes / r : -1;
}
