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

/* The report's JSON as bf_report_json() writes it (free it), or NULL. */
static char *report_json(const struct bf_report *r)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	if (!f)
		return NULL;
	bf_report_json(f, r);
	fclose(f);
	return doc;
}

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

/*
 * A bridge that stops completing commands: the rate holds, stalls for
 * seconds, and the kernel aborts and resets (RTL9210B-like). The run's
 * events name the link, whatever the shape said.
 */
TEST(link_events_name_the_link)
{
	const struct phase p[] = { { 20, 30 }, { 6, 0 }, { 20, 30 },
				   { 6, 0 }, { 20, 30 } };
	const struct bf_path_event ev[] = {
		{ 23.3, "abort" }, { 23.3, "timeout" }, { 24.6, "reset" },
		{ 25.1, "bind" }, { 27.9, "reset" }, { 49.0, "abort" },
		{ 50.2, "reset" },
	};
	struct bf_series ser;
	struct bf_report r;

	curve(&ser, p, 5, 0.5);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	ASSERT_NE(0U, r.stalls.count);
	bf_report_link_events(&r, ev, sizeof(ev) / sizeof(ev[0]));
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(0, r.confidence);
	EXPECT_EQ(6U, r.link.n);
	EXPECT_EQ(2U, r.link.abort);
	EXPECT_EQ(3U, r.link.reset);
	EXPECT_EQ(1U, r.link.timeout);
	EXPECT_EQ(3U, r.link.nreset_s);
	EXPECT_NE(NULL, strstr(r.reason, "the link, not the drive")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.reason, "reset 3 at 24.6, 27.9, 50.2 s (3.3 to 22.3 s apart)")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.reason, "stall")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.explain, "aborted and the device reset")) TH_LOG("%s", r.explain);
	{
		char *doc = report_json(&r);

		ASSERT_NE(NULL, doc);
		EXPECT_NE(NULL, strstr(doc, "\"link_events\":{\"abort\":2,\"reset\":3,\"timeout\":1,\"disconnect\":0,\"offline\":0,\"link\":0,\"host\":0,\"reset_s\":[24.6,27.9,50.2]}")) TH_LOG("%s", doc);
		free(doc);
	}
	bf_report_free(&r);
	bf_series_free(&ser);
}

/*
 * Many events and stalls: the reason names the events (their words cut
 * at 100 characters) and keeps the stalls' words whole (they were cut
 * when the reason held 160 bytes).
 */
TEST(link_reason_keeps_the_stalls)
{
	const struct phase p[] = { { 20, 30 }, { 6, 0 }, { 20, 30 },
				   { 6, 0 }, { 20, 30 } };
	const struct bf_path_event ev[] = {
		{ 23.3, "abort" }, { 23.3, "timeout" }, { 24.6, "reset" },
		{ 25.1, "disconnect" }, { 26.0, "offline" }, { 27.9, "reset" },
		{ 30.5, "reset" }, { 33.1, "reset" }, { 49.0, "abort" },
		{ 50.2, "reset" }, { 51.7, "reset" }, { 52.9, "timeout" },
	};
	struct bf_series ser;
	struct bf_report r;
	size_t n;

	curve(&ser, p, 5, 0.5);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	ASSERT_NE(0U, r.stalls.count);
	bf_report_link_events(&r, ev, sizeof(ev) / sizeof(ev[0]));
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class) TH_LOG("%s", r.reason);
	n = strlen(r.reason);
	ASSERT_GT(n, strlen("s in all)"));
	EXPECT_STREQ("s in all)", r.reason + n - strlen("s in all)")) TH_LOG("%s", r.reason);
	EXPECT_NE(NULL, strstr(r.reason, "stalls at ~0 (longest")) TH_LOG("%s", r.reason);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* A clean step (a cache) with a reset at it: not the drive's, unclear. */
TEST(reset_turns_a_drive_cause_unclear)
{
	const struct phase p[] = { { 60, 400 }, { 120, 100 } };
	const struct bf_path_event ev[] = { { 60.2, "reset" } };
	struct bf_series ser;
	struct bf_report r;
	char w[256];

	curve(&ser, p, 2, 1);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	ASSERT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_link_events(&r, ev, 1);
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class);
	EXPECT_FALSE(r.has_step);
	EXPECT_NE(NULL, strstr(r.explain, "said cache-exhaustion")) TH_LOG("%s", r.explain);
	bf_link_events_words(&r.link, w, sizeof(w));
	EXPECT_STREQ("reset 1 at 60.2 s", w);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* Events that are not the link's (a bind, an I/O error) change nothing. */
TEST(other_events_change_nothing)
{
	const struct phase p[] = { { 60, 400 }, { 120, 100 } };
	const struct bf_path_event ev[] = { { 1.0, "bind" },
					    { 70.0, "io-error" } };
	struct bf_series ser;
	struct bf_report r;

	curve(&ser, p, 2, 1);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	bf_report_link_events(&r, ev, 2);
	EXPECT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	EXPECT_EQ(0U, r.link.n);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/*
 * A cache-like step where the path was read again and had changed: the
 * USB link came back at USB 2 speed (a "link" event), or the host cut the
 * request size (a "host" event). Neither is the drive's: unclear, naming
 * the origin and when.
 */
TEST(path_change_names_its_origin)
{
	const struct phase p[] = { { 60, 400 }, { 120, 40 } };
	const struct bf_path_event link[] = { { 60.4, "link" } };
	const struct bf_path_event host[] = { { 1.0, "bind" },
					      { 60.4, "host" } };
	struct bf_series ser;
	struct bf_report r;
	char *doc;

	curve(&ser, p, 2, 1);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	ASSERT_EQ(BF_CLASS_CACHE_EXHAUSTION, (int)r.class) TH_LOG("%s", r.reason);
	bf_report_link_events(&r, link, 1);
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class);
	EXPECT_EQ(0, r.confidence);
	EXPECT_STREQ("the link, not the drive: link change 1 at 60.4 s", r.reason);
	EXPECT_NE(NULL, strstr(r.explain, "changed during the run (first at 60.4 s")) TH_LOG("%s", r.explain);
	EXPECT_NE(NULL, strstr(r.explain, "lower speed")) TH_LOG("%s", r.explain);
	EXPECT_NE(NULL, strstr(r.explain, "said cache-exhaustion")) TH_LOG("%s", r.explain);
	doc = report_json(&r);
	ASSERT_NE(NULL, doc);
	EXPECT_NE(NULL, strstr(doc, "\"link\":1,\"host\":0")) TH_LOG("%s", doc);
	free(doc);
	bf_report_free(&r);

	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	bf_report_link_events(&r, host, 2);
	EXPECT_EQ(BF_CLASS_UNCLEAR, (int)r.class);
	EXPECT_STREQ("the host, not the drive: host change 1 at 60.4 s", r.reason);
	EXPECT_NE(NULL, strstr(r.explain, "max_sectors_kb")) TH_LOG("%s", r.explain);
	bf_report_free(&r);
	bf_series_free(&ser);
}

TEST_HARNESS_MAIN
