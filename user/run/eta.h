/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time left from the recent rate. Pure computation, no I/O.
 *
 * A drive's rate after its SLC cache runs out can be a twentieth of the
 * rate before: an estimate from the mean so far is then off by hours. Two
 * exponentially weighted moving averages of the rate, weighted by time
 * (time constants BF_ETA_FAST_S and BF_ETA_SLOW_S), follow the recent
 * rate; while they disagree by more than BF_ETA_AGREE (a cliff, a stall,
 * a recovery in progress) or fewer than BF_ETA_MIN_S seconds and
 * BF_ETA_MIN_N intervals have been seen, the rate is not stable and there
 * is no estimate ("unknown").
 */
#ifndef BLKFLOOR_ETA_H
#define BLKFLOOR_ETA_H

#include <stdbool.h>
#include <stdint.h>

#define BF_ETA_FAST_S	2.0
#define BF_ETA_SLOW_S	30.0
#define BF_ETA_AGREE	0.25
#define BF_ETA_MIN_S	5.0
#define BF_ETA_MIN_N	3

struct bf_eta {
	double fast, slow;	/* bytes/s */
	double seen_s;		/* seconds of intervals added */
	unsigned int n;		/* intervals added */
};

void bf_eta_init(struct bf_eta *e);
/* One interval of @dt_s seconds that moved @bytes. Ignored if dt_s <= 0. */
void bf_eta_add(struct bf_eta *e, double dt_s, double bytes);
/* The recent rate in bytes/s, or -1 while it is not stable. */
double bf_eta_rate(const struct bf_eta *e);
/* Seconds to move @left_bytes at the recent rate, or -1 (unknown). */
double bf_eta_seconds(const struct bf_eta *e, double left_bytes);

#endif /* BLKFLOOR_ETA_H */
