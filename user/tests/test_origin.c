// SPDX-License-Identifier: GPL-2.0
/*
 * Causes outside the drive, from the curve alone: a step right after a
 * stall with no event to explain it is unclear; a burst at memory speed at
 * the start of an imported curve is the host's page cache.
 */
#include <math.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"
#include "origin.h"

struct phase {
	double secs, mbps;
};

static void curve(struct bf_series *ser, const struct phase *p, size_t np,
		  double dt)
{
	double t = 0, b = 0;
	size_t i, k;

	memset(ser, 0, sizeof(*ser));
	for (i = 0; i < np; i++)
		for (k = 0; k < (size_t)llround(p[i].secs / dt); k++) {
			/* a little noise, deterministic */
			double r = p[i].mbps * (1 + 0.02 * sin(7.0 * ser->n));

			t += dt;
			b += r * 1e6 * dt;
			bf_series_push(ser, t, dt, r, b);
		}
}

/* A USB 3 link that reset and came back at USB 2 speed. */
TEST(step_after_stall_is_unclear)
{
	const struct phase p[] = { { 60, 400 }, { 5, 0 }, { 120, 38 } };
	struct bf_series ser;
	struct bf_report r;

	curve(&ser, p, 3, 1);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(0, r.confidence);
	EXPECT_FALSE(r.has_step);
	EXPECT_NE(NULL, strstr(r.reason, "right after a 5.0 s stall")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.reason, "no event")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.explain, "link")) TH_LOG("%s", r.explain);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* A stall that the rate comes back from unchanged changes nothing. */
TEST(stall_without_step)
{
	const struct phase p[] = { { 60, 400 }, { 5, 0 }, { 120, 400 } };
	struct bf_series ser;
	struct bf_report r;

	curve(&ser, p, 3, 1);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_STEADY, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* A cache step far from a later stall is still the drive's. */
TEST(step_away_from_stall)
{
	const struct phase p[] = { { 60, 400 }, { 60, 40 }, { 5, 0 },
				   { 60, 40 } };
	struct bf_series ser;
	struct bf_report r;

	curve(&ser, p, 4, 1);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/*
 * fio through the page cache: 3 s at 6,000 MB/s (18 GB into RAM), then
 * the disk's 40 MB/s. The classifier alone calls it a cache of 18 GB.
 */
TEST(page_cache_burst_imported)
{
	const struct phase p[] = { { 3, 6000 }, { 200, 40 } };
	struct bf_series ser;
	struct bf_report r;

	curve(&ser, p, 2, 1);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class);
	bf_report_free(&r);
	ASSERT_EQ(0, bf_classify_imported(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_STEADY, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_FALSE(r.has_step);
	EXPECT_LT(fabs(r.peak_mbps - 40) / 40, 0.05);
	EXPECT_NE(NULL, strstr(r.reason, "page cache")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.explain, "not an SLC cache")) TH_LOG("%s", r.explain);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* A real small SLC cache at NVMe speed is not mistaken for RAM. */
TEST(fast_small_cache_is_not_page_cache)
{
	const struct phase p[] = { { 2, 3000 }, { 200, 300 } };
	const struct phase q[] = { { 60, 7000 }, { 200, 1400 } };
	struct bf_series ser;
	struct bf_report r;

	curve(&ser, p, 2, 0.5);
	ASSERT_EQ(0, bf_classify_imported(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_free(&r);
	bf_series_free(&ser);
	/* PCIe 5 speed, but for a minute: 420 GB is no page cache */
	curve(&ser, q, 2, 1);
	ASSERT_EQ(0, bf_classify_imported(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_free(&r);
	bf_series_free(&ser);
}

TEST_HARNESS_MAIN
