/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test generators' random numbers: splitmix64, so that a seed gives
 * the same curve on every machine.
 */
#ifndef BLKFLOOR_TESTS_RNG_H
#define BLKFLOOR_TESTS_RNG_H

#include <math.h>
#include <stdint.h>

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

#endif /* BLKFLOOR_TESTS_RNG_H */
