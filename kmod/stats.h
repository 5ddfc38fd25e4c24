/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blkfloor: per-interval statistics.
 *
 * The live interval (struct blkfloor_acc) is written by the run's kthread
 * only, so adding a completion is a handful of plain stores. Closing an
 * interval turns it into a compact struct blkfloor_iv that goes into the
 * run's ring.
 */
#ifndef _BLKFLOOR_STATS_H
#define _BLKFLOOR_STATS_H

#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/blk_types.h>
#include <linux/math64.h>
#include <linux/blkfloor.h>

/**
 * struct blkfloor_hist_entry - one non-empty histogram bucket
 * @index: bucket index, 0 .. BLKFLOOR_HIST_NR - 1
 * @count: completions whose latency fell in this bucket
 *
 * Sent as one BLKFLOOR_IV_A_HIST nest (BLKFLOOR_HIST_A_INDEX, _COUNT).
 */
struct blkfloor_hist_entry {
	u32 index;
	u64 count;
};

/**
 * struct blkfloor_acc - the interval being filled, owned by the kthread
 * @bytes: bytes completed successfully
 * @ios: I/Os completed successfully
 * @errors: failed I/Os by enum blkfloor_err_class
 * @lat_min: smallest latency, ns (U64_MAX while @ios is 0)
 * @lat_max: largest latency, ns
 * @lat_sum: sum of latencies, ns
 * @hist: latency histogram, BLKFLOOR_HIST_* scheme (64-bit: an interval may
 *	last a day, and one bucket passes 2^32 at 50k IOPS)
 */
struct blkfloor_acc {
	u64 bytes;
	u64 ios;
	u64 errors[__BLKFLOOR_ERR_MAX];
	u64 lat_min;
	u64 lat_max;
	u64 lat_sum;
	u64 hist[BLKFLOOR_HIST_NR];
};

/**
 * struct blkfloor_iv - one closed interval
 * @index: interval number, from 0
 * @seen: dumped or delivered to a multicast listener at least once
 * @nr_hist: entries in @hist
 * @start_ns: start, ns since the run started
 * @end_ns: end, ns since the run started
 * @bytes: see struct blkfloor_acc
 * @ios: see struct blkfloor_acc
 * @errors: see struct blkfloor_acc
 * @lat_min: see struct blkfloor_acc (0 when @ios is 0)
 * @lat_max: see struct blkfloor_acc
 * @lat_sum: see struct blkfloor_acc
 * @bytes_total: bytes completed since the run started, this one included
 * @inflight: I/Os submitted and not completed at the interval's end
 * @oldest_ns: how long the oldest of them had been in flight at the end
 * @hist: non-empty buckets only, by ascending index; NULL when there are
 *	none
 */
struct blkfloor_iv {
	u64 index;
	bool seen;
	u32 nr_hist;
	u64 start_ns;
	u64 end_ns;
	u64 bytes;
	u64 ios;
	u64 errors[__BLKFLOOR_ERR_MAX];
	u64 lat_min;
	u64 lat_max;
	u64 lat_sum;
	u64 bytes_total;
	u32 inflight;
	u64 oldest_ns;
	struct blkfloor_hist_entry *hist;
};

/**
 * blkfloor_hist_index() - histogram bucket of a latency
 * @ns: latency in nanoseconds
 *
 * fio's log-linear scheme (see BLKFLOOR_HIST_BITS in the uapi header).
 *
 * Return: bucket index, 0 .. BLKFLOOR_HIST_NR - 1.
 */
static inline u32 blkfloor_hist_index(u64 ns)
{
	unsigned int msb, err_bits;
	u32 idx;

	if (ns < (2ULL << BLKFLOOR_HIST_BITS))
		return ns;
	msb = fls64(ns) - 1;
	err_bits = msb - BLKFLOOR_HIST_BITS;
	idx = ((err_bits + 1) << BLKFLOOR_HIST_BITS) +
	      ((ns >> err_bits) & (BLKFLOOR_HIST_VAL - 1));
	return min_t(u32, idx, BLKFLOOR_HIST_NR - 1);
}

/* Account one successful completion of @bytes that took @lat ns. */
static inline void blkfloor_acc_add(struct blkfloor_acc *acc, u64 bytes,
				    u64 lat, bool lat_stats)
{
	acc->bytes += bytes;
	acc->ios++;
	if (!lat_stats)
		return;
	if (lat < acc->lat_min)
		acc->lat_min = lat;
	if (lat > acc->lat_max)
		acc->lat_max = lat;
	acc->lat_sum += lat;
	acc->hist[blkfloor_hist_index(lat)]++;
}

/**
 * struct blkfloor_ring - a run's last closed intervals
 * @slots: @nr intervals; interval i is at slot i % @nr
 * @nr: slots
 * @closed: intervals closed so far (the next one's index)
 * @dropped: closed intervals overwritten before anyone read them
 *
 * The indexes and counts are 64-bit: at 1 ms intervals a 32-bit index
 * wraps after 49.7 days, and readers resume from an index.
 *
 * Written by the run's kthread, read by netlink, under the run's lock.
 */
struct blkfloor_ring {
	struct blkfloor_iv *slots;
	u32 nr;
	u64 closed;
	u64 dropped;
};

/* Index of the oldest interval @r still holds (@r->closed when empty). */
static inline u64 blkfloor_ring_oldest(const struct blkfloor_ring *r)
{
	return r->closed > r->nr ? r->closed - r->nr : 0;
}

/* The slot of interval @index. */
static inline struct blkfloor_iv *blkfloor_ring_slot(struct blkfloor_ring *r,
						     u64 index)
{
	u32 rem;

	div_u64_rem(index, r->nr, &rem);
	return &r->slots[rem];
}

enum blkfloor_err_class blkfloor_err_class(blk_status_t status);
struct blkfloor_iv *blkfloor_ring_put(struct blkfloor_ring *r,
				      const struct blkfloor_iv *iv,
				      struct blkfloor_iv *old);
void blkfloor_acc_reset(struct blkfloor_acc *acc);
int blkfloor_acc_close(struct blkfloor_acc *acc, struct blkfloor_iv *iv);
void blkfloor_iv_release(struct blkfloor_iv *iv);

#endif /* _BLKFLOOR_STATS_H */
