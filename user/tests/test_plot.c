// SPDX-License-Identifier: GPL-2.0
/*
 * The SVG chart: a well-formed document with the class in the title, both
 * panels, the plateaus labelled and the cache step marked.
 */
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
	EXPECT_EQ(2, count(svg, ">2,5"));		/* peak label, per panel */
	EXPECT_EQ(2, count(svg, ">127 MB/s<"));	/* floor label, per panel */
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

TEST_HARNESS_MAIN
