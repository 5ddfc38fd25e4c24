// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/stats.c built in user space (tests/kshim stands in for the kernel
 * headers): an interval's histogram at the limits of its counters, and
 * the interval ring at the limit of its indexes.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "../../kmod/stats.c"

static struct blkfloor_acc acc;

/* The histogram entries' counts of bucket @idx, added up. */
static uint64_t bucket_sum(const struct blkfloor_iv *iv, uint32_t idx)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < iv->nr_hist; i++)
		if (iv->hist[i].index == idx)
			sum += iv->hist[i].count;
	return sum;
}

/*
 * An interval may last a day: at 50k IOPS one bucket passes 2^32. The
 * count must neither wrap while it is being accumulated nor when the
 * interval is closed into its histogram entries (64-bit, as the ABI's).
 */
TEST(bucket_count_past_2_32)
{
	uint32_t idx = blkfloor_hist_index(100000);
	struct blkfloor_iv iv = {};
	uint64_t want = (5ULL << 32) + 3;
	uint32_t i;

	blkfloor_acc_reset(&acc);
	acc.hist[idx] = want - 1;
	blkfloor_acc_add(&acc, 4096, 100000, true);
	ASSERT_EQ(0, blkfloor_acc_close(&acc, &iv));
	EXPECT_EQ(want, bucket_sum(&iv, idx));
	/* One entry per bucket, in index order. */
	ASSERT_EQ(1U, iv.nr_hist);
	for (i = 1; i < iv.nr_hist; i++)
		EXPECT_LT(iv.hist[i - 1].index, iv.hist[i].index);
	blkfloor_iv_release(&iv);
}

TEST(bucket_count_at_u32_max)
{
	uint32_t idx = blkfloor_hist_index(1000);
	struct blkfloor_iv iv = {};

	blkfloor_acc_reset(&acc);
	acc.hist[idx] = U32_MAX;
	blkfloor_acc_add(&acc, 4096, 1000, true);
	ASSERT_EQ(0, blkfloor_acc_close(&acc, &iv));
	EXPECT_EQ((uint64_t)U32_MAX + 1, bucket_sum(&iv, idx));
	EXPECT_EQ(1U, iv.nr_hist);
	blkfloor_iv_release(&iv);
	/* Closing emptied it. */
	ASSERT_EQ(0, blkfloor_acc_close(&acc, &iv));
	EXPECT_EQ(0U, iv.nr_hist);
}

TEST(small_counts_one_entry_per_bucket)
{
	struct blkfloor_iv iv = {};

	blkfloor_acc_reset(&acc);
	blkfloor_acc_add(&acc, 4096, 10, true);
	blkfloor_acc_add(&acc, 4096, 10, true);
	blkfloor_acc_add(&acc, 4096, 5000, true);
	ASSERT_EQ(0, blkfloor_acc_close(&acc, &iv));
	ASSERT_EQ(2U, iv.nr_hist);
	EXPECT_EQ(10U, iv.hist[0].index);
	EXPECT_EQ(2U, iv.hist[0].count);
	EXPECT_EQ(1U, iv.hist[1].count);
	EXPECT_EQ(3U, iv.ios);
	blkfloor_iv_release(&iv);
}

/*
 * An interval index at 1 ms intervals passes 2^32 after 49.7 days: the
 * ring's count of closed intervals, its oldest index, the slot of an
 * interval and the count of dropped ones must go on past it (a reader's
 * cursor is compared with them) without wrapping back to 0.
 */
TEST(ring_index_past_2_32)
{
	struct blkfloor_iv slots[8] = {};
	struct blkfloor_ring r = { .slots = slots, .nr = 8 };
	uint64_t start = (1ULL << 32) - 5, i;

	r.closed = start;
	for (i = start; i < start + 12; i++) {
		struct blkfloor_iv iv = { .index = i }, old;
		struct blkfloor_iv *slot = blkfloor_ring_put(&r, &iv, &old);

		ASSERT_EQ(i + 1, (uint64_t)r.closed);
		ASSERT_EQ(&slots[i % 8], slot);
		ASSERT_EQ(i, (uint64_t)slot->index);
		EXPECT_EQ(&slots[i % 8], blkfloor_ring_slot(&r, i));
	}
	EXPECT_EQ(start + 12, (uint64_t)r.closed);
	/* The ring holds the last 8, across the boundary: 2^32 - 1 .. 2^32 + 6. */
	EXPECT_EQ(start + 4, (uint64_t)blkfloor_ring_oldest(&r));
	for (i = start + 4; i < start + 12; i++)
		EXPECT_EQ(i, (uint64_t)blkfloor_ring_slot(&r, i)->index);
	/* Every put after the first 8 overwrote one nobody read. */
	EXPECT_EQ(12U, (uint64_t)r.dropped);
}

/* The dropped count itself passes 2^32 (a reader gone for months). */
TEST(ring_dropped_past_2_32)
{
	struct blkfloor_iv slots[8] = {};
	struct blkfloor_ring r = { .slots = slots, .nr = 8 };
	struct blkfloor_iv iv = { .index = 100 }, old;

	r.closed = 100;
	r.dropped = U32_MAX;
	blkfloor_ring_put(&r, &iv, &old);
	EXPECT_EQ((uint64_t)U32_MAX + 1, (uint64_t)r.dropped);
	/* A slot read since (seen) is not counted when overwritten. */
	slots[101 % 8].seen = true;
	iv.index = 101;
	blkfloor_ring_put(&r, &iv, &old);
	EXPECT_EQ((uint64_t)U32_MAX + 1, (uint64_t)r.dropped);
	EXPECT_EQ(102U, (uint64_t)r.closed);
}

TEST_HARNESS_MAIN
