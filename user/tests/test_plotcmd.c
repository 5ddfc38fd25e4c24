// SPDX-License-Identifier: GPL-2.0
/*
 * plot for a report: the caption from the trace header, the path's events
 * marked, two runs overlaid, -o - for standard output, no overwriting
 * without --force, PNG through rsvg-convert (or a clear refusal), never
 * SVG bytes in a .png file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "cmdtrace.h"

struct dir {
	char d[64], a[96], b[96], out[96], svg[96], png[96];
};

static void dir_init(struct dir *x)
{
	snprintf(x->d, sizeof(x->d), "/tmp/bf-plot-XXXXXX");
	if (!mkdtemp(x->d))
		abort();
	snprintf(x->a, sizeof(x->a), "%s/a.trace", x->d);
	snprintf(x->b, sizeof(x->b), "%s/b.trace", x->d);
	snprintf(x->out, sizeof(x->out), "%s/stdout", x->d);
	snprintf(x->svg, sizeof(x->svg), "%s/chart.svg", x->d);
	snprintf(x->png, sizeof(x->png), "%s/chart.png", x->d);
}

static void dir_done(struct dir *x)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->d);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", x->d);
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

/* diagnose's idle gaps, from the trace's "# experiment: idle" lines */
TEST(idle_gaps_from_the_trace)
{
	struct dir x;
	struct spec s = base;
	FILE *f;
	char *o;

	dir_init(&x);
	write_trace(x.a, &s);
	f = fopen(x.a, "a");
	ASSERT_NE(NULL, f);
	fputs("# experiment: idle at 45.0 s for 10.0 s\n"
	      "# experiment: idle-recovery: after 10 s idle, 5.00 GB (2.5 s) at the high rate\n"
	      "# experiment: idle at 60.0 s for 60.0 s\n", f);
	fclose(f);
	{
		const char *args[] = { x.a, "-o", "-", NULL };

		EXPECT_EQ(0, run_cmd("plot", x.out, args));
	}
	o = slurp(x.out);
	EXPECT_EQ(2, count(o, "class='idle-gap'")) TH_LOG("%.2000s", o);
	EXPECT_NE(NULL, strstr(o, "idle gaps of the experiments"));
	dir_done(&x);
}

TEST(stdout_caption_and_marks)
{
	struct dir x;
	struct spec s = base;
	char *o;

	dir_init(&x);
	s.resets = 1;
	s.errors = 1;
	write_trace(x.a, &s);
	{
		const char *args[] = { x.a, "-o", "-", NULL };

		EXPECT_EQ(0, run_cmd("plot", x.out, args));
	}
	EXPECT_NE(0, access("-", F_OK));	/* no file named '-' */
	o = slurp(x.out);
	EXPECT_EQ(0, strncmp(o, "<?xml", 5));
	EXPECT_NE(NULL, strstr(o, "kernel 6.12.1")) TH_LOG("%.1500s", o);
	EXPECT_NE(NULL, strstr(o, "uas"));
	EXPECT_NE(NULL, strstr(o, "5000 Mb/s"));
	EXPECT_NE(NULL, strstr(o, "0bda:9210"));
	EXPECT_NE(NULL, strstr(o, "write seq, bs 128 KiB, qd 32"));
	EXPECT_NE(NULL, strstr(o, "class='mark-reset'"));
	EXPECT_NE(NULL, strstr(o, "class='mark-error'"));
	dir_done(&x);
}

TEST(no_overwrite_without_force)
{
	struct dir x;
	const char *args[] = { x.a, "-o", x.svg, NULL };
	const char *forced[] = { x.a, "-o", x.svg, "--force", NULL };
	FILE *f;

	dir_init(&x);
	write_trace(x.a, &base);
	f = fopen(x.svg, "w");
	ASSERT_NE(NULL, f);
	fputs("precious\n", f);
	fclose(f);
	EXPECT_EQ(2, run_cmd("plot", NULL, args));
	EXPECT_STREQ("precious\n", slurp(x.svg));
	EXPECT_EQ(0, run_cmd("plot", NULL, forced));
	EXPECT_EQ(0, strncmp(slurp(x.svg), "<?xml", 5));
	dir_done(&x);
}

TEST(png_is_png)
{
	struct dir x;
	const char *args[] = { x.a, "-o", x.png, NULL };
	char *o;

	dir_init(&x);
	write_trace(x.a, &base);
	if (system("command -v rsvg-convert >/dev/null 2>&1")) {
		/* without rsvg-convert: refused, nothing written */
		EXPECT_EQ(1, run_cmd("plot", NULL, args));
		EXPECT_NE(0, access(x.png, F_OK));
	} else {
		EXPECT_EQ(0, run_cmd("plot", NULL, args));
		o = slurp(x.png);
		EXPECT_EQ(0, memcmp(o, "\x89PNG", 4));
	}
	dir_done(&x);
}

TEST(png_refused_without_rsvg_convert)
{
	struct dir x;
	const char *args[] = { x.a, "-o", x.png, NULL };

	dir_init(&x);
	write_trace(x.a, &base);
	setenv("PATH", "/nonexistent", 1);	/* this test's child only */
	EXPECT_EQ(1, run_cmd("plot", NULL, args));
	EXPECT_NE(0, access(x.png, F_OK));
	dir_done(&x);
}

TEST(other_image_names_refused)
{
	struct dir x;
	char jpg[128];
	const char *args[] = { x.a, "-o", jpg, NULL };

	dir_init(&x);
	snprintf(jpg, sizeof(jpg), "%s/chart.jpg", x.d);
	write_trace(x.a, &base);
	EXPECT_EQ(2, run_cmd("plot", NULL, args));
	EXPECT_NE(0, access(jpg, F_OK));
	dir_done(&x);
}

TEST(overlay_a_b)
{
	struct dir x;
	struct spec s = base;
	const char *args[] = { x.a, x.b, "-o", "-", NULL };
	char *o;

	dir_init(&x);
	write_trace(x.a, &base);
	s.seed = 2;
	s.kernel = "6.13.0-rc1";
	s.mbps = 200;
	s.resets = 2;
	write_trace(x.b, &s);
	EXPECT_EQ(0, run_cmd("plot", x.out, args));
	o = slurp(x.out);
	EXPECT_EQ(2, count(o, "class='curve-a'")) TH_LOG("%.1500s", o);
	EXPECT_EQ(2, count(o, "class='curve-b'"));
	EXPECT_NE(NULL, strstr(o, "6.12.1"));
	EXPECT_NE(NULL, strstr(o, "6.13.0-rc1"));
	EXPECT_EQ(5, count(o, "class='mark-reset'"));	/* 2 x 2 + legend */
	dir_done(&x);
}

TEST_HARNESS_MAIN
