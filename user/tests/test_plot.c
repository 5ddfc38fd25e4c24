// SPDX-License-Identifier: GPL-2.0
/*
 * The SVG chart: a well-formed document with the class in the title, both
 * panels, the plateaus labelled and the cache step marked.
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "classify.h"
#include "plot.h"
#include "synth.h"

static char *plot(int kind, size_t n)
{
	struct bf_synth_params p = {
		.kind = kind, .scale = BF_SYN_REAL, .noise = 0.05, .dt = 1,
		.n = n, .seed = 5,
	};
	struct bf_series ser = { 0 };
	struct bf_synth_truth t;
	struct bf_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (bf_synth_gen(&p, &ser, &t) || bf_classify(ser.s, ser.n, &r))
		return NULL;
	f = open_memstream(&buf, &len);
	if (f) {
		if (bf_plot_svg(f, ser.s, ser.n, &r, "a <title> & more"))
			len = 0;
		fclose(f);
	}
	bf_report_free(&r);
	bf_series_free(&ser);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* Every element is either self-closed or closed, in order. */
static bool balanced(const char *s)
{
	char stack[16][16];
	int depth = 0;

	while ((s = strchr(s, '<'))) {
		const char *e = strchr(s, '>');
		size_t l;

		if (!e)
			return false;
		if (s[1] == '?') {
			s = e;
			continue;
		}
		if (s[1] == '/') {
			l = strcspn(s + 2, " >");
			if (!depth || strncmp(stack[depth - 1], s + 2, l))
				return false;
			depth--;
		} else if (e[-1] != '/') {
			l = strcspn(s + 1, " >");
			if (depth == 16 || l >= 16)
				return false;
			memcpy(stack[depth], s + 1, l);
			stack[depth++][l] = '\0';
		}
		s = e;
	}
	return depth == 0;
}

TEST(cache_chart)
{
	char *svg = plot(BF_SYN_CACHE, 400);

	ASSERT_NE(NULL, svg);
	EXPECT_TRUE(balanced(svg));
	EXPECT_NE(NULL, strstr(svg, "cache-exhaustion: a &lt;title&gt; &amp; more"));
	EXPECT_NE(NULL, strstr(svg, "bytes written (GB)"));
	EXPECT_NE(NULL, strstr(svg, "time (s)"));
	EXPECT_EQ(2, count(svg, "rate (MB/s)"));
	EXPECT_EQ(2, count(svg, ">step: "));	/* once per panel */
	EXPECT_EQ(3, count(svg, ">peak 2,5"));	/* subtitle, and per panel */
	EXPECT_EQ(2, count(svg, ">floor 127 MB/s<"));	/* and the floor */
	free(svg);
}

TEST(erratic_chart_shows_levels)
{
	char *svg = plot(BF_SYN_FTL_ERRATIC, 300);

	ASSERT_NE(NULL, svg);
	EXPECT_TRUE(balanced(svg));
	EXPECT_EQ(3, count(svg, ">peak "));	/* subtitle + 2 panels */
	EXPECT_EQ(2, count(svg, ">floor "));
	EXPECT_EQ(0, count(svg, ">step: "));
	free(svg);
}

TEST(million_samples_decimated)
{
	char *svg = plot(BF_SYN_THERMAL_SAW, 1000000);

	ASSERT_NE(NULL, svg);
	EXPECT_TRUE(balanced(svg));
	/* min/max per pixel column: far fewer points than samples */
	EXPECT_LT(strlen(svg), (size_t)200000);
	free(svg);
}

/* The plateau labels say the report's peak and floor, not a median. */
TEST(labels_are_the_reports_numbers)
{
	struct bf_synth_params p = {
		.kind = BF_SYN_CACHE, .scale = BF_SYN_REAL, .noise = 0.05,
		.dt = 1, .n = 400, .seed = 5,
	};
	struct bf_series ser = { 0 };
	struct bf_synth_truth t;
	struct bf_report r;
	char *buf = NULL, want[64], fl[32];
	size_t len = 0;
	FILE *f;

	ASSERT_EQ(0, bf_synth_gen(&p, &ser, &t));
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	r.floor_mbps = 123.4;	/* whatever the report says, the chart says */
	f = open_memstream(&buf, &len);
	ASSERT_EQ(0, bf_plot_svg(f, ser.s, ser.n, &r, NULL));
	fclose(f);
	bf_fmt_mbps(fl, sizeof(fl), r.floor_mbps);
	snprintf(want, sizeof(want), ">floor %s MB/s<", fl);
	EXPECT_EQ(2, count(buf, want)) TH_LOG("%s", want);
	free(buf);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* A flat curve of @n samples of @dt s at @mbps. */
static void flat(struct bf_series *ser, size_t n, double dt, double mbps)
{
	double bytes = 0;
	size_t i;

	memset(ser, 0, sizeof(*ser));
	for (i = 0; i < n; i++) {
		struct bf_sample x = { 0 };

		bytes += mbps * 1e6 * dt;
		x.t = (i + 1) * dt;
		x.dt = dt;
		x.mbps = mbps * (1 + 0.02 * ((int)((i * 7919) % 11) - 5) / 5.0);
		x.bytes = bytes;
		bf_series_add_sample(ser, &x);
	}
	bf_series_finish(ser);
}

static char *chart(const struct bf_plot *pl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (bf_plot_write(f, pl)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* 70 TB over 83 hours: TB and h on the axes, not 70,000 GB, 300,000 s. */
TEST(units_scaled)
{
	struct bf_series ser;
	struct bf_report r;
	struct bf_plot pl = { 0 };
	char *svg;

	flat(&ser, 3000, 100, 233);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	pl.c[0] = (struct bf_plot_curve){ ser.s, ser.n, &r, NULL, NULL, 0, NULL, 0 };
	pl.n = 1;
	svg = chart(&pl);
	ASSERT_NE(NULL, svg);
	EXPECT_TRUE(balanced(svg));
	EXPECT_NE(NULL, strstr(svg, "bytes written (TB)"));
	EXPECT_NE(NULL, strstr(svg, "time (h)"));
	EXPECT_EQ(NULL, strstr(svg, ">70000<"));
	free(svg);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/* At 4 kB/s the rate ticks must not all read 0.00. */
TEST(low_rate_ticks)
{
	struct bf_series ser;
	struct bf_report r;
	struct bf_plot pl = { 0 };
	char *svg;

	flat(&ser, 120, 1, 0.004);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	pl.c[0] = (struct bf_plot_curve){ ser.s, ser.n, &r, NULL, NULL, 0, NULL, 0 };
	pl.n = 1;
	svg = chart(&pl);
	ASSERT_NE(NULL, svg);
	/* rate ticks are right-aligned; the bytes axis is another story */
	EXPECT_NE(NULL, strstr(svg, "'end' font-size='13'>0.001<"));
	EXPECT_NE(NULL, strstr(svg, "'end' font-size='13'>0.004<"));
	EXPECT_EQ(0, count(svg, "'end' font-size='13'>0.00<"));
	free(svg);
	bf_report_free(&r);
	bf_series_free(&ser);
}

TEST(caption_and_marks)
{
	static const struct bf_plot_mark m[] = {
		{ 20.5, BF_MARK_RESET }, { 30, BF_MARK_TIMEOUT },
		{ 40, BF_MARK_ERROR }, { 50, BF_MARK_LINK },
	};
	struct bf_series ser;
	struct bf_report r;
	struct bf_plot pl = { 0 };
	char *svg;

	flat(&ser, 100, 1, 300);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	pl.title = "sdb.trace";
	pl.caption = "/dev/sdb Samsung SSD 870 <usb>\nkernel 6.12.1";
	pl.c[0] = (struct bf_plot_curve){ ser.s, ser.n, &r, NULL, m, 4, NULL, 0 };
	pl.n = 1;
	svg = chart(&pl);
	ASSERT_NE(NULL, svg);
	EXPECT_TRUE(balanced(svg));
	EXPECT_NE(NULL, strstr(svg, ">/dev/sdb Samsung SSD 870 &lt;usb&gt;<"));
	EXPECT_NE(NULL, strstr(svg, ">kernel 6.12.1<"));
	/* each mark in both panels, and once in the legend */
	EXPECT_EQ(3, count(svg, "class='mark-reset'"));
	EXPECT_EQ(3, count(svg, "class='mark-timeout'"));
	EXPECT_EQ(3, count(svg, "class='mark-error'"));
	EXPECT_EQ(3, count(svg, "class='mark-link'"));
	free(svg);
	bf_report_free(&r);
	bf_series_free(&ser);
}

/*
 * The idle gaps of diagnose's experiments, after the sustained write:
 * shaded on the time panel only, which reaches to the end of the last,
 * and named once in the legend.
 */
TEST(idle_gaps_shaded)
{
	static const struct bf_plot_gap g[] = { { 310, 10 }, { 330, 60 } };
	struct bf_series ser;
	struct bf_report r;
	struct bf_plot pl = { 0 };
	double x1, w1, x2, w2;
	const char *p;
	char *svg;

	flat(&ser, 100, 1, 300);
	ASSERT_EQ(0, bf_classify(ser.s, ser.n, &r));
	pl.c[0] = (struct bf_plot_curve){ ser.s, ser.n, &r, NULL, NULL, 0, g, 2 };
	pl.n = 1;
	svg = chart(&pl);
	ASSERT_NE(NULL, svg);
	EXPECT_TRUE(balanced(svg));
	EXPECT_EQ(2, count(svg, "class='idle-gap'"));
	EXPECT_EQ(1, count(svg, "class='idle-legend'"));
	/* the time axis reaches 390 s: a tick at 350 beyond the curve */
	EXPECT_NE(NULL, strstr(svg, ">350<")) TH_LOG("%.3000s", svg);
	/* in order, six times as wide, both right of the curve's end */
	p = strstr(svg, "class='idle-gap' x='");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(2, sscanf(p, "class='idle-gap' x='%lf' y='%*f' width='%lf'", &x1, &w1));
	p = strstr(p + 1, "class='idle-gap' x='");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(2, sscanf(p, "class='idle-gap' x='%lf' y='%*f' width='%lf'", &x2, &w2));
	EXPECT_LT(x1 + w1, x2);
	EXPECT_LT(fabs(w2 / w1 - 6), 0.1);
	/* 310 s of 390 s into the panel, 10 s wide */
	EXPECT_LT(fabs((x1 - x2) / w1 - (310.0 - 330.0) / 10), 0.1);
	free(svg);
	bf_report_free(&r);
	bf_series_free(&ser);
}

TEST(overlay)
{
	struct bf_series a, b;
	struct bf_report ra, rb;
	struct bf_plot pl = { 0 };
	char *svg;

	flat(&a, 100, 1, 300);
	flat(&b, 80, 1, 200);
	ASSERT_EQ(0, bf_classify(a.s, a.n, &ra));
	ASSERT_EQ(0, bf_classify(b.s, b.n, &rb));
	pl.c[0] = (struct bf_plot_curve){ a.s, a.n, &ra, "A: 6.12.1", NULL, 0, NULL, 0 };
	pl.c[1] = (struct bf_plot_curve){ b.s, b.n, &rb, "B: 6.13", NULL, 0, NULL, 0 };
	pl.n = 2;
	svg = chart(&pl);
	ASSERT_NE(NULL, svg);
	EXPECT_TRUE(balanced(svg));
	EXPECT_EQ(2, count(svg, "class='curve-a'"));	/* one per panel */
	EXPECT_EQ(2, count(svg, "class='curve-b'"));
	EXPECT_NE(NULL, strstr(svg, ">A: 6.12.1: steady, peak "));
	EXPECT_NE(NULL, strstr(svg, ">B: 6.13: steady, peak "));
	free(svg);
	bf_report_free(&ra);
	bf_report_free(&rb);
	bf_series_free(&a);
	bf_series_free(&b);
}

TEST_HARNESS_MAIN
