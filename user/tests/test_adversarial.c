// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier on the adversarial patterns (tests/advgen.c): each
 * pattern over its tuning and held-aside curves, the invariants every
 * report keeps (the floor never above the mean, hangs counted as stalls
 * and never a cache), the class independent of the sampling interval, and
 * the held-aside accuracy recorded in Documentation/classification.rst.
 */
#include <math.h>
#include <stdlib.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "advgen.h"
#include "classify.h"

/*
 * The "held-aside" set's accuracy recorded in classification.rst: 286 of
 * 304. It chose thresholds before, so it is a regression set, not a
 * measure of generalisation (no set in this tree is: their labels can be
 * read). It was 287
 * until issue 28's origin rules (a step right after a stall is unclear).
 */
#define HELD_RIGHT	286

struct tally {
	unsigned int right, all, broken;
};

static void run_set(struct __test_metadata *_metadata, bool held, int kind,
		    struct tally *t)
{
	size_t n = bf_adv_set(NULL, 0, held), i;
	struct bf_adv_params *p = calloc(n, sizeof(*p));

	ASSERT_NE(NULL, p);
	bf_adv_set(p, n, held);
	for (i = 0; i < n; i++) {
		struct bf_series ser = { 0 };
		struct bf_adv_truth tr;
		struct bf_report r;

		if (kind >= 0 && (int)p[i].kind != kind)
			continue;
		ASSERT_EQ(0, bf_adv_gen(&p[i], &ser, &tr));
		ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
		t->all++;
		t->right += r.class == tr.class;
		/* invariants, whatever the class */
		if (r.floor_mbps > r.mean_mbps * (1 + 1e-9) ||
		    r.stalls.count < tr.stalls ||
		    (tr.stalls && tr.class == BF_CLASS_STEADY &&
		     r.class == BF_CLASS_CACHE_EXHAUSTION) ||
		    (r.class == BF_CLASS_UNCLEAR) != (r.confidence == 0)) {
			t->broken++;
			TH_LOG("%s seed %llu: floor %.1f mean %.1f stalls %u/%u class %s",
			       bf_adv_kind_name(p[i].kind),
			       (unsigned long long)p[i].seed, r.floor_mbps,
			       r.mean_mbps, r.stalls.count, tr.stalls,
			       bf_class_name(r.class));
		}
		/* misses of the held-aside set are counted, not shown:
		 * nobody tunes on them */
		if (r.class != tr.class && !held)
			TH_LOG("%s noise %.2f dt %g T %g seed %llu: %s (%s)",
			       bf_adv_kind_name(p[i].kind), p[i].noise,
			       p[i].dt, p[i].T, (unsigned long long)p[i].seed,
			       bf_class_name(r.class), r.reason);
		bf_report_free(&r);
		bf_series_free(&ser);
	}
	free(p);
}

/* Each pattern: at least 80 % right over both sets, no invariant broken. */
static void run_kind(struct __test_metadata *_metadata, int kind)
{
	struct tally t = { 0 };

	run_set(_metadata, false, kind, &t);
	run_set(_metadata, true, kind, &t);
	TH_LOG("%s: %u/%u right", bf_adv_kind_name(kind), t.right, t.all);
	ASSERT_LT(0U, t.all);
	EXPECT_EQ(0U, t.broken);
	EXPECT_GE(t.right * 10, t.all * 8);
}

#define KIND(name, k) TEST(pattern_##name) { run_kind(_metadata, k); }
KIND(cache_drift, BF_ADV_CACHE_DRIFT)
KIND(cache_second_step, BF_ADV_CACHE_STEP2)
KIND(cache_multi_stage, BF_ADV_CACHE_MULTI)
KIND(cache_noisy_floor, BF_ADV_CACHE_NOISY)
KIND(cache_periodic_bursts, BF_ADV_CACHE_BURSTS)
KIND(cache_small_step, BF_ADV_CACHE_SMALL)
KIND(cache_then_hang, BF_ADV_CACHE_HANG)
KIND(steady_white_noise, BF_ADV_STEADY_WHITE)
KIND(steady_one_sample_dips, BF_ADV_STEADY_DIPS)
KIND(steady_linear_decline, BF_ADV_STEADY_LINEAR)
KIND(steady_hang_at_end, BF_ADV_STEADY_HANG_END)
KIND(steady_hang_mid_run, BF_ADV_STEADY_HANG_MID)
KIND(ftl_regular_gc, BF_ADV_FTL_REGULAR)
KIND(ftl_random_dips, BF_ADV_FTL_DIPS)
KIND(ftl_random_switching, BF_ADV_FTL_RANDOM)
KIND(thermal_staircase, BF_ADV_THERMAL_STAIR)
KIND(thermal_recovery, BF_ADV_THERMAL_RECOVER)
KIND(thermal_slow_cycle, BF_ADV_THERMAL_CYCLE)
KIND(unclear_four_samples, BF_ADV_UNCLEAR_TINY)

/* The set the method was not tuned on: no worse than recorded. */
TEST(held_aside_accuracy)
{
	struct tally t = { 0 };

	run_set(_metadata, true, -1, &t);
	TH_LOG("held aside: %u/%u right (recorded %d)", t.right, t.all,
	       HELD_RIGHT);
	EXPECT_EQ(0U, t.broken);
	EXPECT_GE(t.right, (unsigned int)HELD_RIGHT);
}

/* The same drive sampled at 0.1 s and at 1 s gets the same class. */
TEST(class_independent_of_interval)
{
	static const int kinds[] = { BF_ADV_CACHE_BURSTS, BF_ADV_FTL_REGULAR,
				     BF_ADV_THERMAL_CYCLE, BF_ADV_CACHE_NOISY };
	unsigned int seed, k, same = 0, all = 0;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (seed = 1; seed <= 5; seed++) {
			struct bf_adv_params p = { .kind = kinds[k],
				.noise = 0.05, .T = 600, .seed = seed };
			enum bf_class c[2];
			int i;

			for (i = 0; i < 2; i++) {
				struct bf_series ser = { 0 };
				struct bf_adv_truth tr;
				struct bf_report r;

				p.dt = i ? 1 : 0.1;
				ASSERT_EQ(0, bf_adv_gen(&p, &ser, &tr));
				ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
				c[i] = r.class;
				bf_report_free(&r);
				bf_series_free(&ser);
			}
			all++;
			same += c[0] == c[1];
			if (c[0] != c[1])
				TH_LOG("%s seed %u: %s at 0.1 s, %s at 1 s",
				       bf_adv_kind_name(kinds[k]), seed,
				       bf_class_name(c[0]), bf_class_name(c[1]));
		}
	EXPECT_EQ(all, same);
}

TEST_HARNESS_MAIN
