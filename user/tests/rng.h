/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test curve generators share: random numbers (splitmix64, so
 * that a seed gives the same curve on every machine) and the list of
 * phases (start time, rate) a curve is made of.
 */
#ifndef BLKFLOOR_TESTS_RNG_H
#define BLKFLOOR_TESTS_RNG_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

struct rng { uint64_t s; };

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double rng_unif(struct rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

/* standard normal (Box-Muller) */
static inline double rng_norm(struct rng *r)
{
	double u = rng_unif(r), v = rng_unif(r);

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A curve as phases: from t0[i] on, the rate is rate[i]. */
struct phases {
	double *t0, *rate;
	size_t n, cap;
};

static inline int ph_add(struct phases *p, double t0, double rate)
{
	size_t c1 = p->cap, c2 = p->cap;
	double *a, *b;

	a = bf_grow(p->t0, &c1, p->n + 1, sizeof(*a), 64);
	if (!a)
		return -ENOMEM;
	p->t0 = a;
	b = bf_grow(p->rate, &c2, p->n + 1, sizeof(*b), 64);
	if (!b)
		return -ENOMEM;
	p->rate = b;
	p->cap = c1;
	p->t0[p->n] = t0;
	p->rate[p->n] = rate;
	p->n++;
	return 0;
}

#endif /* BLKFLOOR_TESTS_RNG_H */
