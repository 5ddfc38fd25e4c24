// SPDX-License-Identifier: GPL-2.0
/*
 * Time to a verdict (issue 28 §6, Documentation/performance.rst): for
 * each seed article's drive on the simulated drive (tests/ttv.c), sustain
 * with its default stop (--until floor) against a whole-region write
 * (--until full), both through sustain.c as the CLI runs them. Each must
 * name the same class, with a floor within 5 %, in at most a fifth of
 * the time. A drive with no step writes on, and says how much it wrote
 * without one.
 *
 * The model that does not meet this is marked XFAIL below, not tuned:
 * the 1.3x step with a 200 GB cache spends 131 s in the cache and a
 * minute past it, 24 % of the whole write. Rounds short enough to meet
 * it stop the passive cooling drive on its throttled level and the
 * drive without TRIM on a fast phase (performance.rst, "Time to a
 * verdict"). (A full drive without TRIM
 * switches levels faster than a floor can hold for five rounds; its
 * floor is established as a switching floor, steady.h.)
 */
#include <math.h>
#include <string.h>

/* the harness's fixtures define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "ttv.h"

FIXTURE(ttv) {
	struct ttv_run stop, full;
};

FIXTURE_VARIANT(ttv) {
	unsigned int model;
};

FIXTURE_VARIANT_ADD(ttv, dramless) { .model = 0 };
FIXTURE_VARIANT_ADD(ttv, one_step) { .model = 1 };
FIXTURE_VARIANT_ADD(ttv, one_step_16gb) { .model = 2 };
FIXTURE_VARIANT_ADD(ttv, passive) { .model = 3 };
FIXTURE_VARIANT_ADD(ttv, no_trim) { .model = 4 };
FIXTURE_VARIANT_ADD(ttv, flat) { .model = 5 };

FIXTURE_SETUP(ttv)
{
	const struct ttv_model *m = &ttv_models[variant->model];

	ASSERT_EQ(6U, ttv_nmodels);
	ASSERT_EQ(0, ttv_run(m, BF_UNTIL_FLOOR, &self->stop));
	ASSERT_EQ(0, ttv_run(m, BF_UNTIL_FULL, &self->full));
	TH_LOG("%s: %s; stop %s, %.3g GB, %.1f s, floor %.0f; full %s, %.3g GB, %.1f s, floor %.0f",
	       m->name, self->stop.said,
	       bf_class_name(self->stop.class), self->stop.bytes / 1e9,
	       self->stop.secs, self->stop.floor_mbps,
	       bf_class_name(self->full.class), self->full.bytes / 1e9,
	       self->full.secs, self->full.floor_mbps);
}

FIXTURE_TEARDOWN(ttv)
{
}

/* the same verdict, and a floor within 5 % of the whole write's */
TEST_F(ttv, same_verdict)
{
	EXPECT_EQ(self->full.class, self->stop.class);
	EXPECT_LE(fabs(self->stop.floor_mbps - self->full.floor_mbps),
		  0.05 * self->full.floor_mbps);
}

/* in at most a fifth of the time; a drive with no step writes on */
/*
 * The floor the stop reports (JSON floor_MBps) is the floor, within 15 %
 * of the whole write's: not a level the drive recovered to; and none is
 * claimed where none held.
 */
TEST_F(ttv, stop_reports_the_floor)
{
	const char *p = strstr(self->stop.json, "\"floor_MBps\":");
	double floor;

	if (!strstr(self->stop.json, "\"floor_held\":true")) {
		/* no floor held: none is claimed */
		EXPECT_NE(NULL, strstr(self->stop.json, "\"floor_MBps\":null"))
			TH_LOG("%s", self->stop.json);
		return;
	}
	ASSERT_NE(NULL, p) TH_LOG("%s", self->stop.json);
	ASSERT_EQ(1, sscanf(p + strlen("\"floor_MBps\":"), "%lf", &floor))
		TH_LOG("%s", self->stop.json);
	EXPECT_LE(fabs(floor - self->full.floor_mbps),
		  0.15 * self->full.floor_mbps)
		TH_LOG("%s", self->stop.json);
}

TEST_F(ttv, time_to_verdict)
{
	const struct ttv_model *m = &ttv_models[variant->model];

	if (!m->step) {
		EXPECT_EQ(self->full.bytes, self->stop.bytes);
		EXPECT_NE(NULL, strstr(self->stop.said, "without a step"));
		EXPECT_NE(NULL, strstr(self->stop.said, "wrote 32.2 GB of 32.2 GB"))
			TH_LOG("%s", self->stop.said);
		return;
	}
	EXPECT_LE(self->stop.secs, self->full.secs / 5);
	EXPECT_NE(NULL, strstr(self->stop.said, "stopped "))
		TH_LOG("%s", self->stop.said);
}

XFAIL_ADD(ttv, one_step, time_to_verdict);

TEST_HARNESS_MAIN
