/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Experiments that ask the drive for the cause of its floor, behind a
 * small drive interface: the CLI drives a real device through blkfloor
 * runs (realdrive.c), the unit tests a simulated one (tests/simdrive.c).
 *
 * All start with the drive on its floor (after a sustained write), and
 * each is a trial: an idle gap, then a probe write that stops once the
 * floor is back; the bytes it wrote at the high rate are what the gap
 * gave back.
 * - idle recovery: a probe at once (no idle: what the floor itself gives
 *   at the high rate), then idle gaps of growing length. A cache (or a
 *   cooled controller) recovers with idle time; a starved FTL recovers
 *   little without TRIM. A recovery already complete after the shortest
 *   gap is a recovery; shorter gaps then measure its rate.
 * - cool-down: what ends the high rate, bytes or time: the longest gap
 *   again, then a probe capped below the high rate. A cache relapses after
 *   the same number of bytes; heat, with less power going in, after many
 *   more bytes or not at all. Where the step is too small to cap between
 *   floor and high rate, the probe writes the bytes the uncapped one held
 *   at a cap under the floor first, then at full speed: a cache has used
 *   itself up by then, a drive that heats has cooled meanwhile and still
 *   runs fast. The temperature, where readable, is reported beside it.
 * - TRIM retest (opt-in): discard the written region, idle, write again;
 *   the rate back near the peak for far more bytes than idle alone gave
 *   confirms a starved FTL.
 *
 * The judgement of trials is one implementation whether they were just
 * run (bf_diagnose()) or read back from a trace (bf_diag_from_trials()).
 */
#ifndef BLKFLOOR_EXPERIMENT_H
#define BLKFLOOR_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "classify.h"
#include "evidence.h"
#include "trial.h"

/* One write of an experiment. */
struct bf_probe {
	double bytes;		/* at most this many bytes (0: no limit) */
	double secs;		/* at most this long (0: no limit) */
	double cap_mbps;	/* rate cap (0: none) */
	double cap_bytes;	/* the cap holds for these first bytes only,
				 * then the write goes on uncapped (0: the
				 * cap holds for the whole write) */
	double stop_below;	/* stop once the rate stayed under this, MB/s */
	double stop_hold_s;	/* ... for this long (0: never stop early);
				 * watched past @cap_bytes only */
};

/*
 * What an experiment needs of a drive. Every call returns 0 or a negative
 * errno; -EOPNOTSUPP from @discard: discard does not reach the drive.
 */
struct bf_drive {
	/* write sequentially on from where the last write ended, one sample
	 * per measurement interval appended to @out */
	int (*write)(void *ctx, const struct bf_probe *p, struct bf_series *out);
	/* idle t->gap_s seconds (0: none) before the probe @t describes */
	int (*idle)(void *ctx, const struct bf_trial *t);
	int (*discard)(void *ctx);
	/* the drive's temperature, °C; -ENODATA where not readable */
	int (*temp)(void *ctx, double *c);
	/* an experiment's progress line (may be NULL) */
	void (*note)(void *ctx, const char *line);
	void *ctx;
};

#define BF_DIAG_MAX_GAPS	6
/* the configured gaps, the shorter ones added, the probe at once */
#define BF_DIAG_MAX_TRIALS	(BF_DIAG_MAX_GAPS + 3)

struct bf_diag_cfg {
	double hi_mbps;		/* the high rate (the curve's peak) */
	double lo_mbps;		/* the floor */
	double gaps_s[BF_DIAG_MAX_GAPS];	/* growing idle gaps */
	size_t ngaps;
	bool no_short;		/* do not add shorter gaps after a recovery
				 * complete within the shortest */
	double probe_bytes;	/* a probe's budget in bytes ... */
	double probe_s;		/* ... and in seconds */
	double hold_s;		/* the floor is back after this long under
				 * the threshold (three intervals) */
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

/* One trial and what its probe held. */
struct bf_gap {
	struct bf_trial trial;
	double held_bytes, held_s;	/* at the high rate (past the cap) */
	bool relapsed;			/* the floor came back in the probe */
	double bytes, secs;		/* the probe's, the idle not included */
	bool have_temp;
	double temp_before, temp_after;	/* °C: before and after the idle */
};

struct bf_diag {
	struct bf_gap gap[BF_DIAG_MAX_TRIALS];	/* idle recovery, by gap */
	size_t ngaps;
	bool have_base;			/* a probe at once among them */
	double threshold;		/* MB/s between floor and high rate */
	double refill_per_min;		/* bytes per idle minute, 0: none */
	bool refill_at_least;		/* ... a lower bound */
	double complete_s;		/* the shortest gap that gave it all */
	bool recovers;
	bool have_capped, have_trim;
	double cap_mbps;		/* the cool-down probe's cap */
	struct bf_gap capped;		/* the cool-down probe */
	struct bf_gap trimmed;		/* the TRIM retest's probe */
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
 * The same judgement of trials already run: @t[i] and the samples of its
 * probe, @s[first[i]] .. @s[first[i + 1]] (@first has @n + 1 entries).
 * The probes' temperatures are not known. Returns 0 or -EINVAL (no step
 * to probe, or no trial to judge).
 */
int bf_diag_from_trials(const struct bf_diag_cfg *cfg,
			const struct bf_trial *t, size_t n,
			const struct bf_sample *s, const size_t *first,
			struct bf_diag *d);

/*
 * A recorded diagnose: @s[0..n) holds the sustained write and then the
 * probes, and trial i began (its idle line) @at_s[i] seconds into the run
 * (in time order). Each probe's first sample goes to @first[i] (its
 * samples start at or after @at_s[i]), @first[@nt] = @n; returns the
 * number of samples of the sustained write (those that start before
 * @at_s[0]).
 */
size_t bf_trials_split(const struct bf_sample *s, size_t n,
		       const double *at_s, size_t nt, size_t *first);

/*
 * The trials of a recorded diagnose judged as bf_diagnose() judges them,
 * against @r, the classification of its sustained write: its peak, floor
 * and floor burst (bf_diag_cfg_from_report()), the floor back after
 * three of @iv_s intervals. Returns 0 or -EINVAL.
 */
int bf_diag_recorded(const struct bf_report *r, double iv_s,
		     const struct bf_trial *t, size_t nt,
		     const struct bf_sample *s, const size_t *first,
		     struct bf_diag *d);

/*
 * The bytes and seconds at the high rate before the floor came back in
 * the probe @s[0..n) (a run of @hold_s under @threshold). Pure helper.
 */
bool bf_probe_held(const struct bf_sample *s, size_t n, double threshold,
		   double hold_s, double *bytes, double *secs);

#endif /* BLKFLOOR_EXPERIMENT_H */
