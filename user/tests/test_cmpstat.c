// SPDX-License-Identifier: GPL-2.0
/*
 * compare's arithmetic: a difference weighed against the spread between
 * runs (or the noise within one run per side), and the verdict over rows.
 */
#include <math.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "cmpstat.h"

static void side(struct bf_cmp_side *s, const double *v, size_t n,
		 double se)
{
	size_t i;

	s->n = n;
	for (i = 0; i < n; i++) {
		s->v[i] = v[i];
		s->se[i] = se;
	}
}

static struct bf_cmp_row level(const double *a, size_t na, const double *b,
			       size_t nb, double se)
{
	struct bf_cmp_row r = { .name = "floor", .unit = "MB/s",
				.kind = BF_CMP_LEVEL, .bad = BF_CMP_LOWER,
				.rel_min = 0.02 };

	side(&r.a, a, na, se);
	side(&r.b, b, nb, se);
	bf_cmp_judge(&r);
	return r;
}

TEST(quantiles)
{
	EXPECT_LT(fabs(bf_t99(4) - 3.747), 1e-9);
	EXPECT_LT(fabs(bf_t99(11) - 2.764), 1e-9);	/* the entry below */
	EXPECT_LT(fabs(bf_t99(1000) - 2.358), 1e-9);
	EXPECT_TRUE(isinf(bf_t99(0)));
}

/* Three runs a side, tight: a 10 % lower floor is a regression. */
TEST(tight_runs_regress)
{
	static const double a[] = { 500, 502, 498 }, b[] = { 450, 452, 449 };
	struct bf_cmp_row r = level(a, 3, b, 3, 0);

	EXPECT_EQ((int)BF_CMP_WORSE, (int)r.verdict);
	EXPECT_LT(fabs(r.ma - 500), 1e-9);
	EXPECT_LT(fabs(r.change + 0.1), 0.002);
	EXPECT_GT(r.t, bf_t99(4));
	EXPECT_NE(NULL, strstr(r.why, "floor 500 -> 450.3 MB/s (-9.9 %"));
}

/* The same 10 % inside a run-to-run spread of 20 %: ask for more runs. */
TEST(wide_runs_inconclusive)
{
	static const double a[] = { 400, 600, 500 }, b[] = { 350, 550, 450 };
	struct bf_cmp_row r = level(a, 3, b, 3, 0);

	EXPECT_EQ((int)BF_CMP_UNSURE, (int)r.verdict);
	/*
	 * t = 50 / (100 sqrt(2/3)) = 0.61; with n runs a side it would be
	 * 0.61 sqrt(n / 3), beyond t99(2n - 2) = 2.39 from n = 46
	 */
	EXPECT_EQ(46U, r.runs);
	EXPECT_NE(NULL, strstr(r.why, "within the spread"));
}

/* A difference below the row's minimum is no regression, however sure. */
TEST(small_difference_same)
{
	static const double a[] = { 500, 500, 500 }, b[] = { 495, 495, 495 };
	struct bf_cmp_row r = level(a, 3, b, 3, 0);

	EXPECT_EQ((int)BF_CMP_SAME, (int)r.verdict);
}

/* B faster is better, not a regression. */
TEST(better)
{
	static const double a[] = { 450, 452, 449 }, b[] = { 500, 502, 498 };
	struct bf_cmp_row r = level(a, 3, b, 3, 0);

	EXPECT_EQ((int)BF_CMP_BETTER, (int)r.verdict);
}

/* One run a side: the within-run standard errors decide. */
TEST(one_run_within_noise)
{
	static const double a[] = { 500 }, b[] = { 480 };
	struct bf_cmp_row r;

	r = level(a, 1, b, 1, 2);	/* t = 20 / 2.83 = 7 */
	EXPECT_EQ((int)BF_CMP_WORSE, (int)r.verdict);
	r = level(a, 1, b, 1, 10);	/* t = 1.4 */
	EXPECT_EQ((int)BF_CMP_UNSURE, (int)r.verdict);
	EXPECT_GE(r.runs, 2U);
}

TEST(maximum_one_run_needs_tenfold)
{
	struct bf_cmp_row r = { .name = "max", .unit = "ms",
				.kind = BF_CMP_EXTREME, .bad = BF_CMP_HIGHER,
				.rel_min = 1 };
	static const double a[] = { 5 }, b3[] = { 15 }, b10[] = { 60 };

	side(&r.a, a, 1, 0);
	side(&r.b, b3, 1, 0);
	bf_cmp_judge(&r);
	EXPECT_EQ((int)BF_CMP_SAME, (int)r.verdict);
	side(&r.b, b10, 1, 0);
	bf_cmp_judge(&r);
	EXPECT_EQ((int)BF_CMP_WORSE, (int)r.verdict);
	EXPECT_NE(NULL, strstr(r.why, "x 12"));
}

TEST(counts)
{
	struct bf_cmp_row r = { .name = "resets", .unit = "",
				.kind = BF_CMP_COUNT, .bad = BF_CMP_HIGHER,
				.any = true };
	static const double z[] = { 0, 0, 0 }, one[] = { 0, 1, 0 },
			    some[] = { 1, 3, 2 }, less[] = { 0, 0 };

	side(&r.a, z, 3, 0);
	side(&r.b, one, 3, 0);
	bf_cmp_judge(&r);
	EXPECT_EQ((int)BF_CMP_WORSE, (int)r.verdict);	/* any reset where A had none */
	r.any = false;				/* stalls come and go */
	bf_cmp_judge(&r);
	EXPECT_EQ((int)BF_CMP_UNSURE, (int)r.verdict);
	side(&r.a, some, 3, 0);
	side(&r.b, less, 2, 0);
	bf_cmp_judge(&r);
	EXPECT_EQ((int)BF_CMP_BETTER, (int)r.verdict);
	side(&r.a, z, 1, 0);
	side(&r.b, z, 1, 0);
	bf_cmp_judge(&r);
	EXPECT_EQ((int)BF_CMP_SAME, (int)r.verdict);
}

TEST(not_measured)
{
	static const double a[] = { 500 }, b[] = { NAN };
	struct bf_cmp_row r = level(a, 1, b, 1, 1);

	EXPECT_EQ((int)BF_CMP_NA, (int)r.verdict);
}

TEST(overall)
{
	struct bf_cmp_row r[3] = { { 0 } };
	unsigned int runs;

	r[0].verdict = BF_CMP_SAME;
	r[1].verdict = BF_CMP_UNSURE;
	r[1].runs = 7;
	r[2].verdict = BF_CMP_BETTER;
	EXPECT_EQ((int)BF_CMP_UNSURE, (int)bf_cmp_overall(r, 3, &runs));
	EXPECT_EQ(7U, runs);
	r[2].verdict = BF_CMP_WORSE;
	EXPECT_EQ((int)BF_CMP_WORSE, (int)bf_cmp_overall(r, 3, &runs));
	r[1].verdict = BF_CMP_NA;
	r[2].verdict = BF_CMP_BETTER;
	EXPECT_EQ((int)BF_CMP_SAME, (int)bf_cmp_overall(r, 3, &runs));
	EXPECT_EQ(0U, runs);
}

TEST_HARNESS_MAIN
