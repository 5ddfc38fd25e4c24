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

/*
 * Runs to settle it: each row has its own estimate, and the verdict
 * reports the row that would settle first (p50 at 7 runs), not the worst
 * (p99.9 at more than 100).
 */
TEST(settles_first)
{
	struct bf_cmp_row r[3] = { { 0 } };
	unsigned int runs;

	r[0].verdict = BF_CMP_UNSURE;
	r[0].runs = BF_CMP_MAX_RUNS;
	r[1].verdict = BF_CMP_UNSURE;
	r[1].runs = 7;
	r[2].verdict = BF_CMP_UNSURE;
	r[2].runs = 12;
	EXPECT_EQ((int)BF_CMP_UNSURE, (int)bf_cmp_overall(r, 3, &runs));
	EXPECT_EQ(7U, runs);
}

/*
 * The noise a rate is weighed against follows the boots its runs come
 * from: the runs within shared boots, the boots' means when each side has
 * boots of its own, nothing but a tenfold change with one boot a side.
 */
TEST(boots)
{
	static const struct {
		const char *name;
		double a[6], b[6];
		int ba[6], bb[6];
		size_t na, nb;
		bool load;
		enum bf_cmp_verdict v;
		enum bf_cmp_noise by;
	} c[] = {
		{ "one shared boot, B 25 % slower",
		  { 300, 301, 299 }, { 225, 226, 224 }, { 0, 0, 0 },
		  { 0, 0, 0 }, 3, 3, true, BF_CMP_WORSE, BF_CMP_BY_RUNS },
		{ "one boot each, B at half",
		  { 300, 301, 299 }, { 150, 151, 149 }, { 0, 0, 0 },
		  { 1, 1, 1 }, 3, 3, true, BF_CMP_UNSURE, BF_CMP_BY_ONE_BOOT },
		{ "one boot each, B at a tenth, apart",
		  { 300, 301, 299 }, { 30, 30.5, 29.5 }, { 0, 0, 0 },
		  { 1, 1, 1 }, 3, 3, true, BF_CMP_WORSE, BF_CMP_BY_ONE_BOOT },
		{ "one boot each, a path figure",
		  { 300, 301, 299 }, { 150, 151, 149 }, { 0, 0, 0 },
		  { 1, 1, 1 }, 3, 3, false, BF_CMP_WORSE, BF_CMP_BY_RUNS },
		{ "two boots each, boots spread as the sides",
		  { 300, 301, 200, 201 }, { 250, 251, 190, 191 },
		  { 0, 0, 2, 2 }, { 1, 1, 3, 3 }, 4, 4, true, BF_CMP_UNSURE,
		  BF_CMP_BY_BOOTS },
		{ "two boots each, B at a third",
		  { 300, 301, 290, 291 }, { 100, 101, 103, 104 },
		  { 0, 0, 2, 2 }, { 1, 1, 3, 3 }, 4, 4, true, BF_CMP_WORSE,
		  BF_CMP_BY_BOOTS },
		{ "interleaved in two boots of other levels, B 20 % slower",
		  { 300, 302, 150, 151 }, { 240, 241, 120, 121 },
		  { 0, 0, 1, 1 }, { 0, 0, 1, 1 }, 4, 4, true, BF_CMP_WORSE,
		  BF_CMP_BY_SHARED },
		{ "interleaved, one run per boot and side",
		  { 300, 150, 200, 250 }, { 240, 121, 160, 200 },
		  { 0, 1, 2, 3 }, { 0, 1, 2, 3 }, 4, 4, true, BF_CMP_WORSE,
		  BF_CMP_BY_SHARED },
		{ "interleaved in two boots, the same build",
		  { 300, 302, 150, 151 }, { 301, 299, 151, 149 },
		  { 0, 0, 1, 1 }, { 0, 0, 1, 1 }, 4, 4, true, BF_CMP_SAME,
		  BF_CMP_BY_SHARED },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct bf_cmp_row r = { .name = "floor", .unit = "MB/s",
					.kind = BF_CMP_LEVEL,
					.bad = BF_CMP_LOWER, .rel_min = 0.10,
					.load = c[i].load };

		side(&r.a, c[i].a, c[i].na, 1);
		side(&r.b, c[i].b, c[i].nb, 1);
		memcpy(r.a.boot, c[i].ba, sizeof(c[i].ba));
		memcpy(r.b.boot, c[i].bb, sizeof(c[i].bb));
		bf_cmp_judge(&r);
		EXPECT_EQ((int)c[i].v, (int)r.verdict) TH_LOG("%s: %s", c[i].name, r.why);
		EXPECT_EQ((int)c[i].by, (int)r.noise) TH_LOG("%s", c[i].name);
	}
}

/* No spread: said in words, no t of inf. */
TEST(no_spread)
{
	static const double a[] = { 300, 300, 300 }, b[] = { 200, 200, 200 };
	struct bf_cmp_row r = level(a, 3, b, 3, 0);

	EXPECT_EQ((int)BF_CMP_WORSE, (int)r.verdict);
	EXPECT_TRUE(r.nospread);
	EXPECT_NE(NULL, strstr(r.why, "no spread")) TH_LOG("%s", r.why);
	EXPECT_EQ(NULL, strstr(r.why, "inf")) TH_LOG("%s", r.why);
}

TEST_HARNESS_MAIN
