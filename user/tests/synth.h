/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic throughput curves with known truth, for the classifier's tests,
 * its benchmark and the tests/tool_gen generator. Deterministic: the same
 * parameters (seed included) always give the same curve.
 */
#ifndef BLKFLOOR_SYNTH_H
#define BLKFLOOR_SYNTH_H

#include <stdint.h>
#include <stdio.h>

#include "classify.h"

enum bf_synth_kind {
	BF_SYN_STEADY,
	BF_SYN_STEADY_DIPS,	/* isolated one-sample dips */
	BF_SYN_CACHE,
	BF_SYN_CACHE_SHORT,	/* cache phase only a few samples long */
	BF_SYN_CACHE_BURSTS,	/* periodic short bursts after the cache */
	BF_SYN_CACHE_SMALL,	/* one 26 % step: 1,524 -> 1,132 MB/s */
	BF_SYN_THERMAL_STAGES,	/* 863 -> 700 -> 445 -> 195 -> 695 */
	BF_SYN_THERMAL_DOWN,	/* three stages down, no recovery */
	BF_SYN_THERMAL_SAW,	/* throttle and recover, 3 cycles */
	BF_SYN_THERMAL_CYCLE,	/* fast regular throttle cycle, 4..16 samples */
	BF_SYN_THERMAL_HOTSTART, /* fast at first, then such a cycle below */
	BF_SYN_FTL_ERRATIC,	/* two levels, random dwell, mean 3-4 samples */
	BF_SYN_FTL_FAST,	/* two levels, random dwell, mean 1.5 samples */
	BF_SYN_FTL_BACKWARDS,	/* slow, fast, slow */
	BF_SYN_FTL_SLOWFIRST,	/* slow, then fast */
	BF_SYN_CACHE_FLICKER,	/* a cache, then a floor flipping each sample */
	BF_SYN_NKINDS,
};

enum bf_synth_scale {
	BF_SYN_QEMU,		/* tens to hundreds of MB/s */
	BF_SYN_REAL,		/* the brief's magnitudes: 2,555 MB/s, 280 GB */
};

struct bf_synth_params {
	enum bf_synth_kind kind;
	enum bf_synth_scale scale;
	double noise;		/* relative sd of each sample */
	double dt;		/* sampling interval, s */
	size_t n;		/* samples */
	uint64_t seed;
};

struct bf_synth_truth {
	enum bf_class class;
	double peak_mbps, floor_mbps;
	double cache_bytes;	/* NAN unless cache exhaustion */
	double step_time_s;	/* NAN unless cache exhaustion */
	int recovered;		/* -1: either is acceptable */
	/* resolution: the smallest step (ln ratio) and plateau (s), or NAN */
	double min_step_log;
	double min_plateau_s;
	size_t min_n;		/* fewer samples cannot show the shape, or 0 */
	size_t min_n_levels;	/* fewer cannot show peak/floor (class only) */
};

const char *bf_synth_kind_name(enum bf_synth_kind k);
int bf_synth_kind_parse(const char *name);

/* Generate the curve into @ser (appended) and describe its truth. */
int bf_synth_gen(const struct bf_synth_params *p, struct bf_series *ser,
		 struct bf_synth_truth *truth);

/*
 * The test set: every kind at noise 2/5/10 %, sampling intervals of
 * 0.1/0.5/1/5 s, 50/300/2000 samples, both scales. Fills @p (if not NULL,
 * up to @max entries) and returns the size of the whole set.
 */
size_t bf_synth_set(struct bf_synth_params *p, size_t max);

enum bf_synth_format { BF_FMT_TRACE, BF_FMT_FIO, BF_FMT_CSV };

/* Write a curve in one of the three formats bf_series_load() reads. */
int bf_synth_write(FILE *f, const struct bf_series *ser,
		   enum bf_synth_format fmt, const char *comment);

#endif /* BLKFLOOR_SYNTH_H */
