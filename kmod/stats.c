// SPDX-License-Identifier: GPL-2.0
/*
 * blkfloor: per-interval statistics.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include "compat.h"
#include "stats.h"

/**
 * blkfloor_err_class() - error class of a failed bio
 * @status: the bio's bi_status, not BLK_STS_OK
 *
 * Return: the enum blkfloor_err_class the uapi header documents for @status.
 */
enum blkfloor_err_class blkfloor_err_class(blk_status_t status)
{
	if (status == BLK_STS_TIMEOUT)
		return BLKFLOOR_ERR_TIMEOUT;
	if (status == BLK_STS_NOTSUPP)
		return BLKFLOOR_ERR_NOTSUPP;
	if (status == BLK_STS_MEDIUM)
		return BLKFLOOR_ERR_MEDIUM;
	if (status == BLK_STS_TRANSPORT || status == BLK_STS_TARGET ||
	    blkfloor_sts_nexus(status))
		return BLKFLOOR_ERR_TRANSPORT;
	if (status == BLK_STS_NOSPC)
		return BLKFLOOR_ERR_NOSPC;
	if (status == BLK_STS_RESOURCE || status == BLK_STS_DEV_RESOURCE ||
	    status == BLK_STS_AGAIN)
		return BLKFLOOR_ERR_RESOURCE;
	if (status == BLK_STS_PROTECTION)
		return BLKFLOOR_ERR_PROTECTION;
	if (blkfloor_sts_offline(status))
		return BLKFLOOR_ERR_OFFLINE;
	return BLKFLOOR_ERR_IO;
}

/**
 * blkfloor_acc_reset() - empty the live interval
 * @acc: the accumulator
 */
void blkfloor_acc_reset(struct blkfloor_acc *acc)
{
	memset(acc, 0, sizeof(*acc));
	acc->lat_min = U64_MAX;
}

/**
 * blkfloor_acc_close() - turn the live interval into a closed one and reset it
 * @acc: the accumulator
 * @iv: filled in, except @iv->index, start_ns, end_ns, bytes_total and seen
 *
 * Runs in the kthread once per interval, never per I/O. The histogram is
 * compacted to its non-empty buckets in a new allocation owned by @iv,
 * one entry (index, 64-bit count) per bucket.
 *
 * Return: 0, or -ENOMEM when the histogram could not be kept (the totals
 * still are; @iv->hist is then NULL).
 */
int blkfloor_acc_close(struct blkfloor_acc *acc, struct blkfloor_iv *iv)
{
	u32 i, n = 0;
	int ret = 0;

	iv->bytes = acc->bytes;
	iv->ios = acc->ios;
	memcpy(iv->errors, acc->errors, sizeof(iv->errors));
	iv->lat_min = acc->lat_min == U64_MAX ? 0 : acc->lat_min;
	iv->lat_max = acc->lat_max;
	iv->lat_sum = acc->lat_sum;
	iv->hist = NULL;
	iv->nr_hist = 0;

	for (i = 0; i < BLKFLOOR_HIST_NR; i++)
		n += !!acc->hist[i];
	if (n) {
		iv->hist = kmalloc_array(n, sizeof(*iv->hist),
					 GFP_KERNEL_ACCOUNT);
		if (iv->hist) {
			for (i = 0; i < BLKFLOOR_HIST_NR; i++) {
				if (!acc->hist[i])
					continue;
				iv->hist[iv->nr_hist].index = i;
				iv->hist[iv->nr_hist].count = acc->hist[i];
				iv->nr_hist++;
			}
		} else {
			ret = -ENOMEM;
		}
	}
	blkfloor_acc_reset(acc);
	return ret;
}

/**
 * blkfloor_ring_put() - store a closed interval in its ring slot
 * @r: the ring
 * @iv: the interval, the next one (@iv->index is @r->closed)
 * @old: gets what the slot held, for blkfloor_iv_release() outside the lock
 *
 * An overwritten interval nobody read (dumped or multicast) counts in
 * @r->dropped.
 *
 * Return: the slot, now holding a copy of @iv.
 */
struct blkfloor_iv *blkfloor_ring_put(struct blkfloor_ring *r,
				      const struct blkfloor_iv *iv,
				      struct blkfloor_iv *old)
{
	struct blkfloor_iv *slot = blkfloor_ring_slot(r, iv->index);

	if (r->closed >= r->nr && !slot->seen)
		r->dropped++;
	*old = *slot;
	*slot = *iv;
	r->closed = iv->index + 1;
	return slot;
}

/**
 * blkfloor_iv_release() - free what a closed interval owns
 * @iv: the interval
 */
void blkfloor_iv_release(struct blkfloor_iv *iv)
{
	kfree(iv->hist);
	iv->hist = NULL;
	iv->nr_hist = 0;
}
