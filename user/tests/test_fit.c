// SPDX-License-Identifier: GPL-2.0
/*
 * Least-squares fit (sweep), per-chunk and tail rates (fill), knee (wss).
 */
#include <errno.h>
#include <math.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "fit.h"

TEST(exact_line)
{
	/* 100 us overhead, 1000 MB/s link */
	double x[8], y[8];
	struct bf_fit f;
	int i;

	for (i = 0; i < 8; i++) {
		x[i] = 4096.0 * (1 << i);
		y[i] = 100e-6 + x[i] / 1e9;
	}
	ASSERT_EQ(0, bf_fit_linear(x, y, 8, &f));
	EXPECT_LT(fabs(f.intercept - 100e-6), 1e-12);
	EXPECT_LT(fabs(1 / f.slope - 1e9) / 1e9, 1e-9);
	EXPECT_LT(fabs(f.r2 - 1), 1e-12);
}

TEST(noisy_line)
{
	static const double noise[] = { 1.02, 0.97, 1.01, 0.99, 1.03, 0.98 };
	double x[6], y[6];
	struct bf_fit f;
	int i;

	for (i = 0; i < 6; i++) {
		x[i] = 65536.0 * (1 << i);
		y[i] = (50e-6 + x[i] / 300e6) * noise[i];
	}
	ASSERT_EQ(0, bf_fit_linear(x, y, 6, &f));
	EXPECT_LT(fabs(1 / f.slope - 300e6) / 300e6, 0.05);
	EXPECT_GT(f.r2, 0.99);
	EXPECT_LT(f.r2, 1.0);
}

TEST(degenerate)
{
	double x[2] = { 1, 1 }, y[2] = { 1, 2 };
	struct bf_fit f;

	EXPECT_EQ(-EINVAL, bf_fit_linear(x, y, 1, &f));
	EXPECT_EQ(-EINVAL, bf_fit_linear(x, y, 2, &f));
}

TEST(rate_per_chunk)
{
	/* 4 intervals of 1 s: 500, 500, 250, 250 MB (=MB/s) */
	double b[4] = { 500e6, 500e6, 250e6, 250e6 }, t[4] = { 1, 1, 1, 1 };
	double out[8];
	size_t n;

	n = bf_rate_per_chunk(b, t, 4, 1e9, out, 8);
	ASSERT_EQ(2U, n);
	EXPECT_LT(fabs(out[0] - 500), 1e-9);
	EXPECT_LT(fabs(out[1] - 250), 1e-9);
	/* chunks that straddle intervals: 750 MB each */
	n = bf_rate_per_chunk(b, t, 4, 750e6, out, 8);
	ASSERT_EQ(2U, n);
	EXPECT_LT(fabs(out[0] - 500), 1e-9);
	/* 250 MB at 500 + 500 MB at 250: 750 MB in 2.5 s */
	EXPECT_LT(fabs(out[1] - 300), 1e-9);
	/* a final partial chunk is reported */
	n = bf_rate_per_chunk(b, t, 4, 400e6, out, 8);
	ASSERT_EQ(4U, n);
	EXPECT_LT(fabs(out[3] - 250), 1e-9);
	/* max respected */
	EXPECT_EQ(1U, bf_rate_per_chunk(b, t, 4, 400e6, out, 1));
}

TEST(stall_counts)
{
	double b[3] = { 100e6, 0, 100e6 }, t[3] = { 1, 1, 1 };
	double out[2];

	ASSERT_EQ(1U, bf_rate_per_chunk(b, t, 3, 200e6, out, 2));
	EXPECT_LT(fabs(out[0] - 200.0 / 3), 1e-9);
}

TEST(tail_rate)
{
	double b[4] = { 500e6, 500e6, 250e6, 250e6 }, t[4] = { 1, 1, 1, 1 };

	EXPECT_LT(fabs(bf_tail_rate(b, t, 4, 500e6) - 250), 1e-9);
	/* last 750 MB: 500 MB at 250 in 2 s + 250 MB at 500 in 0.5 s */
	EXPECT_LT(fabs(bf_tail_rate(b, t, 4, 750e6) - 300), 1e-9);
	/* more than there is: the whole curve */
	EXPECT_LT(fabs(bf_tail_rate(b, t, 4, 10e9) - 375), 1e-9);
	EXPECT_EQ(0.0, bf_tail_rate(b, t, 0, 1e9));
}

TEST(knee)
{
	double flat[5] = { 1000, 990, 1010, 980, 995 };
	double drop[5] = { 1000, 1100, 1050, 600, 300 };
	double first[3] = { 100, 50, 40 };

	EXPECT_EQ(-1, bf_knee(flat, 5, 0.7));
	EXPECT_EQ(3, bf_knee(drop, 5, 0.7));
	EXPECT_EQ(1, bf_knee(first, 3, 0.7));
	EXPECT_EQ(-1, bf_knee(drop, 0, 0.7));
}

/*
 * One fast set is not the best the drive does: null_blk capped at
 * 200 MiB/s in CI, 100 ms a set, the first set with the cap's full
 * budget on top (make check of 98cd016 read a knee at 256 MiB).
 */
TEST(knee_not_from_one_fast_set)
{
	double ci[6] = { 69625, 49411, 53319, 54927, 46823, 47422 };

	EXPECT_EQ(-1, bf_knee(ci, 6, 0.7));
}

/* One slow set that the next sets climb back from is noise, not a knee. */
TEST(knee_not_from_one_slow_set)
{
	double dip[6] = { 1000, 1010, 500, 990, 1000, 980 };
	double late[6] = { 1000, 1010, 500, 990, 400, 300 };

	EXPECT_EQ(-1, bf_knee(dip, 6, 0.7));
	EXPECT_EQ(4, bf_knee(late, 6, 0.7));
}

TEST_HARNESS_MAIN
