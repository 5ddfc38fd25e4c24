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
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* the harness and FIXTURE define functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
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

/*
 * Remove the directory and what the test wrote in it (files only), with
 * no program started: a test may have set PATH to nothing. Returns 0, or
 * -1 when something is left.
 */
static int dir_done(struct dir *x)
{
	char path[sizeof(x->d) + 258];
	struct dirent *e;
	DIR *d = opendir(x->d);

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", x->d, e->d_name);
		unlink(path);
	}
	closedir(d);
	return rmdir(x->d);
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

/* Each test in a scratch directory of its own, removed whatever the test did. */
FIXTURE(plot) {
	struct dir x;
};

FIXTURE_SETUP(plot)
{
	dir_init(&self->x);
}

FIXTURE_TEARDOWN(plot)
{
	if (dir_done(&self->x))
		TH_LOG("cannot remove %s", self->x.d);
	EXPECT_NE(0, access(self->x.d, F_OK));
}

/* diagnose's idle gaps, from the trace's "# experiment: idle" lines */
TEST_F(plot, idle_gaps_from_the_trace)
{
	struct dir *x = &self->x;
	struct spec s = base;
	FILE *f;
	char *o;

	write_trace(x->a, &s);
	f = fopen(x->a, "a");
	ASSERT_NE(NULL, f);
	fputs("# experiment: idle at 45.0 s for 10.0 s\n"
	      "# experiment: idle-recovery: after 10 s idle, 5.00 GB (2.5 s) at the high rate\n"
	      "# experiment: idle at 60.0 s for 60.0 s\n", f);
	fclose(f);
	{
		const char *args[] = { x->a, "-o", "-", NULL };

		EXPECT_EQ(0, run_cmd("plot", x->out, args));
	}
	o = slurp(x->out);
	EXPECT_EQ(2, count(o, "class='idle-gap'")) TH_LOG("%.2000s", o);
	EXPECT_NE(NULL, strstr(o, "idle gaps of the experiments"));
}

TEST_F(plot, stdout_caption_and_marks)
{
	struct dir *x = &self->x;
	struct spec s = base;
	char *o;

	s.resets = 1;
	s.errors = 1;
	write_trace(x->a, &s);
	{
		const char *args[] = { x->a, "-o", "-", NULL };

		EXPECT_EQ(0, run_cmd("plot", x->out, args));
	}
	EXPECT_NE(0, access("-", F_OK));	/* no file named '-' */
	o = slurp(x->out);
	EXPECT_EQ(0, strncmp(o, "<?xml", 5));
	EXPECT_NE(NULL, strstr(o, "kernel 6.12.1")) TH_LOG("%.1500s", o);
	EXPECT_NE(NULL, strstr(o, "uas"));
	EXPECT_NE(NULL, strstr(o, "5000 Mb/s"));
	EXPECT_NE(NULL, strstr(o, "0bda:9210"));
	EXPECT_NE(NULL, strstr(o, "write seq, bs 128 KiB, qd 32"));
	EXPECT_NE(NULL, strstr(o, "class='mark-reset'"));
	EXPECT_NE(NULL, strstr(o, "class='mark-error'"));
}

TEST_F(plot, no_overwrite_without_force)
{
	struct dir *x = &self->x;
	const char *args[] = { x->a, "-o", x->svg, NULL };
	const char *forced[] = { x->a, "-o", x->svg, "--force", NULL };
	FILE *f;

	write_trace(x->a, &base);
	f = fopen(x->svg, "w");
	ASSERT_NE(NULL, f);
	fputs("precious\n", f);
	fclose(f);
	EXPECT_EQ(2, run_cmd("plot", NULL, args));
	EXPECT_STREQ("precious\n", slurp(x->svg));
	EXPECT_EQ(0, run_cmd("plot", NULL, forced));
	EXPECT_EQ(0, strncmp(slurp(x->svg), "<?xml", 5));
}

TEST_F(plot, png_is_png)
{
	struct dir *x = &self->x;
	const char *args[] = { x->a, "-o", x->png, NULL };
	char *o;

	write_trace(x->a, &base);
	if (system("command -v rsvg-convert >/dev/null 2>&1")) {
		/* without rsvg-convert: refused, nothing written */
		EXPECT_EQ(1, run_cmd("plot", NULL, args));
		EXPECT_NE(0, access(x->png, F_OK));
	} else {
		EXPECT_EQ(0, run_cmd("plot", NULL, args));
		o = slurp(x->png);
		EXPECT_EQ(0, memcmp(o, "\x89PNG", 4));
	}
}

TEST_F(plot, png_refused_without_rsvg_convert)
{
	struct dir *x = &self->x;
	const char *args[] = { x->a, "-o", x->png, NULL };

	write_trace(x->a, &base);
	setenv("PATH", "/nonexistent", 1);	/* this test's child only */
	EXPECT_EQ(1, run_cmd("plot", NULL, args));
	EXPECT_NE(0, access(x->png, F_OK));
}

TEST_F(plot, other_image_names_refused)
{
	struct dir *x = &self->x;
	char jpg[128];
	const char *args[] = { x->a, "-o", jpg, NULL };

	snprintf(jpg, sizeof(jpg), "%s/chart.jpg", x->d);
	write_trace(x->a, &base);
	EXPECT_EQ(2, run_cmd("plot", NULL, args));
	EXPECT_NE(0, access(jpg, F_OK));
}

TEST_F(plot, overlay_a_b)
{
	struct dir *x = &self->x;
	struct spec s = base;
	const char *args[] = { x->a, x->b, "-o", "-", NULL };
	char *o;

	write_trace(x->a, &base);
	s.seed = 2;
	s.kernel = "6.13.0-rc1";
	s.mbps = 200;
	s.resets = 2;
	write_trace(x->b, &s);
	EXPECT_EQ(0, run_cmd("plot", x->out, args));
	o = slurp(x->out);
	EXPECT_EQ(2, count(o, "class='curve-a'")) TH_LOG("%.1500s", o);
	EXPECT_EQ(2, count(o, "class='curve-b'"));
	EXPECT_NE(NULL, strstr(o, "6.12.1"));
	EXPECT_NE(NULL, strstr(o, "6.13.0-rc1"));
	EXPECT_EQ(5, count(o, "class='mark-reset'"));	/* 2 x 2 + legend */
}

/* the <text> whose content starts with @start, up to its end tag */
static const char *text_line(const char *svg, const char *start, char *buf,
			     size_t len)
{
	char want[128];
	const char *p, *e;

	snprintf(want, sizeof(want), ">%s", start);
	p = strstr(svg, want);
	if (!p)
		return "";
	e = strstr(p, "</text>");
	snprintf(buf, len, "%.*s", e ? (int)(e - p - 1) : 0, p + 1);
	return buf;
}

/* the stroke of the first element of @cls */
static const char *stroke_of(const char *svg, const char *cls, char *buf,
			     size_t len)
{
	const char *p = strstr(svg, cls);

	p = p ? strstr(p, "stroke='") : NULL;
	snprintf(buf, len, "%.7s", p ? p + 8 : "");
	return buf;
}

/* @path with @from replaced by @to */
static void edit(const char *path, const char *from, const char *to)
{
	char *t = strdup(slurp(path)), *at = t ? strstr(t, from) : NULL;
	FILE *f;

	if (!at)
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
	fclose(f);
	free(t);
}

/*
 * Two runs of two setups: each caption line is its own run's (B carried
 * A's device, VID:PID and bs), A and B in their own colours, each mark
 * labelled with its run.
 */
TEST_F(plot, overlay_each_run_its_own)
{
	struct dir *x = &self->x;
	struct spec s = base;
	const char *args[] = { x->a, x->b, "-o", "-", NULL };
	char la[400], lb[400], ca[16], cb[16];
	char *o;

	s.resets = 1;
	write_trace(x->a, &s);
	s = base;
	s.seed = 2;
	s.bs = 1048576;
	s.driver = "usb-storage";
	s.resets = 2;
	write_trace(x->b, &s);
	edit(x->b, "# usb_id: 0bda:9210", "# usb_id: 152d:0583");
	edit(x->b, "# model: Samsung SSD 870", "# model: WD Blue SN570");
	EXPECT_EQ(0, run_cmd("plot", x->out, args));
	o = slurp(x->out);
	text_line(o, "A: ", la, sizeof(la));
	text_line(o, "B: ", lb, sizeof(lb));
	EXPECT_NE(NULL, strstr(la, "Samsung SSD 870")) TH_LOG("A: '%s'", la);
	EXPECT_NE(NULL, strstr(la, "0bda:9210")) TH_LOG("A: '%s'", la);
	EXPECT_NE(NULL, strstr(lb, "WD Blue SN570")) TH_LOG("B: '%s'", lb);
	EXPECT_NE(NULL, strstr(lb, "152d:0583")) TH_LOG("B: '%s'", lb);
	EXPECT_EQ(NULL, strstr(lb, "0bda:9210")) TH_LOG("B: '%s'", lb);
	/* each run's workload and driver under its device */
	EXPECT_NE(NULL, strstr(o, "uas at 5000 Mb/s; write seq, bs 128 KiB, qd 32"))
		TH_LOG("%.2500s", o);
	EXPECT_NE(NULL, strstr(o, "usb-storage at 5000 Mb/s; write seq, bs 1 MiB, qd 32"));
	/* A and B in their own colours: not the grey of one run */
	stroke_of(o, "class='curve-a'", ca, sizeof(ca));
	stroke_of(o, "class='curve-b'", cb, sizeof(cb));
	EXPECT_STRNE(ca, cb);
	EXPECT_STRNE("#9a9a9a", ca);
	/* marks by run: A's reset in both panels, B's two in both */
	EXPECT_EQ(2, count(o, ">A:R</text>")) TH_LOG("%.3000s", o);
	EXPECT_EQ(4, count(o, ">B:R</text>"));
	EXPECT_NE(NULL, strstr(o, "A:, B: the run's mark"));
}

/* A read run is drawn against the bytes it read. */
TEST_F(plot, read_run_against_bytes_read)
{
	struct dir *x = &self->x;
	struct spec s = base;
	const char *one[] = { x->a, "-o", "-", NULL };
	const char *two[] = { x->b, x->a, "-o", "-", NULL };
	char *o;

	s.op = "read";
	write_trace(x->a, &s);
	EXPECT_EQ(0, run_cmd("plot", x->out, one));
	o = slurp(x->out);
	EXPECT_NE(NULL, strstr(o, ">bytes read (GB)<")) TH_LOG("%.3000s", o);
	EXPECT_EQ(NULL, strstr(o, "written"));
	write_trace(x->b, &base);
	EXPECT_EQ(0, run_cmd("plot", x->out, two));
	o = slurp(x->out);
	EXPECT_NE(NULL, strstr(o, ">bytes written (A), read (B) (GB)<")) TH_LOG("%.3000s", o);
}

TEST_HARNESS_MAIN
