// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histogram: fio's log-linear bucket mapping and percentiles.
 */
#include <math.h>
#include <stdlib.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "hist.h"

TEST(small_values_map_one_to_one)
{
	unsigned int v;

	for (v = 0; v < 2 * BLKFLOOR_HIST_VAL; v++) {
		EXPECT_EQ(v, bf_hist_val_to_idx(v));
		EXPECT_EQ((double)v, bf_hist_idx_to_val(v));
	}
}

TEST(group_boundaries)
{
	/* 128 ns: group 1 (error_bits 1), bucket 0 covers [128, 130) */
	EXPECT_EQ(128U, bf_hist_val_to_idx(128));
	EXPECT_EQ(128U, bf_hist_val_to_idx(129));
	EXPECT_EQ(129U, bf_hist_val_to_idx(130));
	EXPECT_EQ(129.0, bf_hist_idx_to_val(128));
	EXPECT_EQ(191U, bf_hist_val_to_idx(255));	/* last of group 1 */
	/* 256: group 2, width 4 */
	EXPECT_EQ(192U, bf_hist_val_to_idx(256));
	EXPECT_EQ(258.0, bf_hist_idx_to_val(192));
	/* 1 ms = 1e6 ns: msb 19, error_bits 13, base (14 << 6) = 896 */
	EXPECT_EQ(896U + ((1000000U >> 13) & 63), bf_hist_val_to_idx(1000000));
	/* everything huge lands in the last bucket */
	EXPECT_EQ(BLKFLOOR_HIST_NR - 1U, bf_hist_val_to_idx(~0ULL));
	EXPECT_EQ(BLKFLOOR_HIST_NR - 1U, bf_hist_val_to_idx(60ULL * 1000000000));
}

TEST(midpoint_within_error_bound)
{
	/* every value maps to a bucket whose value is within 1/2^(BITS+1) */
	uint64_t v;

	for (v = 1; v < (1ULL << 34); v = v * 1.01 + 1) {
		unsigned int idx = bf_hist_val_to_idx(v);
		double mid = bf_hist_idx_to_val(idx);

		ASSERT_LE(fabs(mid - (double)v) / (double)v,
			  1.0 / (1 << (BLKFLOOR_HIST_BITS + 1)) + 1e-12)
			TH_LOG("v=%llu idx=%u mid=%f", (unsigned long long)v,
			       idx, mid);
	}
}

TEST(indices_monotonic)
{
	unsigned int i;

	for (i = 1; i < BLKFLOOR_HIST_NR; i++)
		ASSERT_GT(bf_hist_idx_to_val(i), bf_hist_idx_to_val(i - 1));
	/* idx -> val -> idx is the identity */
	for (i = 0; i < BLKFLOOR_HIST_NR; i++)
		ASSERT_EQ(i, bf_hist_val_to_idx((uint64_t)bf_hist_idx_to_val(i)));
}

TEST(percentiles)
{
	struct bf_hist *h = calloc(1, sizeof(*h));
	struct bf_hist_entry e[3];
	unsigned int i50 = bf_hist_val_to_idx(100000);	/* 100 us */
	unsigned int i99 = bf_hist_val_to_idx(5000000);	/* 5 ms */
	unsigned int imax = bf_hist_val_to_idx(20000000);	/* 20 ms */

	ASSERT_NE(NULL, h);
	EXPECT_EQ(0.0, bf_hist_percentile(h, 50));
	e[0].index = i50;
	e[0].count = 990;
	e[1].index = i99;
	e[1].count = 9;
	e[2].index = imax;
	e[2].count = 1;
	bf_hist_add(h, e, 3);
	EXPECT_EQ(1000ULL, h->total);
	EXPECT_EQ(bf_hist_idx_to_val(i50), bf_hist_percentile(h, 50));
	EXPECT_EQ(bf_hist_idx_to_val(i50), bf_hist_percentile(h, 99));
	EXPECT_EQ(bf_hist_idx_to_val(i99), bf_hist_percentile(h, 99.9));
	EXPECT_EQ(bf_hist_idx_to_val(imax), bf_hist_percentile(h, 100));
	EXPECT_LT(fabs(bf_hist_percentile(h, 50) - 100000) / 100000, 0.008);
	/* out-of-range entries are ignored */
	e[0].index = BLKFLOOR_HIST_NR;
	bf_hist_add(h, e, 1);
	EXPECT_EQ(1000ULL, h->total);
	free(h);
}

TEST_HARNESS_MAIN
