// SPDX-License-Identifier: GPL-2.0
/*
 * Temperature as evidence: the trace's temp_c column is read (empty cells
 * are "not measured", bad numbers are errors), and the classifier uses a
 * temperature that rises as the rate falls for heat, a flat one against it.
 * The curves are built so that the rate alone would be judged otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
/* the harness defines a few non-static functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"

/* deterministic noise, uniform in [-1, 1) */
static double jitter(uint64_t *st)
{
	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*st >> 11) / (double)(1ULL << 52) - 1;
}

/* rate(i) and temp(i) for n 1 s samples; temp NAN: not measured */
static void build(struct bf_sample *s, size_t n, const double *rate,
		  const double *temp)
{
	double bytes = 0;
	uint64_t st = 42;
	size_t i;

	for (i = 0; i < n; i++) {
		double r = rate[i] * (1 + 0.03 * jitter(&st));

		bytes += r * 1e6;
		s[i] = (struct bf_sample){ .t = i + 1.0, .dt = 1, .mbps = r,
					   .bytes = bytes };
		if (temp && !isnan(temp[i])) {
			s[i].temp_c = temp[i] + 0.2 * jitter(&st);
			s[i].has_temp = true;
		}
	}
}

#define N 120

/*
 * A thermal throttle that the rate alone reads as a cache: 400 MB/s while
 * the drive heats from 35 to 72 °C, then 240 MB/s held at the limit to the
 * end of the run (no recovery inside the window).
 */
static void thermal_one_step(double *rate, double *temp)
{
	for (int i = 0; i < N; i++) {
		rate[i] = i < 50 ? 400 : 240;
		temp[i] = i < 50 ? 35 + 37.0 * i / 49 : 72 - 4.0 * (i - 50) / 69;
	}
}

TEST(thermal_step_needs_temperature)
{
	struct bf_sample s[N];
	double rate[N], temp[N];
	struct bf_report r;

	thermal_one_step(rate, temp);
	build(s, N, rate, NULL);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	/* without a temperature this shape is a cache running out */
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class);
	EXPECT_EQ((size_t)0, r.temp.n);
	bf_report_free(&r);

	build(s, N, rate, temp);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(BF_CLASS_THERMAL_THROTTLING, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(1, r.temp.evidence);
	EXPECT_EQ((size_t)N, r.temp.n);
	EXPECT_LT(fabs(r.temp.start_c - 35), 0.5);
	EXPECT_LT(fabs(r.temp.max_c - 72), 0.5);
	EXPECT_LT(fabs(r.temp.end_c - 68), 0.5);
	EXPECT_LE(r.temp.corr, -0.5);
	EXPECT_GE(r.confidence, 0.6);
	EXPECT_NE(NULL, strstr(r.reason, "heated"));
	bf_report_free(&r);
}

/*
 * Throttle and recover: the rate falls as the temperature rises and climbs
 * back as it cools. Heat already; the temperature raises the confidence.
 */
TEST(thermal_saw_confidence_rises)
{
	struct bf_sample s[N];
	double rate[N], temp[N], c0;
	struct bf_report r;

	for (int i = 0; i < N; i++) {
		int ph = i % 40;

		rate[i] = ph < 25 ? 500 : 300;
		temp[i] = ph < 25 ? 55 + 15.0 * ph / 24 : 70 - 15.0 * (ph - 25) / 14;
	}
	build(s, N, rate, NULL);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	/* (the curve's own confidence: the reported one is capped at 0.7
	 * without an experiment, temperature or not) */
	c0 = r.shape_confidence;
	bf_report_free(&r);
	build(s, N, rate, temp);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(BF_CLASS_THERMAL_THROTTLING, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(1, r.temp.evidence);
	if (c0 < 0.99)
		EXPECT_GT(r.shape_confidence, c0);
	EXPECT_LE(r.confidence, 0.7);
	bf_report_free(&r);
}

/*
 * A staircase the rate alone reads as heat (moderate steps over time),
 * written at a flat 41 °C: a cache (or tiered caches) running out.
 */
TEST(flat_temperature_is_not_heat)
{
	struct bf_sample s[N];
	double rate[N], temp[N];
	struct bf_report r;

	for (int i = 0; i < N; i++) {
		rate[i] = i < 30 ? 800 : i < 60 ? 560 : i < 90 ? 400 : 280;
		temp[i] = 41;
	}
	build(s, N, rate, NULL);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(BF_CLASS_THERMAL_THROTTLING, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_free(&r);
	build(s, N, rate, temp);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(-1, r.temp.evidence);
	EXPECT_NE(NULL, strstr(r.temp.said, "against heat"));
	bf_report_free(&r);
}

/*
 * Sensors that lie: the staircase above, which the rate alone reads as
 * heat, beside a temperature that is no reading. Each is no evidence
 * either way (the verdict stays the shape's), never "not heat".
 */
enum lie { STUCK, SPARSE, HELD, BLANK };

static void lying_sensor(struct __test_metadata *_metadata, enum lie how,
			 const char *said)
{
	struct bf_sample s[N];
	double rate[N], temp[N];
	struct bf_report r;
	uint64_t st = 7;

	for (int i = 0; i < N; i++) {
		rate[i] = i < 30 ? 800 : i < 60 ? 560 : i < 90 ? 400 : 280;
		temp[i] = 41 + 0.4 * jitter(&st);
		/* read every 10 s, blank between */
		if (how == SPARSE && i % 10)
			temp[i] = NAN;
		/* read every 10 s, the value held between */
		if (how == HELD && i % 10)
			temp[i] = temp[i - 1];
		/* a quarter of the cells blank */
		if (how == BLANK && jitter(&st) < -0.5)
			temp[i] = NAN;
	}
	build(s, N, rate, temp);
	/* a stuck sensor repeats one value exactly; build() jitters it */
	for (int i = 0; i < N; i++) {
		if (how == STUCK)
			s[i].temp_c = 41;
		if (how == HELD && i % 10)
			s[i].temp_c = s[i - 1].temp_c;
	}
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(0, r.temp.evidence) TH_LOG("%s", r.temp.said);
	EXPECT_EQ(BF_CLASS_THERMAL_THROTTLING, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(NULL, strstr(r.reason, "not heat")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.temp.said, said)) TH_LOG("%s", r.temp.said);
	bf_report_free(&r);
}

/* 41 °C exactly while the rate fell 2.9-fold: stuck */
TEST(stuck_sensor_is_no_reading)
{
	lying_sensor(_metadata, STUCK, "stuck");
}

/* one reading every 10 intervals, blank cells between */
TEST(sparse_sensor_is_no_reading)
{
	lying_sensor(_metadata, SPARSE, "every 10 s");
}

/* a reading every interval, but a new value only every 10 s */
TEST(held_sensor_is_no_reading)
{
	lying_sensor(_metadata, HELD, "every 10 s");
}

/* a quarter of the cells blank */
TEST(blank_cells_are_no_reading)
{
	lying_sensor(_metadata, BLANK, "blank");
}

/*
 * A cache cliff (2,000 -> 400 MB/s at 50 s) on a drive that warms from 35
 * to 52 °C while it writes fast and cools to 44 °C on the lower-power
 * floor: rate and heating move together, but 52 °C is far below where
 * drives throttle. The drive cools because it writes less: not heat.
 */
TEST(cooling_after_a_cliff_is_not_heat)
{
	struct bf_sample s[N];
	double rate[N], temp[N];
	struct bf_report r;

	for (int i = 0; i < N; i++) {
		rate[i] = i < 50 ? 2000 : 400;
		temp[i] = i < 50 ? 35 + 17.0 * i / 49 : 52 - 8.0 * (i - 50) / 69;
	}
	build(s, N, rate, temp);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(0, r.temp.evidence) TH_LOG("%s", r.temp.said);
	EXPECT_NE(NULL, strstr(r.temp.said, "below")) TH_LOG("%s", r.temp.said);
	bf_report_free(&r);

	/* the same curve at 58 -> 75 °C: near the throttle range, heat */
	for (int i = 0; i < N; i++)
		temp[i] += 23;
	build(s, N, rate, temp);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(1, r.temp.evidence) TH_LOG("%s", r.temp.said);
	EXPECT_EQ(BF_CLASS_THERMAL_THROTTLING, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_free(&r);
}

/* A rate that holds gives no evidence, whatever the temperature did. */
TEST(steady_rate_no_evidence)
{
	struct bf_sample s[N];
	double rate[N], temp[N];
	struct bf_report r;

	for (int i = 0; i < N; i++) {
		rate[i] = 300;
		temp[i] = 30 + 20.0 * i / N;
	}
	build(s, N, rate, temp);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	EXPECT_EQ(BF_CLASS_STEADY, (int)r.class);
	EXPECT_EQ(0, r.temp.evidence);
	bf_report_free(&r);
}

/* The printers say what the temperature did. */
TEST(report_shows_temperature)
{
	struct bf_sample s[N];
	double rate[N], temp[N];
	struct bf_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	thermal_one_step(rate, temp);
	build(s, N, rate, temp);
	ASSERT_EQ(0, bf_classify(s, N, &r));
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	bf_report_print(f, &r);
	bf_report_json(f, &r);
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "temperature: 3"));
	EXPECT_NE(NULL, strstr(buf, "\"temperature\":{"));
	EXPECT_NE(NULL, strstr(buf, "\"evidence\":\"for heat\""));
	free(buf);
	bf_report_free(&r);
}

static int load(const char *text, struct bf_series *ser, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -1;
	ret = bf_series_read(f, ser, err, 200);
	fclose(f);
	return ret;
}

#define HDR "# blkfloor-trace v1\n" \
	"index,start_s,end_s,bytes,MBps,bytes_total,requests,temp_c\n"

TEST(trace_temp_column)
{
	struct bf_series ser = { 0 };
	char err[200] = "";

	ASSERT_EQ(0, load(HDR "0,0,1,1000000,1,1000000,10,40.5\n"
			      "1,1,2,1000000,1,2000000,10,\n"
			      "2,2,3,1000000,1,3000000,,41.0\n"
			      "# state: done\n", &ser, err)) TH_LOG("%s", err);
	ASSERT_EQ((size_t)3, ser.n);
	EXPECT_TRUE(ser.s[0].has_temp);
	EXPECT_EQ(40.5, ser.s[0].temp_c);
	EXPECT_FALSE(ser.s[1].has_temp);	/* empty: not measured */
	EXPECT_TRUE(ser.s[2].has_temp);
	bf_series_free(&ser);

	EXPECT_NE(0, load(HDR "0,0,1,1000000,1,1000000,10,hot\n", &ser, err));
	EXPECT_NE(NULL, strstr(err, "temp_c"));
	bf_series_free(&ser);
	EXPECT_NE(0, load(HDR "0,0,1,1000000,1,1000000,10,0x20\n", &ser, err));
	bf_series_free(&ser);
	EXPECT_NE(0, load(HDR "0,0,1,1000000,1,1000000,10,900\n", &ser, err));
	bf_series_free(&ser);
}

TEST_HARNESS_MAIN
