/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A simulated drive for the experiments' tests (analysis/experiment.c),
 * stepped in 50 ms and measured in intervals of @iv_s:
 * - an SLC cache of @cache_bytes that writes at @hi and then at @lo, and
 *   refills while idle at @refill_bps;
 * - heat: dT/dt = @heat_k * rate (MB/s) - (T - @ambient) / @tau_s; the
 *   throttle (rate at most @thr_mbps) engages at @t_hot and releases at
 *   @t_cool (hysteresis);
 * - a starved FTL: at most @lo until a discard, then @hi for @clean_bytes,
 *   and back to @lo when those are used; with @gc_mbps, the starved rate
 *   switches between @lo and @gc_mbps every @gc_period_s of writing;
 * - multiplicative noise @noise (uniform +-) per interval.
 * Any mix of the three; the rate is the least of what they allow.
 */
#ifndef BLKFLOOR_SIMDRIVE_H
#define BLKFLOOR_SIMDRIVE_H

#include <stdbool.h>

#include "experiment.h"
#include "rng.h"
#include "sustain.h"

struct simdrive {
	double hi, lo, iv_s, noise;
	/* cache */
	bool cache;
	double cache_bytes, used, refill_bps;
	/* heat */
	bool heat, throttled, temp_readable;
	double temp, ambient, heat_k, tau_s, t_hot, t_cool, thr_mbps;
	/* FTL */
	bool ftl, discard_ok;
	double clean_bytes, clean_left, gc_mbps, gc_period_s, wtime;
	/* state */
	double t, written, idle_total;
	unsigned int discards;
	struct rng rng;
};

void sim_init(struct simdrive *d, double hi, double lo, uint64_t seed);
/* The bf_drive whose callbacks drive @d. */
void sim_ops(struct simdrive *d, struct bf_drive *drv);
/* Write @secs at full speed (a sustain that reaches the floor). */
void sim_sustain(struct simdrive *d, double secs, struct bf_series *out);
/*
 * A sustain over @region bytes as a blkfloor run makes it: every interval
 * goes to @s (sustain.c), whose stop ends the write, as the runner's
 * watch does; the region's end ends it otherwise (the last interval is
 * short). The curve is appended to @out.
 */
int sim_run(struct simdrive *d, double region, struct bf_sustain *s,
	    struct bf_series *out);

#endif /* BLKFLOOR_SIMDRIVE_H */
