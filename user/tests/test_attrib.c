// SPDX-License-Identifier: GPL-2.0
/*
 * Transport attribution (user/analysis/attrib.c): the statistics of one curve, and
 * the verdict on a read and a write curve for every combination of steady
 * and swinging, across noise levels and curve lengths. Synthetic curves
 * come from user/tests/synth.c (steady, steady with one-interval stalls, cache
 * step, erratic FTL) and from a small generator here (quantised counts).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "attrib.h"
#include "synth.h"

static int gen(struct bf_series *ser, enum bf_synth_kind kind, double noise,
	       size_t n, uint64_t seed)
{
	struct bf_synth_params p = {
		.kind = kind, .scale = BF_SYN_QEMU, .noise = noise,
		.dt = 0.2, .n = n, .seed = seed,
	};
	struct bf_synth_truth t;

	memset(ser, 0, sizeof(*ser));
	return bf_synth_gen(&p, ser, &t);
}

/* The verdict on synthetic read and write curves. */
static int verdict(enum bf_synth_kind rk, enum bf_synth_kind wk,
		   double noise, size_t n, uint64_t seed, struct bf_attrib *a)
{
	struct bf_series r, w;
	int ret;

	ret = gen(&r, rk, noise, n, seed);
	if (!ret)
		ret = gen(&w, wk, noise, n, seed + 1000);
	if (!ret)
		ret = bf_attrib(r.s, r.n, 0, w.s, w.n, 0, a);
	bf_series_free(&r);
	bf_series_free(&w);
	return ret;
}

static void push_const(struct bf_series *s, const double *v, size_t n)
{
	double bytes = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		bytes += v[i] * 1e6 * 0.2;
		bf_series_push(s, 0.2 * (i + 1), 0.2, v[i], bytes);
	}
}

TEST(stats_of_known_values)
{
	static const double v[] = { 7, 1, 10, 3, 5, 9, 2, 8, 4, 6 };
	struct bf_series s = { 0 };
	struct bf_attrib_series st;

	push_const(&s, v, 10);
	ASSERT_EQ(0, bf_attrib_stats(s.s, s.n, 0, &st));
	EXPECT_EQ(10UL, st.n);
	EXPECT_EQ(0UL, st.nskipped);
	EXPECT_EQ(5.5, st.median);
	EXPECT_EQ(5.5, st.mean);
	EXPECT_LT(fabs(st.sd - sqrt(82.5 / 9)), 1e-9);
	EXPECT_LT(fabs(st.cv - st.sd / 5.5), 1e-12);
	EXPECT_EQ(1.0, st.min);
	EXPECT_EQ(10.0, st.max);
	/* linear between order statistics: 0.1 * 9 = 0.9 -> 1 + 0.9 */
	EXPECT_LT(fabs(st.p10 - 1.9), 1e-9);
	EXPECT_LT(fabs(st.p90 - 9.1), 1e-9);
	EXPECT_LT(fabs(st.p25 - 3.25), 1e-9);
	EXPECT_LT(fabs(st.p75 - 7.75), 1e-9);
	EXPECT_EQ(2.5, st.mad);
	EXPECT_LT(fabs(st.spread_rel - 4.5 / 5.5), 1e-9);
	/* no quantum in these byte counts: the link noise alone, 2 sigma */
	EXPECT_EQ(0.0, st.quantum);
	EXPECT_LT(fabs(st.limit_rel - 2 * BF_ATTRIB_LINK_NOISE), 1e-12);
	EXPECT_TRUE(st.erratic);
	bf_series_free(&s);
}

TEST(partial_last_interval_is_left_out)
{
	struct bf_series s = { 0 };
	struct bf_attrib_series st;
	size_t i;

	for (i = 0; i < 12; i++)
		bf_series_push(&s, 0.2 * (i + 1), 0.2, 40, 8e6 * (i + 1));
	/* 3 ms holding one 128 KiB request: 43.7 MB/s of nothing */
	bf_series_push(&s, 2.403, 0.003, 0.5, 8e6 * 12 + 1500);
	ASSERT_EQ(0, bf_attrib_stats(s.s, s.n, 131072, &st));
	EXPECT_EQ(12UL, st.n);
	EXPECT_EQ(1UL, st.nskipped);
	EXPECT_EQ(40.0, st.min);
	EXPECT_EQ(0.0, st.sd);
	EXPECT_FALSE(st.erratic);
	bf_series_free(&s);
}

TEST(too_few_intervals)
{
	struct bf_series s = { 0 };
	struct bf_attrib a;
	size_t i;

	for (i = 0; i < BF_ATTRIB_MIN_SAMPLES - 1; i++)
		bf_series_push(&s, 0.2 * (i + 1), 0.2, 40, 8e6 * (i + 1));
	EXPECT_EQ(-EINVAL, bf_attrib(s.s, s.n, 0, s.s, s.n, 0, &a));
	/* enough intervals, but the last one is partial */
	bf_series_push(&s, 0.2 * i + 0.01, 0.01, 40, 8e6 * i + 4e5);
	EXPECT_EQ(-EINVAL, bf_attrib(s.s, s.n, 0, s.s, s.n, 0, &a));
	bf_series_free(&s);
}

/*
 * Steady reads, erratic FTL writes: the drive, at every noise level. From
 * 50 intervals: in 20, a random-dwell oscillation can stay on one level
 * for more than three quarters of the run, which the quartiles (by design)
 * do not call a swing.
 */
TEST(verdict_drive)
{
	static const double noise[] = { 0, 0.01, 0.02, 0.05, 0.08 };
	static const size_t lens[] = { 50, 300 };
	struct bf_attrib a;
	unsigned int i, k, seed;

	for (i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
			for (seed = 1; seed <= 20; seed++) {
				ASSERT_EQ(0, verdict(BF_SYN_STEADY,
						     BF_SYN_FTL_ERRATIC,
						     noise[i], lens[k], seed,
						     &a));
				ASSERT_EQ((int)BF_VERDICT_DRIVE, (int)a.verdict)
					TH_LOG("noise %.2f n %zu seed %u: %s",
					       noise[i], lens[k], seed,
					       a.explain);
			}
	EXPECT_EQ(0, strncmp(a.explain, "reads held ", 11));
	EXPECT_LT(fabs(a.rd.median - 90), 9);
	EXPECT_NE(NULL, strstr(a.explain, "while writes swung between"));
	EXPECT_NE(NULL, strstr(a.explain,
			       "the fault is in the drive, not the cable or bridge"));
	EXPECT_TRUE(a.rd.has_class);
	EXPECT_EQ((int)BF_CLASS_STEADY, (int)a.rd.class);
	EXPECT_TRUE(a.wr.has_class);
	EXPECT_EQ((int)BF_CLASS_FTL_STARVATION, (int)a.wr.class);
}

/* A write curve with one cache step also swings: the drive. */
TEST(verdict_drive_cache_step)
{
	struct bf_attrib a;

	ASSERT_EQ(0, verdict(BF_SYN_STEADY, BF_SYN_CACHE, 0.05, 100, 3, &a));
	EXPECT_EQ((int)BF_VERDICT_DRIVE, (int)a.verdict);
	EXPECT_FALSE(a.rd.erratic);
	EXPECT_TRUE(a.wr.erratic);
}

/* Both steady: no fault, and no false alarm up to 12 % noise. */
TEST(verdict_none)
{
	static const double noise[] = { 0, 0.01, 0.02, 0.05, 0.08, 0.12 };
	static const size_t lens[] = { 20, 50, 300 };
	struct bf_attrib a;
	unsigned int i, k, seed;

	for (i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
			for (seed = 1; seed <= 50; seed++) {
				ASSERT_EQ(0, verdict(BF_SYN_STEADY,
						     BF_SYN_STEADY, noise[i],
						     lens[k], seed, &a));
				ASSERT_EQ((int)BF_VERDICT_NONE, (int)a.verdict)
					TH_LOG("noise %.2f n %zu seed %u: %s",
					       noise[i], lens[k], seed,
					       a.explain);
			}
	EXPECT_NE(NULL, strstr(a.explain, "both are steady"));
}

/* One-interval stalls (an emulator busy elsewhere) do not make a swing. */
TEST(isolated_stalls_are_not_a_swing)
{
	struct bf_attrib a;
	unsigned int seed;

	for (seed = 1; seed <= 20; seed++) {
		ASSERT_EQ(0, verdict(BF_SYN_STEADY_DIPS, BF_SYN_STEADY_DIPS,
				     0.03, 300, seed, &a));
		ASSERT_EQ((int)BF_VERDICT_NONE, (int)a.verdict)
			TH_LOG("seed %u: %s", seed, a.explain);
	}
}

/* Reads and writes both swing: the link. */
TEST(verdict_link_both)
{
	struct bf_attrib a;
	unsigned int seed;

	for (seed = 1; seed <= 20; seed++) {
		ASSERT_EQ(0, verdict(BF_SYN_FTL_ERRATIC, BF_SYN_FTL_ERRATIC,
				     0.05, 50, seed, &a));
		ASSERT_EQ((int)BF_VERDICT_LINK, (int)a.verdict);
	}
	EXPECT_TRUE(a.rd.erratic);
	EXPECT_TRUE(a.wr.erratic);
	EXPECT_NE(NULL, strstr(a.explain, "reads swung between"));
	EXPECT_NE(NULL, strstr(a.explain, "and writes swung between"));
	EXPECT_NE(NULL, strstr(a.explain, "cable, bridge or host"));
}

/* Reads swing, writes hold: the link too, worded for the read path. */
TEST(verdict_link_reads_only)
{
	struct bf_attrib a;

	ASSERT_EQ(0, verdict(BF_SYN_FTL_ERRATIC, BF_SYN_STEADY, 0.02, 50, 7,
			     &a));
	EXPECT_EQ((int)BF_VERDICT_LINK, (int)a.verdict);
	EXPECT_TRUE(a.rd.erratic);
	EXPECT_FALSE(a.wr.erratic);
	EXPECT_NE(NULL, strstr(a.explain, "while writes held "));
	EXPECT_LT(fabs(a.wr.median - 90), 9);
	EXPECT_NE(NULL, strstr(a.explain, "the swing is on the read path"));
}

/* Noise well past the model's 15 % is a swing, by design. */
TEST(noise_beyond_the_model_swings)
{
	struct bf_attrib a;
	unsigned int seed, swings = 0;

	for (seed = 1; seed <= 20; seed++) {
		ASSERT_EQ(0, verdict(BF_SYN_STEADY, BF_SYN_STEADY, 0.35, 300,
				     seed, &a));
		swings += a.rd.erratic && a.wr.erratic;
	}
	/* 1.349 * 35 % = 47 % spread against a 30 % limit: every time */
	EXPECT_EQ(20U, swings);
}

/*
 * Few completions per interval: a steady 32.8 MB/s in 10 ms intervals of
 * 128 KiB requests holds 2 or 3 requests each, a 40 % swing that is only
 * counting. The quantum is measured from the byte counts (with or without
 * the request size); counts that do not show it (a log with rounded
 * bytes) leave only the link noise, and then it is a swing.
 */
static void quantised(struct bf_series *s, double q, double k, size_t n,
		      double skew)
{
	const double dt = 0.01;
	uint64_t prev = 0, done;
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 1; i <= n; i++) {
		done = (uint64_t)(k * i + 0.37);
		bf_series_push(s, dt * i, dt, (done - prev) * q / dt / 1e6,
			       done * q + skew * i);
		prev = done;
	}
}

TEST(quantisation_is_noise)
{
	struct bf_attrib_series st;
	struct bf_series s;

	quantised(&s, 131072, 2.5, 200, 0);
	ASSERT_EQ(0, bf_attrib_stats(s.s, s.n, 131072, &st));
	EXPECT_EQ(131072.0, st.quantum);
	EXPECT_FALSE(st.erratic);
	EXPECT_GT(st.noise_rel, 0.3);
	ASSERT_EQ(0, bf_attrib_stats(s.s, s.n, 0, &st));
	EXPECT_EQ(131072.0, st.quantum);
	EXPECT_FALSE(st.erratic);
	bf_series_free(&s);

	quantised(&s, 131072, 2.5, 200, 1);
	ASSERT_EQ(0, bf_attrib_stats(s.s, s.n, 0, &st));
	EXPECT_EQ(0.0, st.quantum);
	EXPECT_TRUE(st.erratic);
	bf_series_free(&s);
}

/* 128 KiB requests merged into 1 MiB completions: the quantum is 1 MiB. */
TEST(merged_requests_quantum)
{
	struct bf_attrib_series st;
	struct bf_series s;

	/* 40 MB/s in 200 ms intervals: 7.6 MiB, 7 or 8 quanta each */
	quantised(&s, 1 << 20, 40e6 * 0.2 / (1 << 20), 40, 0);
	ASSERT_EQ(0, bf_attrib_stats(s.s, s.n, 131072, &st));
	EXPECT_EQ((double)(1 << 20), st.quantum);
	EXPECT_FALSE(st.erratic);
	bf_series_free(&s);
}

/* The brief's case: reads ~6 MB/s stdev, writes swinging ~300 MB/s. */
TEST(brief_case_sentence_and_json)
{
	struct bf_series r = { 0 }, w = { 0 };
	double rv[40], wv[40];
	struct bf_attrib a;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	for (i = 0; i < 40; i++) {
		rv[i] = 930 + ((int)(i * 7 % 5) - 2) * 4.0;	/* 922..938 */
		wv[i] = (i / 3) % 2 ? 940 : 120 + 10.0 * (i % 3);
	}
	push_const(&r, rv, 40);
	push_const(&w, wv, 40);
	ASSERT_EQ(0, bf_attrib(r.s, r.n, 1 << 20, w.s, w.n, 1 << 20, &a));
	EXPECT_EQ((int)BF_VERDICT_DRIVE, (int)a.verdict);
	EXPECT_LT(a.rd.sd, 7);
	EXPECT_GT(a.wr.sd, 300);
	EXPECT_STREQ("reads held 930 MB/s (stdev 5.73 MB/s) while writes swung between 120 and 940 MB/s (stdev 410 MB/s): the fault is in the drive, not the cable or bridge",
		     a.explain);

	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	bf_attrib_json(f, &a);
	fclose(f);
	{
		static const char head[] =
			"{\"schema\":2,\"verdict\":\"drive\",\"read\":{";

		EXPECT_EQ(0, strncmp(buf, head, sizeof(head) - 1))
			TH_LOG("%s", buf);
	}
	EXPECT_NE(NULL, strstr(buf, "\"write\":{\"intervals\":40,"));
	EXPECT_NE(NULL, strstr(buf, "\"erratic\":true"));
	EXPECT_NE(NULL, strstr(buf, "\"explanation\":\"reads held 930"));
	free(buf);
	bf_series_free(&r);
	bf_series_free(&w);
}

TEST(verdict_names)
{
	EXPECT_STREQ("drive", bf_verdict_name(BF_VERDICT_DRIVE));
	EXPECT_STREQ("link", bf_verdict_name(BF_VERDICT_LINK));
	EXPECT_STREQ("none", bf_verdict_name(BF_VERDICT_NONE));
}

TEST_HARNESS_MAIN
