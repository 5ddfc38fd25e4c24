/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adversarial curves for the classifier: the patterns real drives show and
 * the first method got wrong (Documentation/classification.rst, "Evaluation
 * corpus"). Each pattern is drawn with random magnitudes, step times and
 * durations from its seed, at several noise levels, sampling intervals and
 * lengths. Two disjoint sets: the tuning set (the method was adjusted on
 * it) and the held-aside set (other seeds, noise levels and intervals; only
 * measured, never tuned on).
 */
#ifndef BLKFLOOR_ADVGEN_H
#define BLKFLOOR_ADVGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "classify.h"

enum bf_adv_kind {
	BF_ADV_CACHE_DRIFT,	/* cliff, then a floor slowly sinking */
	BF_ADV_CACHE_STEP2,	/* cliff, then a small second step (folding) */
	BF_ADV_CACHE_MULTI,	/* SLC, direct-to-TLC, folding trough, partial
				 * recovery far below the peak */
	BF_ADV_CACHE_NOISY,	/* cliff to a DRAM-less floor jittering 20-40 % */
	BF_ADV_CACHE_BURSTS,	/* cliff, then periodic short bursts (SLC
				 * refreshed in the background) */
	BF_ADV_CACHE_SMALL,	/* one clean 1.2-1.45x step that holds */
	BF_ADV_CACHE_HANG,	/* cliff, then a hang of tens of seconds */
	BF_ADV_STEADY_WHITE,	/* flat, white noise 10-30 % */
	BF_ADV_STEADY_DIPS,	/* flat, isolated one-sample dips */
	BF_ADV_STEADY_LINEAR,	/* a hard disk: linear decline 1.5-2.2x */
	BF_ADV_STEADY_HANG_END,	/* flat, then zero for the last 10-30 s */
	BF_ADV_STEADY_HANG_MID,	/* flat with a hang of 10-40 s mid-run */
	BF_ADV_FTL_REGULAR,	/* fast N s, slow M s, repeated, 5-12x deep */
	BF_ADV_FTL_DIPS,	/* random dips to 5-30 % of the rate */
	BF_ADV_FTL_RANDOM,	/* two levels, random dwell */
	BF_ADV_THERMAL_STAIR,	/* 3-4 moderate time-driven steps down */
	BF_ADV_THERMAL_RECOVER,	/* moderate steps down, then back near peak */
	BF_ADV_THERMAL_CYCLE,	/* slow moderate cycle back to the peak */
	BF_ADV_UNCLEAR_TINY,	/* 4 samples: nothing can be told */
	BF_ADV_NKINDS,
};

struct bf_adv_params {
	enum bf_adv_kind kind;
	double noise;		/* relative sd of each sample */
	double dt;		/* sampling interval, s */
	double T;		/* length of the run, s */
	uint64_t seed;
};

struct bf_adv_truth {
	enum bf_class class;
	unsigned int stalls;	/* hangs of a second or more */
};

const char *bf_adv_kind_name(enum bf_adv_kind k);

/* Generate the curve into @ser (appended). */
int bf_adv_gen(const struct bf_adv_params *p, struct bf_series *ser,
	       struct bf_adv_truth *truth);

/*
 * The tuning set (@held false) or the held-aside set (@held true): fills
 * @p (up to @max entries, if not NULL) and returns the set's size.
 */
size_t bf_adv_set(struct bf_adv_params *p, size_t max, bool held);

#endif /* BLKFLOOR_ADVGEN_H */
