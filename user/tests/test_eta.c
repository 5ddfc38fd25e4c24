// SPDX-License-Identifier: GPL-2.0
/*
 * The ETA follows the recent rate, not the mean so far, and says
 * "unknown" (-1) while that rate is not stable.
 */
#include <math.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "eta.h"

TEST(unknown_until_stable)
{
	struct bf_eta e;

	bf_eta_init(&e);
	EXPECT_EQ(-1, bf_eta_seconds(&e, 1e9));
	/* two intervals, and only two seconds: not enough */
	bf_eta_add(&e, 1, 100e6);
	bf_eta_add(&e, 1, 100e6);
	EXPECT_EQ(-1, bf_eta_seconds(&e, 1e9));
	/* many short intervals, but under five seconds: not enough */
	bf_eta_init(&e);
	for (int i = 0; i < 40; i++)
		bf_eta_add(&e, 0.1, 10e6);
	EXPECT_EQ(-1, bf_eta_seconds(&e, 1e9));
	bf_eta_add(&e, 1.0, 100e6);
	EXPECT_LT(fabs(bf_eta_seconds(&e, 1e9) - 10), 1e-6);
	/* nothing left: 0 whatever the rate */
	EXPECT_EQ(0, bf_eta_seconds(&e, 0));
	/* bad input is ignored */
	bf_eta_add(&e, 0, 1e9);
	bf_eta_add(&e, -1, 1e9);
	EXPECT_LT(fabs(bf_eta_seconds(&e, 1e9) - 10), 1e-6);
}

/*
 * The DRAM-less drive of the brief: 2,555 MB/s for 280 GB, then 127 MB/s.
 * filling 2 TB. Minutes after the cliff the mean so far still says ~800
 * MB/s; the ETA for the remaining 1.7 TB must come from the 127 MB/s floor.
 */
TEST(cache_cliff)
{
	double done = 0, t = 0, left, mean_eta, eta = -1;
	int unknown = 0, i;
	struct bf_eta e;

	bf_eta_init(&e);
	for (i = 0; done < 280e9; i++, t++) {
		bf_eta_add(&e, 1, 2555e6);
		done += 2555e6;
	}
	left = 2000e9 - done;
	EXPECT_LT(fabs(bf_eta_seconds(&e, left) - left / 2555e6), 1);
	/* the cliff: unknown while the averages disagree, then the floor */
	for (i = 0; i < 300; i++, t++) {
		bf_eta_add(&e, 1, 127e6);
		done += 127e6;
		eta = bf_eta_seconds(&e, 2000e9 - done);
		if (eta < 0)
			unknown++;
		else if (i < 200)
			EXPECT_LT(fabs(eta * 127e6 / (2000e9 - done) - 1), 0.3);
	}
	EXPECT_GT(unknown, 5);		/* it said so rather than guess */
	EXPECT_LT(unknown, 200);	/* and not for ever */
	left = 2000e9 - done;
	ASSERT_GT(eta, 0);
	EXPECT_LT(fabs(eta - left / 127e6) / (left / 127e6), 0.01);
	/* the mean-based estimate is off by hours */
	mean_eta = left / (done / t);
	EXPECT_GT(eta - mean_eta, 3600);
}

/* A stall (the rate at 0) makes it unknown, a recovery makes it known. */
TEST(stall_and_recovery)
{
	struct bf_eta e;
	int i;

	bf_eta_init(&e);
	for (i = 0; i < 60; i++)
		bf_eta_add(&e, 1, 100e6);
	EXPECT_GT(bf_eta_seconds(&e, 1e9), 0);
	for (i = 0; i < 3; i++)
		bf_eta_add(&e, 1, 0);
	EXPECT_EQ(-1, bf_eta_seconds(&e, 1e9));
	for (i = 0; i < 120; i++)
		bf_eta_add(&e, 1, 100e6);
	EXPECT_LT(fabs(bf_eta_seconds(&e, 1e9) - 10), 0.5);
}

/* Interval length does not change the estimate of a steady rate. */
TEST(interval_length)
{
	struct bf_eta a, b;
	int i;

	bf_eta_init(&a);
	bf_eta_init(&b);
	for (i = 0; i < 1000; i++)
		bf_eta_add(&a, 0.01, 50e4);	/* 10 ms at 50 MB/s */
	for (i = 0; i < 10; i++)
		bf_eta_add(&b, 1, 50e6);
	EXPECT_LT(fabs(bf_eta_rate(&a) - 50e6), 1);
	EXPECT_LT(fabs(bf_eta_rate(&b) - 50e6), 1);
}

TEST_HARNESS_MAIN
