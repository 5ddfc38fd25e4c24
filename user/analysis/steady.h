/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a sustained write has seen enough: the floor after a step holds.
 *
 * Pure computation, fed one measurement interval at a time. The write is
 * cut into rounds of bytes, sized from the rate (a round is what the drive
 * writes in @round_s seconds at the rate its plateau started at). A round
 * whose mean rate leaves its plateau's level by more than @step_ratio is a
 * step (down or up) and starts a new plateau. After a step down, the floor
 * holds when, in the spirit of the SNIA PTS steady-state rule, the last
 * @rounds rounds of the plateau have a range within @range_rel of their
 * mean and a fitted line whose excursion over them is within
 * @excursion_rel of it, and at least a minimum has been written past the
 * last step: @min_past_rel of the bytes written before the first step (the
 * cache), so that a second tier (pSLC, then TLC, then folding) close
 * behind the first is not missed. Stalled intervals (under 2 % of the
 * level) are kept out of the rounds.
 *
 * The first round has no level to compare with: a step inside it (a cliff
 * a second in, heat that throttles a few seconds in) is found by splitting
 * its intervals where the two sides differ most.
 *
 * Heat steps down moderately (BF_STEADY_MODERATE) and after a time, and a
 * drive that heats can fall again minutes after a level looked steady:
 * after two or more moderate steps down, a level is the floor only once it
 * held longer than the stages before it (BF_STEADY_STAGE_HOLD), and after
 * moderate steps the stop says it may not have seen the floor.
 *
 * A floor that keeps switching (an FTL short of free blocks, a throttle
 * that cycles) never holds for five rounds: each switch is a step. It is
 * established instead once, past a step down and the minimum, the rate
 * has fallen to a low level and climbed back BF_STEADY_SWITCHES times
 * each, and the last BF_STEADY_SWITCHES low levels agree within
 * @range_rel of their mean: the floor is that low level, and the stop
 * says the rate switches.
 */
#ifndef BLKFLOOR_STEADY_H
#define BLKFLOOR_STEADY_H

#include <stdbool.h>
#include <stddef.h>

struct bf_steady_cfg {
	unsigned int rounds;	/* rounds in the window (5) */
	double range_rel;	/* (max - min) / mean at most this (0.20) */
	double excursion_rel;	/* fitted line's excursion / mean (0.10) */
	double round_s;		/* a round lasts this long at its rate (10) */
	double step_ratio;	/* a round this far off its level: step (1.2) */
	double min_past_rel;	/* past the last step: share of the cache (0.125) */
	double min_past_bytes;	/* and at least this many bytes (0) */
};

#define BF_STEADY_MAX_ROUNDS	16
/* an interval under this share of the level is a stall, not the floor */
#define BF_STEADY_STALL_REL	0.02
#define BF_STEADY_MAX_STEPS	8
/* falls and climbs after which a switching floor is established */
#define BF_STEADY_SWITCHES	4
/* a step down under this ratio is moderate: heat steps so, as a small
 * cache does */
#define BF_STEADY_MODERATE	2.5
/* after two or more moderate steps down (a staircase, as heat makes), a
 * level is the floor only once it held this many times as long as the
 * longest stage before it */
#define BF_STEADY_STAGE_HOLD	1.5
/* intervals of the first round kept to find a step inside it */
#define BF_STEADY_FIRST_MAX	64

struct bf_steady_step {
	double bytes;		/* bytes written before it */
	double time_s;		/* seconds from the start */
	double ratio;		/* level before / after (> 1: down) */
	double after_mbps;	/* the rate measured right after it */
};

struct bf_steady {
	struct bf_steady_cfg cfg;
	double bytes, secs;		/* written so far */
	double stalled;			/* seconds of stalls left out */
	/* the round being filled */
	double rb, rt;
	/* the current plateau */
	double plateau_bytes;		/* where it started */
	double round_bytes;		/* 0 until its first round sized it */
	double win[BF_STEADY_MAX_ROUNDS];	/* its last rounds, MB/s */
	unsigned int nwin;		/* rounds in @win (at most cfg.rounds) */
	unsigned int nrounds;		/* rounds completed in it */
	/* a run of intervals off the level: where a step would start */
	int dev_dir;			/* -1 below, +1 above, 0 none */
	double dev_bytes, dev_time, dev_b, dev_t;
	/* what was seen */
	struct bf_steady_step steps[BF_STEADY_MAX_STEPS];
	unsigned int nsteps;		/* steps recorded (capped) */
	unsigned int nchanges;		/* every step, also past the cap */
	bool has_down;			/* a step down was seen */
	double cache_bytes;		/* bytes before the first step down */
	double min_past;		/* bytes to write past the last step */
	double range, excursion;	/* of the window, relative (last check) */
	double level_mbps;		/* the window's mean */
	bool holds;			/* the floor held: stop */
	/* a switching floor: the last levels fallen to and climbed to */
	double lows[BF_STEADY_SWITCHES], highs[BF_STEADY_SWITCHES];
	unsigned int nlows, nhighs;	/* falls, climbs past the first */
	bool switching;			/* what held is a switching floor */
	/* the first round's intervals (bytes, seconds): a step inside it
	 * has no level before it to be measured against */
	double first_b[BF_STEADY_FIRST_MAX], first_t[BF_STEADY_FIRST_MAX];
	unsigned int nfirst;
};

/* The defaults above. */
void bf_steady_cfg_default(struct bf_steady_cfg *cfg);
/* Start; @cfg NULL for the defaults. */
void bf_steady_init(struct bf_steady *st, const struct bf_steady_cfg *cfg);
/*
 * One interval of @dt seconds in which @bytes were written. Returns true
 * once the floor holds (and from then on).
 */
bool bf_steady_add(struct bf_steady *st, double dt, double bytes);

/* The rule's state in a few words, for the progress line. */
/*
 * When the level that holds is a recovery (after a step up, or well above
 * the rate right after the last step), the rate it recovered from: the
 * floor. Otherwise 0: the level that holds is the floor.
 */
double bf_steady_recovered_from(const struct bf_steady *st);
void bf_steady_status(const struct bf_steady *st, char *buf, size_t len);

/*
 * The steps down seen were all moderate (and there was one): heat could
 * be stepping the rate down, and may step it again. @n: how many.
 */
bool bf_steady_moderate(const struct bf_steady *st, unsigned int *n);

/*
 * What the stop means, one sentence: where it stopped and what it did not
 * see ("stopped 40 GB past a step at 320 GB of 1 TB; ..."), or how much
 * was written without a step. @region is the bytes the write could have
 * covered (0: unknown).
 */
void bf_steady_said(const struct bf_steady *st, double region, char *buf,
		    size_t len);

#endif /* BLKFLOOR_STEADY_H */
