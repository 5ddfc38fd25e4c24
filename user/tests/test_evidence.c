// SPDX-License-Identifier: GPL-2.0
/*
 * Confidence follows evidence: a verdict read from the curve's shape alone
 * is capped and says so; an experiment that confirms the cause lifts the
 * cap, one that points elsewhere changes the verdict.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"
#include "evidence.h"

/* 2,555 MB/s for 280 GB, then 127 MB/s: the brief's DRAM-less drive */
static void cliff(struct bf_series *ser)
{
	double b = 0;
	int i;

	memset(ser, 0, sizeof(*ser));
	for (i = 0; i < 600; i++) {
		double r = b < 280e9 ? 2555 : 127;

		b += r * 1e6;
		bf_series_push(ser, i + 1, 1, r, b);
	}
}

/* The printed report and the JSON object as strings. */
static char *text_of(const struct bf_report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (json)
		bf_report_json(f, r);
	else
		bf_report_print(f, r);
	fclose(f);
	return buf;
}

TEST(shape_only_is_capped)
{
	struct bf_series ser;
	struct bf_report r;
	char *t, *j;

	cliff(&ser);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class);
	/* the shape itself is clear-cut ... */
	EXPECT_GE(r.shape_confidence, 0.9);
	/* ... but shape is a hint, not evidence */
	EXPECT_LE(r.confidence, BF_SHAPE_CONF_MAX);
	EXPECT_EQ(0.7, BF_SHAPE_CONF_MAX);
	EXPECT_FALSE(r.confirmed);
	t = text_of(&r, false);
	j = text_of(&r, true);
	ASSERT_NE(NULL, t);
	ASSERT_NE(NULL, j);
	EXPECT_NE(NULL, strstr(t, "(confidence 0.70, shape only; run `diagnose` to confirm)")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(j, "\"basis\":\"shape\"")) TH_LOG("%s", j);
	EXPECT_NE(NULL, strstr(j, "\"evidence\":[]")) TH_LOG("%s", j);
	free(t);
	free(j);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* unclear stays at 0 and is not told to run diagnose to "confirm" it */
TEST(unclear_not_capped_text)
{
	struct bf_report r;
	struct bf_sample s[3] = {
		{ 1, 1, 100, 1e8, 0, false }, { 2, 1, 100, 2e8, 0, false },
		{ 3, 1, 100, 3e8, 0, false },
	};
	char *t;

	ASSERT_EQ(0, bf_classify(s, 3, &r));
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class);
	EXPECT_EQ(0, r.confidence);
	t = text_of(&r, false);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(NULL, strstr(t, "shape only")) TH_LOG("%s", t);
	free(t);
	bf_report_free(&r);
}

/* An experiment that confirms the shape's cause lifts the cap. */
TEST(confirmed_is_high)
{
	struct bf_evidence ev[1] = { {
		.kind = BF_EXP_COOL_DOWN, .supports = BF_CLASS_CACHE_EXHAUSTION,
		.confirms = true, .bytes = 12e9, .secs = 90,
		.result = "relapsed after 10.0 GB at full and at half speed",
	} };
	struct bf_series ser;
	struct bf_report r;
	char *t, *j;

	cliff(&ser);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	bf_report_apply_evidence(&r, ev, 1);
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class);
	EXPECT_TRUE(r.confirmed);
	EXPECT_GE(r.confidence, 0.9);
	EXPECT_NE(NULL, strstr(ev[0].effect, "confirms cache-exhaustion")) TH_LOG("%s", ev[0].effect);
	t = text_of(&r, false);
	j = text_of(&r, true);
	EXPECT_EQ(NULL, strstr(t, "shape only")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, "evidence: cool-down: relapsed after 10.0 GB")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, "(cost 12.0 GB, 1 min 30 s)")) TH_LOG("%s", strstr(t, "evidence:"));
	EXPECT_NE(NULL, strstr(j, "\"basis\":\"experiment\"")) TH_LOG("%s", j);
	EXPECT_NE(NULL, strstr(j, "\"experiment\":\"cool-down\"")) TH_LOG("%s", j);
	EXPECT_NE(NULL, strstr(j, "\"cost_bytes\":12000000000")) TH_LOG("%s", j);
	free(t);
	free(j);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* An experiment that points at another cause changes the verdict. */
TEST(experiment_overrides_shape)
{
	struct bf_evidence ev[2] = { {
		.kind = BF_EXP_IDLE_RECOVERY, .supports = -1,
		.result = "no recovery after 10-120 s idle",
	}, {
		.kind = BF_EXP_TRIM_RETEST, .supports = BF_CLASS_FTL_STARVATION,
		.confirms = true, .result = "back to 2,400 MB/s after TRIM",
	} };
	struct bf_series ser;
	struct bf_report r;

	cliff(&ser);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	bf_report_apply_evidence(&r, ev, 2);
	EXPECT_EQ(BF_CLASS_FTL_STARVATION, (int)r.class);
	EXPECT_TRUE(r.confirmed);
	EXPECT_GE(r.confidence, 0.8);
	EXPECT_NE(NULL, strstr(r.reason, "the shape alone said cache-exhaustion")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(ev[1].effect, "changes the verdict")) TH_LOG("%s", ev[1].effect);
	EXPECT_NE(NULL, strstr(ev[0].effect, "none")) TH_LOG("%s", ev[0].effect);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* Experiments that confirm two causes: unclear, and it says why. */
TEST(experiments_disagree)
{
	struct bf_evidence ev[2] = { {
		.kind = BF_EXP_COOL_DOWN, .supports = BF_CLASS_THERMAL_THROTTLING,
		.confirms = true, .result = "held 20 s at full, 60 s at half",
	}, {
		.kind = BF_EXP_TRIM_RETEST, .supports = BF_CLASS_FTL_STARVATION,
		.confirms = true, .result = "back to the peak after TRIM",
	} };
	struct bf_series ser;
	struct bf_report r;

	cliff(&ser);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	bf_report_apply_evidence(&r, ev, 2);
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class);
	EXPECT_EQ(0, r.confidence);
	EXPECT_NE(NULL, strstr(r.reason, "experiments disagree")) TH_LOG("%s", r.reason);
	bf_report_free(&r);
	bf_series_free(&ser);
}

TEST_HARNESS_MAIN
