/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Experiments that ask the drive for the cause of its floor, behind a
 * small drive interface: the CLI drives a real device through blkfloor
 * runs (diagnose.c), the unit tests a simulated one (tests/simdrive.c).
 *
 * All start with the drive on its floor (after a sustained write):
 * - idle recovery: idle gaps of growing length, each followed by a probe
 *   write that stops once the floor is back; the bytes written at the high
 *   rate against the gap give a refill rate per idle minute, or none. A
 *   cache (or a cooled controller) recovers with idle time; a starved FTL
 *   recovers little without TRIM.
 * - cool-down: what ends the high rate after the longest gap, bytes or
 *   time: the same gap again, with a probe capped below the high rate. A
 *   cache relapses after the same number of bytes; heat, with less power
 *   going in, after many more bytes or not at all. The temperature, where
 *   readable, is reported beside it.
 * - TRIM retest (opt-in): discard the written region, idle, write again;
 *   the rate back near the peak for far more bytes than idle alone gave
 *   confirms a starved FTL.
 */
#ifndef BLKFLOOR_EXPERIMENT_H
#define BLKFLOOR_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "classify.h"
#include "evidence.h"

/* One write of an experiment. */
struct bf_probe {
	double bytes;		/* at most this many bytes (0: no limit) */
	double secs;		/* at most this long (0: no limit) */
	double cap_mbps;	/* rate cap (0: none) */
	double stop_below;	/* stop once the rate stayed under this, MB/s */
	double stop_hold_s;	/* ... for this long (0: never stop early) */
};

/*
 * What an experiment needs of a drive. Every call returns 0 or a negative
 * errno; -EOPNOTSUPP from @discard: discard does not reach the drive.
 */
struct bf_drive {
	/* write sequentially on from where the last write ended, one sample
	 * per measurement interval appended to @out */
	int (*write)(void *ctx, const struct bf_probe *p, struct bf_series *out);
	int (*idle)(void *ctx, double secs);
	int (*discard)(void *ctx);
	/* the drive's temperature, °C; -ENODATA where not readable */
	int (*temp)(void *ctx, double *c);
	/* an experiment's progress or result line (may be NULL) */
	void (*note)(void *ctx, const char *line);
	void *ctx;
};

#define BF_DIAG_MAX_GAPS	6

struct bf_diag_cfg {
	double hi_mbps;		/* the high rate (the curve's peak) */
	double lo_mbps;		/* the floor */
	double gaps_s[BF_DIAG_MAX_GAPS];	/* growing idle gaps */
	size_t ngaps;
	double probe_bytes;	/* a probe's budget in bytes ... */
	double probe_s;		/* ... and in seconds */
	double hold_s;		/* the floor is back after this long under
				 * the threshold */
	bool trim;		/* run the TRIM retest */
	/*
	 * What the floor gives at the high rate without any idle: a floor
	 * that switches levels (garbage collection, a cycling throttle)
	 * holds its upper level for about this many bytes each cycle. A
	 * probe must hold more than 1.5 times that for idle recovery (0:
	 * a steady floor).
	 */
	double floor_burst_bytes;
};

/* One idle gap and the probe after it. */
struct bf_gap {
	double gap_s;
	double held_bytes, held_s;	/* at the high rate after the gap */
	bool relapsed;			/* the floor came back in the probe */
	bool have_temp;
	double temp_before, temp_after;	/* °C: before and after the idle */
};

struct bf_diag {
	struct bf_gap gap[BF_DIAG_MAX_GAPS];
	size_t ngaps;
	double threshold;		/* MB/s between floor and high rate */
	double refill_per_min;		/* bytes per idle minute, 0: none */
	bool recovers;
	double cap_mbps;		/* the cool-down probe's cap */
	struct bf_gap capped;		/* the cool-down probe */
	double trim_held;		/* bytes at the high rate after TRIM */
	struct bf_evidence ev[BF_EXP_COUNT];
	size_t nev;
	double bytes, secs;		/* the whole cost */
};

/* Defaults from the curve's high rate and floor. */
void bf_diag_cfg_init(struct bf_diag_cfg *cfg, double hi_mbps, double lo_mbps,
		      double cache_bytes);

/*
 * bf_diag_cfg_init() from a sustained write's report: its peak, floor and
 * cache, and the bytes its floor gives at the high rate per cycle when it
 * switches (the floor's period, or the curve's cycle, times the share of
 * time in the upper level, at the peak rate: an upper bound).
 */
void bf_diag_cfg_from_report(struct bf_diag_cfg *cfg,
			     const struct bf_report *r);

/*
 * Run the experiments on @drv. The evidence in d->ev goes to
 * bf_report_apply_evidence(). Returns 0, -EINVAL (no step to probe: the
 * high rate is not clearly above the floor) or the drive's error.
 */
int bf_diagnose(const struct bf_drive *drv, const struct bf_diag_cfg *cfg,
		struct bf_diag *d);

/*
 * The bytes and seconds at the high rate before the floor came back in
 * the probe @s[0..n) (a run of @hold_s under @threshold). Pure helper.
 */
bool bf_probe_held(const struct bf_sample *s, size_t n, double threshold,
		   double hold_s, double *bytes, double *secs);

#endif /* BLKFLOOR_EXPERIMENT_H */
