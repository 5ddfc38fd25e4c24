/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram: fio's log-linear bucket scheme (fio stat.c,
 * plat_val_to_idx / plat_idx_to_val) with BLKFLOOR_HIST_BITS and
 * BLKFLOOR_HIST_GROUPS from the uapi header. Pure code.
 */
#ifndef BLKFLOOR_HIST_H
#define BLKFLOOR_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/blkfloor.h>

/* Bucket index of a latency in ns (what the kernel does). */
unsigned int bf_hist_val_to_idx(uint64_t ns);
/* Representative value (midpoint) of bucket @idx, ns. */
double bf_hist_idx_to_val(unsigned int idx);

/* One non-empty bucket, as a BLKFLOOR_IV_A_HIST nest carries it. */
struct bf_hist_entry {
	uint32_t index;
	uint64_t count;
};

struct bf_hist {
	uint64_t count[BLKFLOOR_HIST_NR];
	uint64_t total;
};

void bf_hist_reset(struct bf_hist *h);
/* Add an array of buckets; out-of-range indices are ignored. */
void bf_hist_add(struct bf_hist *h, const struct bf_hist_entry *e,
		 size_t n);
void bf_hist_merge(struct bf_hist *dst, const struct bf_hist *src);
/*
 * Latency at percentile @pct (0 < pct <= 100) in ns: the value of the first
 * bucket whose cumulative count reaches pct% of the total, as fio reports.
 * Returns 0 for an empty histogram.
 */
double bf_hist_percentile(const struct bf_hist *h, double pct);

#endif /* BLKFLOOR_HIST_H */
